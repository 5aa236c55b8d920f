package compiler

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestCUEDefinitionsFastPath compiles CUE configurations that use
// definitions of their own, which the gate lets through (cuegate.go). A
// definition's struct is closed, and CUE refuses any field the schema
// adds to one: where the fast check added a field to a closed struct,
// fastCUE asks CUE (cueclosed.go) and leaves the configuration to CUE's
// unification, which words the error; everywhere else the fast path's
// result is CUE's. Each case compiles with the fast path cross-checked
// against CUE (crossCheck) and without; unified says whether, without
// it, the fast way gave up.
//
// One definition used to send the whole configuration to CUE: the
// generated 10,000-resource project with its sandboxes written as
// #Box & {...} took 10-20 s and 2.6 GB, against 2.4 s and 300 MB now.
func TestCUEDefinitionsFastPath(t *testing.T) {
	const fn = `functions: f: {image: images.base, source: paths: ["src"], handler: "a:b"}
`
	for _, tc := range []struct {
		name, src string
		want      []string // addresses, or text in a spec
		err       string   // the error, when it fails
		unified   bool
	}{
		{"an open definition", fn + `#Box: {command: ["sleep", "infinity"], resources: requests: {cpu: "1", memory: "1Gi"}, ...}
sandboxes: a: #Box & {image: images.base}
sandboxes: b: {#Box, image: images.base, lifetime: "2h"}
`, []string{"sandbox.a", "sandbox.b", `"cpu":"1"`, `"lifetime":"2h"`}, "", false},
		{"a closed definition the schema adds nothing to", fn + `#Size: {size: "1Gi"}
volumes: v: #Size
`, []string{"volume.v"}, "", false},
		{"a closed definition of a step list", `#Steps: [{apt: packages: ["git"]}, {workdir: path: "/app"}]
images: app: {from: "python:3.12-slim", steps: #Steps}
`, []string{"image.app", `"packages":["git"]`}, "", false},
		{"a hidden definition, and one through another", fn + `_#Env: {LOG: "info"}
#Base: {env: _#Env, ...}
sandboxes: s: #Base & {image: images.base}
`, []string{"sandbox.s", `"LOG":"info"`}, "", false},
		{"a definition with shared defaults", fn + `#Box: {command: ["sleep", "infinity"], ...}
defaults: sandbox: {tags: ["team-a"]}
sandboxes: s: #Box & {image: images.base}
`, []string{"sandbox.s", `"team-a"`}, "", true},
		{"a closed definition the schema adds a default to", `#Fn: {image: string, source: paths: ["src"], handler: "a:b"}
functions: f: #Fn & {image: "python:3.12-slim"}
`, nil, "timeout", true},
		{"a closed nested struct the schema adds to", `#Sc: {max_replicas: 3}
functions: f: {image: images.base, source: paths: ["src"], handler: "a:b", scaling: #Sc}
`, nil, "min_replicas", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.cue": gateBase + tc.src, "src/a.py": "x\n"})
			if plain, why := gateOf(t, dir, "./main.cue"); !plain {
				t.Fatalf("the gate refuses: %s", why)
			}
			var results []string
			for _, cross := range []bool{true, false} {
				func() {
					res, unified, err := compileSeeingUnify(Input{Path: dir}, cross)
					if !cross && (unified != nil) != tc.unified {
						t.Errorf("unified with the schema: %v (%v), want %v", unified != nil, unified, tc.unified)
					}
					if tc.err != "" {
						var ce *Error
						if !errors.As(err, &ce) {
							t.Fatalf("crossCheck %v: Compile() = %v, want a configuration error", cross, err)
						}
						msg := ce.Diagnostics.Error()
						if !strings.Contains(msg, tc.err) || strings.Contains(msg, "internal error") {
							t.Errorf("crossCheck %v: error %s, want one naming %q", cross, msg, tc.err)
						}
						results = append(results, msg)
						return
					}
					if err != nil {
						t.Fatalf("crossCheck %v: %v", cross, err)
					}
					results = append(results, wantResources(t, res, tc.want, cross))
				}()
			}
			if results[0] != results[1] {
				t.Errorf("with and without crossCheck differ:\n%s\n%s", results[0], results[1])
			}
		})
	}
}

// TestCUEOutputsFastPath: a CUE configuration with outputs keeps the fast
// path (one output sent the generated 10,000 resources to CUE's
// unification: 21.7 s and 2.6 GB, against 2.7 s now). Each output is
// unified with #Output first (cueOutputsOK); one that fails it goes to
// CUE, which words the error at the output.
func TestCUEOutputsFastPath(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		err       string // the error's position, when it fails
	}{
		{"outputs", `outputs: {
	url: {value: "https://\(project).example.com", description: "where"}
	obj: value: {a: 1.5, b: [true, null]}
	k: {value: secrets.key.from_env, sensitive: true}
}
`, ""},
		{"an unknown field", "outputs: a: {value: 1, descr: \"d\"}\n", "main.cue:4:"},
		{"a bad name", "outputs: \"1a\": value: 1\n", "main.cue:4"},
		{"no value", "outputs: a: description: \"d\"\n", "main.cue:4"},
		{"a value not concrete", "outputs: a: value: string\n", "main.cue:4"},
		{"a description not a string", "outputs: a: {value: 1, description: 2}\n", "main.cue:4:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.cue": gateBase + tc.src})
			res, unified, err := compileSeeingUnify(Input{Path: dir}, false)
			if (unified != nil) != (tc.err != "") {
				t.Errorf("unified with the schema: %v (%v), want %v", unified != nil, unified, tc.err != "")
			}
			if tc.err == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(res.Desired.Outputs) != 3 {
					t.Errorf("outputs %+v, want 3", res.Desired.Outputs)
				}
				return
			}
			var ce *Error
			if !errors.As(err, &ce) || !strings.Contains(ce.Diagnostics.Error(), tc.err) || strings.Contains(ce.Diagnostics.Error(), "internal error") {
				t.Errorf("Compile() = %v, want an error at %s", err, tc.err)
			}
		})
	}
}

