// Package textdiff is the line diff behind cc fmt --diff and the plan's
// diffs of files: the lines of two texts, kept, removed or added, grouped
// into hunks with their diff -u headers. It uses no deadline, so the same
// inputs always give the same diff.
package textdiff

import (
	"fmt"
	"strings"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Op is one line of a diff: Kind ' ' kept, '-' removed, '+' added. Text
// keeps its newline; a last line without one has none.
type Op struct {
	Kind byte
	Text string
}

// Lines diffs a and b line by line.
func Lines(a, b string) []Op {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0
	ra, rb, lines := dmp.DiffLinesToRunes(a, b)
	var ops []Op
	for _, d := range dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), lines) {
		kind := byte(' ')
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			kind = '-'
		case diffmatchpatch.DiffInsert:
			kind = '+'
		}
		for _, l := range strings.SplitAfter(d.Text, "\n") {
			if l != "" {
				ops = append(ops, Op{kind, l})
			}
		}
	}
	return ops
}

// Hunks groups the changed lines of ops, with context lines of context
// around each, into [start, end) ranges of ops; changes nearer than twice
// the context share a hunk, as diff -u does.
func Hunks(ops []Op, context int) [][2]int {
	var out [][2]int
	for i := 0; i < len(ops); i++ {
		if ops[i].Kind == ' ' {
			continue
		}
		start := max(i-context, 0)
		end := i
		for j := i; j < len(ops) && j <= end+2*context; j++ {
			if ops[j].Kind != ' ' {
				end = j
			}
		}
		end = min(end+context+1, len(ops))
		if n := len(out); n > 0 && start <= out[n-1][1] {
			out[n-1][1] = end
		} else {
			out = append(out, [2]int{start, end})
		}
		i = end - 1
	}
	return out
}

// Header is the "@@ -l,n +l,n @@" line of the hunk h of ops.
func Header(ops []Op, h [2]int) string {
	oldLine, newLine := 1, 1
	for _, o := range ops[:h[0]] {
		if o.Kind != '+' {
			oldLine++
		}
		if o.Kind != '-' {
			newLine++
		}
	}
	oldN, newN := 0, 0
	for _, o := range ops[h[0]:h[1]] {
		if o.Kind != '+' {
			oldN++
		}
		if o.Kind != '-' {
			newN++
		}
	}
	return fmt.Sprintf("@@ -%s +%s @@", hunkRange(oldLine, oldN), hunkRange(newLine, newN))
}

// hunkRange renders a hunk's first line (from 1) and length as diff -u
// does.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start-1)
	}
	if n == 1 {
		return fmt.Sprint(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
