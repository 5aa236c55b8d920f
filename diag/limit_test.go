package diag

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// TestItem14Limit: issue 8 item 14. A list keeps MaxShown diagnostics and
// counts the rest in a last one; limiting again keeps the count, and
// sorting keeps it last.
func TestItem14Limit(t *testing.T) {
	var ds Diagnostics
	for i := 0; i < 120; i++ {
		ds = append(ds, Errorf(&Range{File: "a.hcl", Start: Pos{Line: 120 - i, Col: 1, Byte: 120 - i}}, "e%d", i))
	}
	got := ds.Sort().Limit(MaxShown)
	if len(got) != MaxShown+1 || got[MaxShown].Omitted != 70 || got[MaxShown].Summary != "and 70 more errors" {
		t.Fatalf("Limit() = %d diagnostics, last %+v; want %d and \"and 70 more errors\"", len(got), got[len(got)-1], MaxShown+1)
	}
	if again := got.Sort().Limit(MaxShown); len(again) != MaxShown+1 || again[MaxShown].Omitted != 70 {
		t.Errorf("Limit() twice = %d diagnostics, last %+v", len(again), again[len(again)-1])
	}
	two := Diagnostics{Errorf(nil, "a"), Errorf(nil, "b")}
	if got := two.Limit(1); got[1].Summary != "and 1 more error" {
		t.Errorf("Limit(1) of 2 = %q", got[1].Summary)
	}
	if short := ds[:3].Limit(MaxShown); len(short) != 3 {
		t.Errorf("Limit() of 3 = %d diagnostics", len(short))
	}
}

// TestItem14SnippetsLinear: issue 8 item 14. A snippet reads only up to
// its line (the text is not split per diagnostic): rendering MaxShown
// diagnostics of a large file shows the right lines.
func TestItem14SnippetsLinear(t *testing.T) {
	var src strings.Builder
	for i := 1; i <= 100_000; i++ {
		fmt.Fprintf(&src, "line%d = x\n", i)
	}
	text := []byte(src.String())
	var ds Diagnostics
	for _, n := range []int{1, 2, 99_999, 100_000, 100_001} {
		ds = append(ds, Errorf(&Range{File: "a.hcl", Start: Pos{Line: n, Col: 1}, End: Pos{Line: n, Col: 5}}, "at %d", n))
	}
	var b bytes.Buffer
	if err := WriteText(&b, ds, func(string) []byte { return text }); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"  1 | line1 = x\n", "  2 | line2 = x\n", "  99999 | line99999 = x\n", "  100000 | line100000 = x\n", "  100001 | \n"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("rendering lacks %q:\n%s", want, b.String())
		}
	}
	if line, ok := lineOf(text, 100_002); ok {
		t.Errorf("lineOf(past the end) = %q, true", line)
	}
}
