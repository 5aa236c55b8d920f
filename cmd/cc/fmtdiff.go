package main

import (
	"fmt"
	"strings"

	"cc.dev/cc/internal/textdiff"
)

// fmtContext is how many unchanged lines a hunk of cc fmt --diff shows
// around a change, as diff -u does.
const fmtContext = 3

// unifiedDiff is the whole unified diff (diff -u) from a to b, both named
// name: "--- a/NAME", "+++ b/NAME", then the hunks, which patch -p1
// applies. Unlike a plan's line diff it is never cut short. It is "" when
// a and b are equal (issue 12: cc fmt --diff).
func unifiedDiff(name, a, b string) string {
	if a == b {
		return ""
	}
	ops := textdiff.Lines(a, b)
	var w strings.Builder
	fmt.Fprintf(&w, "--- a/%s\n+++ b/%s\n", name, name)
	for _, h := range textdiff.Hunks(ops, fmtContext) {
		w.WriteString(textdiff.Header(ops, h) + "\n")
		for _, o := range ops[h[0]:h[1]] {
			w.WriteByte(o.Kind)
			w.WriteString(o.Text)
			if !strings.HasSuffix(o.Text, "\n") {
				w.WriteString("\n\\ No newline at end of file\n")
			}
		}
	}
	return w.String()
}