// TestCUEDisjunctionsFastPath compiles CUE configurations with
// disjunctions of scalars the gate lets through (cuegate.go): written
// where the schema's type has no default, or in a top-level hidden field
// or definition used as an operand (an interpolation, a computed index)
// or placed where the schema's type has none. The fast path's result is
// CUE's (crossCheck), and without crossCheck no unification is needed.
// The environments example's idiom (_env: *"" | "dev" | "prod"
// @tag(env), a struct of values indexed by it) sent the whole
// configuration to CUE's unification.
func TestCUEDisjunctionsFastPath(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		tags      []string
		want      []string // text in the specs
	}{
		{"written in the configuration", `sandboxes: s: {image: images.base, env: E: *"a" | "b"}
`, nil, []string{`"E":"a"`}},
		{"an environment's values", `_env: *"" | "dev" | "prod" @tag(env)
_values: {"": {size: "1Gi", level: "debug"}, dev: {size: "2Gi", level: "debug"}, prod: {size: "20Gi", level: "warn"}}[_env]
volumes: cache: size: _values.size
sandboxes: s: {image: images.base, env: {LEVEL: _values.level, ENV: _env, NAME: "x-\(_env)"}}
`, []string{"env=prod"}, []string{`"size":"20Gi"`, `"ENV":"prod"`, `"NAME":"x-prod"`, `"LEVEL":"warn"`}},
		{"an environment's values, no tag", `_env: *"" | "dev" | "prod" @tag(env)
_values: {"": {size: "1Gi"}, dev: {size: "2Gi"}, prod: {size: "20Gi"}}[_env]
volumes: cache: size: _values.size
sandboxes: s: {image: images.base, env: ENV: _env}
`, nil, []string{`"size":"1Gi"`, `"ENV":""`}},
		{"a definition's default, and one overridden", `#B: {env: {E: *"a" | "b", F: *"c" | "d"}, command: [*"sleep" | "run", "infinity"], ...}
sandboxes: s: #B & {image: images.base, env: F: "d"}
`, nil, []string{`"E":"a"`, `"F":"d"`, `"command":["sleep","infinity"]`}},
		{"in a label", `_e: *"a" | "b"
volumes: {"v-\(_e)": size: "1Gi"}
`, nil, []string{"volume.v-a"}},
		{"a definition carrying a hidden disjunction", `_e: *"a" | "b"
_f: _e
#B: {env: {E: _e, F: _f}, ...}
sandboxes: s: #B & {image: images.base}
`, nil, []string{`"E":"a"`, `"F":"a"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.cue": gateBase + tc.src, "src/a.py": "x\n"})
			if plain, why := gateOf(t, dir, "./main.cue"); !plain {
				t.Fatalf("the gate refuses: %s", why)
			}
			for _, cross := range []bool{true, false} {
				func() {
					res, unified, err := compileSeeingUnify(Input{Path: dir, Tags: tc.tags}, cross)
					if err != nil {
						t.Fatalf("crossCheck %v: %v", cross, err)
					}
					if !cross && unified != nil {
						t.Errorf("unified with the schema: %v", unified)
					}
					wantResources(t, res, tc.want, cross)
				}()
			}
		})
	}
}

// compileSeeingUnify compiles in with crossCheck set to cross, and says
// why judgeCUE unified with the schema (nil when it did not).
func compileSeeingUnify(in Input, cross bool) (*Result, error, error) {
	defer func(c bool, f func(error)) { crossCheck, onCUEUnify = c, f }(crossCheck, onCUEUnify)
	crossCheck = cross
	var unified error
	onCUEUnify = func(why error) { unified = why }
	res, err := Compile(context.Background(), in)
	return res, unified, err
}

// wantResources checks that each of want is the address of one of res's
// resources or text in one's spec, and returns the specs.
func wantResources(t *testing.T, res *Result, want []string, cross bool) string {
	t.Helper()
	var got []string
	specs := ""
	for _, r := range res.Desired.Resources {
		got = append(got, r.Address)
		specs += string(r.Spec)
	}
	for _, w := range want {
		if !slices.Contains(got, w) && !strings.Contains(specs, w) {
			t.Errorf("crossCheck %v: no %s in %v\n%s", cross, w, got, specs)
		}
	}
	return specs
}
