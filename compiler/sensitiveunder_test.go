package compiler

import (
	"reflect"
	"testing"
)

// TestSensitiveUnderIndex checks the index of sensitive paths by the
// resource path they are under (sensitiveUnder) against a scan of every
// path: the same paths in the same order, for resource paths of every
// length, a path that is a whole resource, and one longer than indexed.
func TestSensitiveUnderIndex(t *testing.T) {
	sens := [][]string{
		{"sandboxes", "a", "env", "K"},
		{"sandboxes", "a"},
		{"sandboxes", "ab", "env", "K"},
		{"data", "volumes", "v", "name"},
		{"sandboxes", "a", "env", "L"},
		{"functions", "f", "env", "x", "y", "z"},
		{"sandboxes"},
	}
	b := &builder{ld: &loaded{sensitive: sens}}
	for _, path := range [][]string{
		{"sandboxes", "a"}, {"sandboxes", "ab"}, {"sandboxes", "b"}, {"data", "volumes", "v"},
		{"data", "volumes"}, {"sandboxes"}, {}, {"functions", "f", "env", "x", "y"}, {"functions", "f", "env", "x", "y", "z"},
		{"sandboxes\x00a"},
	} {
		var want [][]string
		for _, sp := range sens {
			if len(sp) >= len(path) && pathKey(sp[:len(path)]) == pathKey(path) {
				want = append(want, sp)
			}
		}
		if got := b.sensitiveUnder(path); !reflect.DeepEqual(got, want) {
			t.Errorf("sensitiveUnder(%q) = %q; want %q", path, got, want)
		}
	}
}
