package textdiff

import (
	"strings"
	"testing"
)

// Two changes far apart make two hunks, near ones one, and the headers
// count lines as diff -u does (issue 12: one line diff for cc fmt --diff
// and plans).
func TestHunksAndHeaders(t *testing.T) {
	var a []string
	for i := 1; i <= 20; i++ {
		a = append(a, "l"+string(rune('a'+i)))
	}
	b := append([]string(nil), a...)
	b[1] = "changed"
	b[16] = "changed too"
	ops := Lines(strings.Join(a, "\n")+"\n", strings.Join(b, "\n")+"\n")
	hs := Hunks(ops, 3)
	if len(hs) != 2 {
		t.Fatalf("Hunks = %v, want 2", hs)
	}
	if got := Header(ops, hs[0]); got != "@@ -1,5 +1,5 @@" {
		t.Errorf("first header = %q", got)
	}
	if got := Header(ops, hs[1]); got != "@@ -14,7 +14,7 @@" {
		t.Errorf("second header = %q", got)
	}
	b[8] = "between"
	ops = Lines(strings.Join(a, "\n")+"\n", strings.Join(b, "\n")+"\n")
	// Lines 2 and 9 changed, six kept lines between: one hunk; line 17
	// is eight lines on: its own.
	if hs := Hunks(ops, 3); len(hs) != 2 || Header(ops, hs[0]) != "@@ -1,12 +1,12 @@" {
		t.Errorf("Hunks = %v (first %q), want two, the first -1,12 +1,12", hs, Header(ops, hs[0]))
	}
	ops = Lines("x\ny", "x\nz")
	if last := ops[len(ops)-1]; last.Kind != '+' || last.Text != "z" {
		t.Errorf("a last line without a newline: %q", ops)
	}
}
