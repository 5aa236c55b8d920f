package compiler

import (
	"strings"
	"testing"

	"cuelang.org/go/cue/load"
)

// TestCUEComprehensionsFastPath compiles CUE configurations whose
// comprehensions the gate lets through (cuegate.go): over a hidden list
// or a let, or on a scalar the user wrote. Each compiles to the resources
// CUE's unification gives, with the fast path cross-checked against it
// (crossCheck) and without. One comprehension used to send the whole
// configuration to CUE's unification: the generated 10,000-resource
// project with one took 12 s and 2.6 GB, against 1.1 s without it.
//
// A clause that reads a field the user did not write, which the schema's
// default fills (timeout, "5m"), is incomplete in the configuration
// alone, where the comprehension yields no field and listing the
// collection's fields says nothing of it: judgeCUE validates first and
// leaves it to CUE, which makes volume b.
func TestCUEComprehensionsFastPath(t *testing.T) {
	const fn = `functions: f: {image: images.base, source: paths: ["src"], handler: "a:b"}
`
	for _, tc := range []struct {
		name, src string
		want      []string
		plain     bool
	}{
		{"over a hidden list", fn + `_r: ["eu", "us"]
volumes: {for r in _r {"cache-\(r)": size: "1Gi"}}
sandboxes: s: {image: images.base, env: {for r in _r {"REGION_\(r)": r}}}
`, []string{"volume.cache-eu", "volume.cache-us", "sandbox.s"}, true},
		{"over a let, with an if", "let sizes = {small: \"1Gi\", big: \"8Gi\"}\n" + fn + `volumes: {for k, v in sizes if k != "big" {"v-\(k)": size: v}}
`, []string{"volume.v-small"}, true},
		{"on a scalar the user wrote", fn + `volumes: {if project == "demo" {extra: size: "1Gi"}}
`, []string{"volume.extra"}, true},
		{"on a field the schema fills", fn + `volumes: {a: size: "1Gi", if functions.f.timeout == "5m" {b: size: "1Gi"}}
`, []string{"volume.a", "volume.b"}, true},
		{"in a resource, on a field the schema fills", fn + `sandboxes: s: {image: images.base, env: {if functions.f.timeout == "5m" {FILLED: "yes"}}}
`, []string{"sandbox.s", `"FILLED":"yes"`}, true},
		// A comprehension outside the configuration (a hidden field's, a
		// definition's) can be embedded anywhere, a collection included:
		// judgeCUE validates the whole configuration first. Volume b was
		// silently missing.
		{"in a hidden field embedded in a collection", fn + `_x: {if functions.f.timeout == "5m" {b: size: "1Gi"}}
volumes: {a: size: "1Gi", _x}
`, []string{"volume.a", "volume.b"}, true},
		{"in a definition embedded in a collection", fn + `#X: {if functions.f.timeout == "5m" {b: size: "1Gi"}, ...}
volumes: {a: size: "1Gi", #X}
`, []string{"volume.a", "volume.b"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.cue": gateBase + tc.src, "src/a.py": "x\n"})
			inst := load.Instances([]string{"./main.cue"}, &load.Config{Dir: dir})[0]
			if inst.Err != nil {
				t.Fatal(inst.Err)
			}
			if v := cueGateOf(compiledSchema(), inst); v.plain != tc.plain || !v.comprehensions {
				t.Errorf("gate: %+v; want plain %v, with comprehensions", v, tc.plain)
			}
			for _, cross := range []bool{true, false} {
				res, _, err := compileSeeingUnify(Input{Path: dir}, cross)
				if err != nil {
					t.Fatalf("crossCheck %v: %v", cross, err)
				}
				wantResources(t, res, tc.want, cross)
			}
		})
	}
}

// TestCUEComprehensionInUnknownField: a comprehension in a field the
// schema does not have is the unknown field's positioned error, not a
// panic (the gate looked for the fields it lists with no type).
func TestCUEComprehensionInUnknownField(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.cue": "project: \"p\"\n_r: [\"a\"]\nimages: x: {from: \"python:3.12\", foo: {for r in _r {a: 1}}}\n"})
	got := compileErr(t, dir)
	if !strings.Contains(got, "main.cue:3:") || !strings.Contains(got, `"foo"`) || strings.Contains(got, "internal error") {
		t.Errorf("errors:\n%s", got)
	}
}
