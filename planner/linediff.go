package planner

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Bounds of a line diff: it is for reading, not for patching.
const (
	maxDiffLines  = 80  // lines of diff output, hunk headers included
	maxLineLength = 240 // bytes of one line shown
	contextLines  = 3
)

type lineOp struct {
	op   byte // ' ', '-', '+'
	text string
}

// lineDiff is a unified diff of a and b with three lines of context, at
// most maxDiffLines lines, ending with a note of what it left out. It uses
// no deadline, so the same inputs always give the same diff.
func lineDiff(a, b string) string {
	if a == b {
		return ""
	}
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	ra, rb, lines := dmp.DiffLinesToRunes(a, b)
	diffs := dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), lines)
	var ops []lineOp
	for _, d := range diffs {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		text := strings.TrimSuffix(d.Text, "\n")
		for _, l := range strings.Split(text, "\n") {
			ops = append(ops, lineOp{op, l})
		}
	}
	return unified(ops)
}

// unified renders ops as hunks.
func unified(ops []lineOp) string {
	var b strings.Builder
	lines, changed, shown := 0, 0, 0
	for _, o := range ops {
		if o.op != ' ' {
			changed++
		}
	}
	// Line numbers before each op, in a and b.
	na, nb := make([]int, len(ops)+1), make([]int, len(ops)+1)
	for i, o := range ops {
		na[i+1], nb[i+1] = na[i], nb[i]
		if o.op != '+' {
			na[i+1]++
		}
		if o.op != '-' {
			nb[i+1]++
		}
	}
	for i := 0; i < len(ops); {
		if ops[i].op == ' ' {
			i++
			continue
		}
		// A hunk: from context before the change to context after the
		// last change that is within 2*contextLines of the previous one.
		start := max(0, i-contextLines)
		end := i
		for j := i; j < len(ops); j++ {
			if ops[j].op != ' ' {
				end = j
			} else if j-end > 2*contextLines {
				break
			}
		}
		stop := min(len(ops), end+contextLines+1)
		if lines+2 > maxDiffLines {
			break
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(na[start], na[stop]-na[start]), hunkRange(nb[start], nb[stop]-nb[start]))
		lines++
		for j := start; j < stop; j++ {
			if lines >= maxDiffLines {
				break
			}
			b.WriteByte(ops[j].op)
			b.WriteString(clip(ops[j].text))
			b.WriteByte('\n')
			lines++
			if ops[j].op != ' ' {
				shown++
			}
		}
		i = stop
	}
	if shown < changed {
		fmt.Fprintf(&b, "… %d more changed %s not shown\n", changed-shown, plural(changed-shown, "line", "lines"))
	}
	return b.String()
}

func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	if n == 1 {
		return fmt.Sprint(start + 1)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

// clip shortens a line to maxLineLength bytes, on a rune boundary.
func clip(s string) string {
	if len(s) <= maxLineLength {
		return s
	}
	cut := maxLineLength
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// isText reports whether b looks like text worth a line diff.
func isText(b []byte) bool {
	return utf8.Valid(b) && !strings.ContainsRune(string(b), 0)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
