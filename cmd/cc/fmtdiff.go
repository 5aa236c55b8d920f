package main

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
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
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	ra, rb, lines := dmp.DiffLinesToRunes(a, b)
	var ops []lineOp
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), lines) {
		op := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			op = '-'
		case diffmatchpatch.DiffInsert:
			op = '+'
		}
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				ops = append(ops, lineOp{op, l})
			}
		}
	}
	var w strings.Builder
	fmt.Fprintf(&w, "--- a/%s\n+++ b/%s\n", name, name)
	for _, h := range hunks(ops) {
		writeHunk(&w, ops, h)
	}
	return w.String()
}

// lineOp is one line of a diff: ' ' kept, '-' removed, '+' added; text
// keeps its newline (a last line without one has none).
type lineOp struct {
	op   byte
	text string
}

// hunks groups the changed lines of ops, with fmtContext lines of context
// around each, into [start, end) ranges of ops.
func hunks(ops []lineOp) [][2]int {
	var out [][2]int
	for i := 0; i < len(ops); i++ {
		if ops[i].op == ' ' {
			continue
		}
		start := max(i-fmtContext, 0)
		end := i
		for j := i; j < len(ops) && j <= end+2*fmtContext; j++ {
			if ops[j].op != ' ' {
				end = j
			}
		}
		end = min(end+fmtContext+1, len(ops))
		if n := len(out); n > 0 && start <= out[n-1][1] {
			out[n-1][1] = end
		} else {
			out = append(out, [2]int{start, end})
		}
		i = end - 1
	}
	return out
}

// writeHunk writes ops[h[0]:h[1]] with its @@ header.
func writeHunk(w *strings.Builder, ops []lineOp, h [2]int) {
	oldLine, newLine := 1, 1
	for _, o := range ops[:h[0]] {
		if o.op != '+' {
			oldLine++
		}
		if o.op != '-' {
			newLine++
		}
	}
	oldN, newN := 0, 0
	for _, o := range ops[h[0]:h[1]] {
		if o.op != '+' {
			oldN++
		}
		if o.op != '-' {
			newN++
		}
	}
	fmt.Fprintf(w, "@@ -%s +%s @@\n", hunkRange(oldLine, oldN), hunkRange(newLine, newN))
	for _, o := range ops[h[0]:h[1]] {
		w.WriteByte(o.op)
		w.WriteString(o.text)
		if !strings.HasSuffix(o.text, "\n") {
			w.WriteString("\n\\ No newline at end of file\n")
		}
	}
}

// hunkRange renders a hunk's start and length as diff -u does.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
