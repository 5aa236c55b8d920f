package planner

import (
	"fmt"
	pathpkg "path"
	"sort"

	"cc.dev/cc/schema"
)

// treeDiff compares two file trees by path. base is the copied path the
// entries are relative to ("" when relative to the project root). ok is
// false when either listing is not available.
func (pl *planning) treeDiff(oldDigest, newDigest, via, base string) ([]FileChange, bool) {
	oldTree, ok1 := pl.tree(oldDigest)
	newTree, ok2 := pl.tree(newDigest)
	if !ok1 || !ok2 {
		return nil, false
	}
	display := func(p string) string { return p }
	if base != "" {
		single := len(newTree) == 1 && newTree[0].Path == pathpkg.Base(base) || len(oldTree) == 1 && oldTree[0].Path == pathpkg.Base(base)
		display = func(p string) string {
			if single && p == pathpkg.Base(base) {
				return base
			}
			return pathpkg.Join(base, p)
		}
	}
	var out []FileChange
	i, j := 0, 0
	for i < len(oldTree) || j < len(newTree) {
		switch {
		case j == len(newTree) || i < len(oldTree) && oldTree[i].Path < newTree[j].Path:
			out = append(out, FileChange{Path: display(oldTree[i].Path), Via: via, Op: "removed", BeforeDigest: oldTree[i].Digest})
			i++
		case i == len(oldTree) || newTree[j].Path < oldTree[i].Path:
			f := FileChange{Path: display(newTree[j].Path), Via: via, Op: "added", AfterDigest: newTree[j].Digest}
			out = append(out, f)
			j++
		default:
			a, b := oldTree[i], newTree[j]
			i++
			j++
			if a.Digest == b.Digest && a.Mode == b.Mode {
				continue
			}
			if a.Digest == b.Digest {
				out = append(out, FileChange{Path: display(b.Path), Via: via, Op: "changed", BeforeDigest: a.Digest, AfterDigest: b.Digest,
					Note: fmt.Sprintf("mode %s → %s", a.Mode, b.Mode)})
				continue
			}
			out = append(out, pl.fileChange(display(b.Path), via, a.Digest, b.Digest))
		}
	}
	return out, true
}

func (pl *planning) tree(digest string) ([]schema.TreeEntry, bool) {
	if t, ok := pl.d.Trees[digest]; ok {
		return t, true
	}
	if pl.o.Content == nil || digest == "" {
		return nil, false
	}
	t, ok := pl.o.Content.Tree(digest)
	if !ok {
		return nil, false
	}
	sorted := append([]schema.TreeEntry(nil), t...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	return sorted, true
}

// fileListDiff compares two lists of {path, digest}.
func (pl *planning) fileListDiff(old, cur []any, via string) []FileChange {
	index := func(l []any) map[string]string {
		m := map[string]string{}
		for _, f := range l {
			m[str(get(f, "path"))] = str(get(f, "digest"))
		}
		return m
	}
	a, b := index(old), index(cur)
	var out []FileChange
	for _, p := range keysOfBoth(a, b) {
		da, inA := a[p]
		db, inB := b[p]
		switch {
		case !inA:
			out = append(out, FileChange{Path: p, Via: via, Op: "added", AfterDigest: db})
		case !inB:
			out = append(out, FileChange{Path: p, Via: via, Op: "removed", BeforeDigest: da})
		case da != db:
			out = append(out, pl.fileChange(p, via, da, db))
		}
	}
	return out
}

// fileChange is a changed file with its line diff, when both contents are
// available and text.
func (pl *planning) fileChange(p, via, oldDigest, newDigest string) FileChange {
	f := FileChange{Path: p, Via: via, Op: "changed", BeforeDigest: oldDigest, AfterDigest: newDigest}
	if pl.o.Content == nil {
		return f
	}
	if pl.diffsShown >= maxPlanFileDiffs {
		f.Note = "diff not shown: too many changed files"
		return f
	}
	a, okA := pl.o.Content.File(oldDigest)
	b, okB := pl.o.Content.File(newDigest)
	switch {
	case !okA:
		f.Note = "the old content is not available"
	case !okB:
		f.Note = "the new content is not available"
	case !isText(a) || !isText(b):
		f.Note = "binary file"
	default:
		pl.diffsShown++
		f.Diff = lineDiff(string(a), string(b))
	}
	return f
}

func opSuffix(op string) string {
	if op == "changed" {
		return ""
	}
	return " (" + op + ")"
}

// keysOfBoth lists the keys of a and of b, once each, sorted.
func keysOfBoth[V any](a, b map[string]V) []string {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	return keys
}
