package compiler

import (
	"math"
	"reflect"
	"testing"

	"github.com/hashicorp/hcl/v2"
)

// TestLocatorKeepsEveryRange checks that the packed locator gives back
// exactly the ranges recorded: in several files, past 32 bits, across two
// files, overwritten, moved, and looked up by a parent path (issue 13:
// memory per resource).
func TestLocatorKeepsEveryRange(t *testing.T) {
	rng := func(file string, line, col, b int) hcl.Range {
		return hcl.Range{Filename: file, Start: hcl.Pos{Line: line, Column: col, Byte: b}, End: hcl.Pos{Line: line, Column: col + 3, Byte: b + 3}}
	}
	huge := hcl.Range{Filename: "a.hcl", Start: hcl.Pos{Line: 1, Column: 1, Byte: math.MaxUint32 + 5}, End: hcl.Pos{Line: 2, Column: 1, Byte: math.MaxUint32 + 9}}
	l := newHCLLocator()
	l.reserve(4)
	want := map[string]rangePair{}
	set := func(path []string, val, key hcl.Range) {
		l.set(path, val, key)
		want[pathKey(path)] = rangePair{val, key}
	}
	set([]string{"sandboxes", "a"}, rng("a.hcl", 3, 1, 40), rng("a.hcl", 3, 9, 48))
	set([]string{"sandboxes", "a", "env"}, rng("b.hcl", 4, 2, 60), rng("b.hcl", 4, 2, 60))
	set([]string{"sandboxes", "b"}, huge, rng("a.hcl", 7, 1, 90))
	set([]string{"sandboxes", "c"}, rng("a.hcl", 8, 1, 95), rng("b.hcl", 1, 1, 0))
	set([]string{"sandboxes", "a"}, rng("a.hcl", 5, 1, 70), rng("a.hcl", 5, 9, 78)) // overwritten
	set([]string{"sandboxes", "b"}, rng("a.hcl", 9, 1, 99), rng("a.hcl", 9, 2, 100))
	set([]string{"sandboxes", "d"}, huge, huge)
	l.reserve(100)
	for k, w := range want {
		if got, ok := l.get(k); !ok || !reflect.DeepEqual(got, w) {
			t.Errorf("%q: got %v, %v; want %v", k, got, ok, w)
		}
	}
	if r := l.at([]string{"sandboxes", "a", "env", "KEY"}); r == nil || r.File != "b.hcl" || r.Start.Line != 4 {
		t.Errorf("at a parent path: got %v", r)
	}
	if r := l.key([]string{"sandboxes", "c"}); r == nil || r.File != "b.hcl" {
		t.Errorf("key: got %v", r)
	}
	l.move([]string{"sandboxes", "a"}, []string{"sandboxes", "m"})
	l.move([]string{"sandboxes", "d"}, []string{"sandboxes", "n"})
	for from, to := range map[string]string{"sandboxes\x00a": "sandboxes\x00m", "sandboxes\x00a\x00env": "sandboxes\x00m\x00env", "sandboxes\x00d": "sandboxes\x00n"} {
		if got, _ := l.get(to); !reflect.DeepEqual(got, want[from]) {
			t.Errorf("moved %q to %q: got %v, want %v", from, to, got, want[from])
		}
	}
	if _, ok := l.get("sandboxes\x00z"); ok || l.at([]string{"volumes"}) != nil {
		t.Error("a path never recorded has a range")
	}
}
