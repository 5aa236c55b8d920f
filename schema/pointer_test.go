package schema

import (
	"reflect"
	"testing"
)

// TestPointerEscapes checks RFC 6901's escapes both ways: "~" is "~0" and
// "/" is "~1", in that order, so that "~1" written as a name stays one.
func TestPointerEscapes(t *testing.T) {
	for _, tc := range []struct {
		elems []string
		ptr   string
	}{
		{nil, "/"},
		{[]string{"env", "K"}, "/env/K"},
		{[]string{"volumes", "/data"}, "/volumes/~1data"},
		{[]string{"a~b", "~1", "/~"}, "/a~0b/~01/~1~0"},
		{[]string{""}, "/"},
	} {
		got := JoinPointer(tc.elems)
		if got != tc.ptr {
			t.Errorf("JoinPointer(%q) = %q; want %q", tc.elems, got, tc.ptr)
		}
		if len(tc.elems) > 0 && tc.elems[0] == "" {
			continue // "/" is the root's pointer: one empty name does not round-trip
		}
		if back := SplitPointer(tc.ptr); !reflect.DeepEqual(back, tc.elems) {
			t.Errorf("SplitPointer(%q) = %q; want %q", tc.ptr, back, tc.elems)
		}
	}
}
