package compiler

import "testing"

// TestRefusesOnKeys: issue 13: a closed struct alternative that refuses a
// value on its keys alone (checkStruct's "field not allowed" and "missing
// field") is not tried; one that could accept it still is.
func TestRefusesOnKeys(t *testing.T) {
	str := &stype{kinds: kString}
	closed := &stype{kinds: kStruct, closed: true, fields: map[string]*sfield{
		"a": {t: str, required: true}, "b": {t: str, optional: true}}}
	open := &stype{kinds: kStruct, fields: closed.fields}
	withPattern := &stype{kinds: kStruct, closed: true, fields: closed.fields, patterns: []spattern{{key: str, t: str}}}
	for _, c := range []struct {
		t    *stype
		v    any
		want bool
	}{
		{closed, map[string]any{"a": "x"}, false},
		{closed, map[string]any{"a": "x", "b": "y"}, false},
		{closed, map[string]any{"a": "x", "c": "y"}, true},
		{closed, map[string]any{"b": "y"}, true},
		{closed, "not a struct", false},
		{open, map[string]any{"a": "x", "c": "y"}, false},
		{withPattern, map[string]any{"a": "x", "c": "y"}, false},
	} {
		if got := refuses(c.t, c.v); got != c.want {
			t.Errorf("refuses(%v) = %v, want %v", c.v, got, c.want)
		}
		if c.want {
			fs := &fastSchema{}
			if _, err := fs.check(c.t, c.v, nil); err == nil {
				t.Errorf("check accepts %v, which refuses said it refuses", c.v)
			}
		}
	}
}
