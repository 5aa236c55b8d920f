package planner

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"cc.dev/cc/internal/textdiff"
)

// Bounds of a line diff: it is for reading, not for patching.
const (
	maxDiffLines  = 80  // lines of diff output, hunk headers included
	maxLineLength = 240 // bytes of one line shown
	contextLines  = 3
)

// lineDiff is a unified diff of a and b with three lines of context, at
// most maxDiffLines lines, ending with a note of what it left out.
func lineDiff(a, b string) string {
	if a == b {
		return ""
	}
	ops := textdiff.Lines(a, b)
	var w strings.Builder
	lines, changed, shown := 0, 0, 0
	for _, o := range ops {
		if o.Kind != ' ' {
			changed++
		}
	}
	for _, h := range textdiff.Hunks(ops, contextLines) {
		if lines+2 > maxDiffLines {
			break
		}
		w.WriteString(textdiff.Header(ops, h) + "\n")
		lines++
		for _, o := range ops[h[0]:h[1]] {
			if lines >= maxDiffLines {
				break
			}
			w.WriteByte(o.Kind)
			w.WriteString(clip(strings.TrimSuffix(o.Text, "\n")))
			w.WriteByte('\n')
			lines++
			if o.Kind != ' ' {
				shown++
			}
		}
	}
	if shown < changed {
		fmt.Fprintf(&w, "… %d more changed %s not shown\n", changed-shown, plural(changed-shown, "line", "lines"))
	}
	return w.String()
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
