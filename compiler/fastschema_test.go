package compiler

import (
	"encoding/json"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
)

// fastVerdict runs the fast check compiled from a small schema (with a
// #Config) over a JSON value, and CUE's unification of the same, and
// returns both results (nil when refused).
func fastVerdict(t *testing.T, src, value string) (fast, slow []byte) {
	t.Helper()
	fs := newFastSchema([]schemaText{{name: "test.cue", src: []byte(src)}})
	if fs.err != nil {
		t.Fatalf("newFastSchema() error = %v", fs.err)
	}
	var data any
	dec := json.NewDecoder(strings.NewReader(value))
	dec.UseNumber()
	if err := dec.Decode(&data); err != nil {
		t.Fatal(err)
	}
	if out, err := fs.validate(data); err == nil {
		fast, _ = json.Marshal(out)
	}
	ctx := cuecontext.New()
	sch := ctx.CompileString(src)
	u := sch.LookupPath(cue.MakePath(cue.Def("#Config"))).Unify(ctx.CompileString(value))
	if u.Validate(cue.Concrete(true)) == nil {
		slow, _ = u.MarshalJSON()
	}
	return fast, slow
}

// TestIssue16FastSchemaModelsCUE: where the fast schema compiler used to
// model CUE differently (issue 16 item 3), the fast check now refuses what
// CUE refuses, and gives CUE's value for what both accept.
func TestIssue16FastSchemaModelsCUE(t *testing.T) {
	for _, tc := range []struct {
		name, schema, value string
		// mayRefuse: the fast check leaves this to CUE (it is not
		// modelled); otherwise refusing what CUE accepts is a failure.
		mayRefuse bool
	}{
		// A pattern applies to declared fields too.
		{"pattern on a declared field", `#Config: {a: int, [=~"^a"]: >5}`, `{"a": 3}`, false},
		{"pattern on a declared field, accepted", `#Config: {a: int, [=~"^a"]: >5}`, `{"a": 7}`, false},
		{"pattern on an embedded declared field", `#Config: {{a: int}, [=~"^a"]: >5}`, `{"a": 3}`, false},
		// Every matching pattern applies, not only the first.
		{"two patterns", `#Config: {[=~"^a"]: int, [=~"b$"]: >5}`, `{"ab": 3}`, false},
		{"two patterns, accepted", `#Config: {[=~"^a"]: int, [=~"b$"]: >5}`, `{"ab": 6, "a": 1}`, true},
		// An int literal is not a float (3 & 3.0 is an error in CUE).
		{"int literal, float value", `#Config: {retries: 3}`, `{"retries": 3.0}`, false},
		{"float literal, int value", `#Config: {ratio: 0.5 | 1.0}`, `{"ratio": 1}`, false},
		{"float literal default", `#Config: {ratio: *1.0 | float}`, `{}`, false},
		{"int literal default", `#Config: {n: *1 | int}`, `{}`, false},
		// A regular struct field not written is there, with its defaults.
		{"a regular struct field", `#Config: {a: {b: *1 | int, c?: string}}`, `{}`, false},
		{"a regular struct field, written", `#Config: {a: {b: *1 | int}}`, `{"a": {}}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fast, slow := fastVerdict(t, tc.schema, tc.value)
			if fast == nil {
				if slow != nil && !tc.mayRefuse {
					t.Fatalf("fast check refuses %s, CUE accepts it as %s", tc.value, slow)
				}
				return // refused: CUE judges
			}
			if slow == nil {
				t.Fatalf("fast check accepts %s as %s, CUE rejects it", tc.value, fast)
			}
			if err := sameJSON(fast, slow); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestIssue16FastSchemaRefuses: constructs the fast schema compiler does
// not model exactly are refused, so a schema using them fails
// TestFastCheckCoversSchema instead of being checked wrongly (issue 16
// item 3).
func TestIssue16FastSchemaRefuses(t *testing.T) {
	for _, tc := range []struct{ name, schema string }{
		{"conflicting defaults", `#Config: {a: (*1 | int) & (*2 | int)}`},
		{"two defaults of one field", "#Config: {a: *1 | int, a: *2 | int}"},
		{"defaults through a pattern", `#Config: {a: *1 | int, [string]: *2 | int}`},
		{"an eliminated default", `#Config: {a: (*0 | int) & >=1}`},
		{"a definition before it is compiled", "#Config: {a: #N & >1}\n#N: int"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := newFastSchema([]schemaText{{name: "test.cue", src: []byte(tc.schema)}})
			if fs.err == nil {
				t.Fatalf("newFastSchema(%q) compiles; want it refused", tc.schema)
			}
		})
	}
}

// TestFastSchemaIgnoresAttributes: attributes (@cc(...)) are metadata;
// the fast check compiles a field with one as the field alone.
func TestFastSchemaIgnoresAttributes(t *testing.T) {
	fast, slow := fastVerdict(t, `#Config: {a: *1 | int @cc(replace), b?: string @cc(sensitive)}`, `{"b": "x"}`)
	if fast == nil || slow == nil {
		t.Fatalf("fast = %s, CUE = %s", fast, slow)
	}
	if err := sameJSON(fast, slow); err != nil {
		t.Fatal(err)
	}
}
