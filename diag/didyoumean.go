package diag

// Suggest returns the candidate closest to given, when it is close enough to
// be a plausible misspelling, or "". Closeness is the edit distance
// (insertions, deletions, substitutions, transpositions) relative to length,
// as hcl's didyoumean does.
func Suggest(given string, candidates []string) string {
	best, bestDist := "", -1
	for _, c := range candidates {
		d := Distance(given, c)
		if d < 3 || d*3 <= len(given) {
			if bestDist < 0 || d < bestDist || (d == bestDist && c < best) {
				best, bestDist = c, d
			}
		}
	}
	if best == given {
		return ""
	}
	return best
}

// Distance is the optimal string alignment distance between a and b:
// insertions, deletions, substitutions and swaps of two neighbours, each
// one edit.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
