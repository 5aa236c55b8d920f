package compiler

import (
	"os"
	"path/filepath"
	"testing"

	"cuelang.org/go/cue/load"

	"cc.dev/cc/compiler/workload"
)

// gateOf loads the CUE files of dir (named "./x.cue") and runs the gate.
func gateOf(t *testing.T, dir string, files ...string) (bool, string) {
	t.Helper()
	inst := load.Instances(files, &load.Config{Dir: dir})[0]
	if inst.Err != nil {
		t.Fatal(inst.Err)
	}
	return cueFastPathOK(compiledSchema(), inst)
}

const gateBase = `project: "demo"
images: base: from: "python:3.12-slim"
secrets: key: from_env: "KEY"
`

// TestIssue16CUEGate: the fast path is taken only for CUE whose meaning
// does not depend on unification with the schema (issue 16 item 3); every
// construct the gate's comment lists sends the configuration to CUE.
func TestIssue16CUEGate(t *testing.T) {
	fn := `functions: f: {image: images.base, source: paths: ["src"], handler: "a:b"`
	for _, tc := range []struct {
		name, src string
		plain     bool
	}{
		{"plain", fn + `, env: K: secrets.key, retries: 2}`, true},
		{"references to scalars", fn + `, env: {P: project, H: functions.f.handler}}`, true},
		{"hidden field and let", "let x = \"a:b\"\n_t: \"60s\"\n" + fn + `, timeout: _t, env: X: x}`, true},
		{"interpolation and arithmetic", fn + `, retries: 1 + 1, env: X: "\(project)-x"}`, true},
		{"a default (probe a)", fn + `, retries: *3 | int}`, false},
		{"a disjunction", fn + `, retries: 3 | 4}`, false},
		// A definition passes the gate; what the schema adds to its
		// closed structs is asked of CUE after the fast check
		// (cueclosed.go, TestCUEDefinitionsFastPath).
		{"a definition (probe b)", "#F: {handler: \"a:b\"}\n" + fn + "}\nfunctions: g: #F", true},
		{"a definition with a default", "#F: {retries: *3 | int}\n" + fn + "}\nfunctions: g: #F", false},
		{"a definition inside a struct", fn + ", #R: 3, retries: #R}", false},
		{"an ellipsis in a definition", "#F: {handler: \"a:b\", ...}\n" + fn + "}\nfunctions: g: #F & {image: images.base}", true},
		{"a definition refers to a struct", "#F: {annotations: functions.f.env}\n" + fn + "}\nsandboxes: s: #F & {image: images.base}", false},
		{"a definition at the top level", "#T: {volumes: v: size: \"1Gi\"}\n" + fn + "}\n#T", false},
		// Disjunctions of scalars (issue 13): where the schema's type has
		// no default, in the configuration or carried there.
		{"a disjunction where the schema has no default", fn + `, env: E: *"a" | "b"}`, true},
		{"a hidden disjunction in an interpolation", "_e: *\"\" | \"dev\" @tag(env)\n" + fn + `, env: E: "x-\(_e)"}`, true},
		{"a hidden disjunction placed where the schema has no default", "_e: *\"a\" | \"b\"\n" + fn + `, env: E: _e}`, true},
		{"a hidden disjunction placed where the schema has a default", "_t: *\"1m\" | \"2m\"\n" + fn + `, timeout: _t}`, false},
		{"a hidden disjunction copied by a hidden field", "_e: *\"a\" | \"b\"\n_f: _e\n" + fn + `, env: E: _f}`, true},
		{"a hidden disjunction copied to a default", "_e: *\"1m\" | \"2m\"\n_f: _e\n" + fn + `, timeout: _f}`, false},
		{"a hidden disjunction selected from", "_v: {a: *\"x\" | \"y\"}\n" + fn + `, env: E: _v.a}`, false},
		{"a hidden disjunction copied by a let", "_e: *\"a\" | \"b\"\nlet l = _e\n" + fn + `, env: E: l}`, false},
		{"a hidden disjunction in a nested hidden field", "_x: {_y: *\"1m\" | \"2m\", timeout: _y}\n" + fn + "}\nfunctions: g: _x & {image: images.base, source: paths: [\"src\"], handler: \"a:b\"}", false},
		{"a hidden disjunction in a label", "_e: *\"a\" | \"b\"\n" + fn + "}\nvolumes: {\"v-\\(_e)\": size: \"1Gi\"}", true},
		{"a computed index into a hidden struct", "_e: *\"a\" | \"b\"\n_v: {a: {s: \"1Gi\"}, b: {s: \"2Gi\"}}[_e]\n" + fn + "}\nvolumes: v: size: _v.s", true},
		{"a computed index into the configuration", "_k: \"a\"\nvolumes: a: size: \"1Gi\"\n" + fn + "}\nvolumes: b: size: volumes[_k].size", false},
		{"a definition's disjunction where the schema has none", "#B: {env: E: *\"a\" | \"b\", ...}\n" + fn + "}\nsandboxes: s: #B & {image: images.base}", true},
		{"a definition's disjunction where the schema has a default", "#F: {timeout: *\"1m\" | \"2m\", ...}\n" + fn + "}\nfunctions: g: #F & {image: images.base, source: paths: [\"src\"], handler: \"a:b\"}", false},
		{"a definition carrying a hidden disjunction", "_e: *\"a\" | \"b\"\n#B: {env: E: _e, ...}\n" + fn + "}\nsandboxes: s: #B & {image: images.base}", true},
		{"a disjunction of structs", fn + `, env: E: *{a: 1} | {b: 2}}`, false},
		{"a hidden field's own disjunction", "_e: *\"a\" | \"b\"\n_x: {p: _e}\n" + fn + `, env: E: _x.p}`, false},
		{"a hidden definition", "_#F: {handler: \"a:b\"}\n" + fn + "}\nfunctions: g: _#F", true},
		{"close", fn + "}\nfunctions: g: close({handler: \"a:b\"})", false},
		{"an optional field", fn + `, retries?: 3}`, false},
		{"a required field", fn + `, retries!: 3}`, false},
		{"a pattern", fn + "}\nfunctions: [string]: retries: 3", false},
		{"a dynamic label", fn + `, ("re" + "tries"): 3}`, false},
		{"an alias", fn + `, R=retries: 3}`, false},
		{"an ellipsis", fn + `, ...}`, false},
		{"a list ellipsis", fn + `, env_from: [...]}`, false},
		{"a comprehension", fn + `, env: {for k, v in functions.f if k == "timeout" {T: v}}}`, false},
		{"a comprehension over a hidden list", fn + "}\n_r: [\"eu\", \"us\"]\nvolumes: {for r in _r {\"cache-\\(r)\": size: \"1Gi\"}}", true},
		{"a comprehension over a let", "let rs = [\"a\"]\n" + fn + "}\nvolumes: {for i, r in rs if i < 3 {\"v-\\(r)\": size: \"1Gi\"}}", true},
		{"a comprehension on a scalar", fn + "}\nvolumes: {if project == \"demo\" {extra: size: \"1Gi\"}}", true},
		{"a dynamic label in a map", fn + ", env: {for k in [\"A\"] {\"\\(k)\": \"x\"}}}", true},
		{"a comprehension over resources", fn + "}\nvolumes: {for k, v in images {\"v-\\(k)\": size: \"1Gi\"}}", false},
		{"a hidden source of a resource", fn + "}\n_x: [images.base]\nvolumes: {for i in _x {v: size: \"1Gi\"}}", false},
		{"a dynamic label in a resource", fn + ", {for k in [\"retries\"] {\"\\(k)\": 2}}}", false},
		{"a dynamic label at the top", fn + "}\n{for k in [\"volumes\"] {\"\\(k)\": v: size: \"1Gi\"}}", false},
		{"a comprehension in a list", fn + ", env_from: [for x in [\"a\"] {x}]}", false},
		{"a call", fn + `, env: N: "\(len(functions.f))"}`, false},
		{"bottom", fn + `, env: N: "x"}` + "\nok: functions.f.timeout != _|_", false},
		{"a reference to a struct", fn + "}\nsandboxes: s: {image: images.base, annotations: functions.f.env}", false},
		{"a resource at another kind", fn + "}\nsandboxes: s: {image: images.base, env: K: images.base}", false},
		{"a resource through a let", "let b = images.base\n" + fn + "}\nsandboxes: s: image: b", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "main.cue"), []byte(gateBase+tc.src+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			plain, why := gateOf(t, dir, "./main.cue")
			if plain != tc.plain {
				t.Fatalf("cueFastPathOK() = %v (%s), want %v", plain, why, tc.plain)
			}
		})
	}
}

// TestIssue16CUEGateAcrossFiles: a reference into another file of the
// package, and a definition in an imported package, are seen.
func TestIssue16CUEGateAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("cue.mod/module.cue", "module: \"example.com/p\"\nlanguage: version: \"v0.9.0\"\n")
	write("a.cue", "package p\n"+gateBase)
	write("b.cue", "package p\nsandboxes: s: {image: images.base, annotations: functions.f.env}\nfunctions: f: {image: images.base, source: paths: [\"src\"], handler: \"a:b\"}\n")
	if plain, _ := gateOf(t, dir, "./a.cue", "./b.cue"); plain {
		t.Error("a struct reference in another file passes the gate")
	}
	write("b.cue", "package p\nimport \"example.com/p/lib\"\nfunctions: f: {image: images.base, source: paths: [\"src\"], handler: lib.H}\n")
	write("lib/lib.cue", "package lib\nH: \"a:b\"\n")
	if plain, why := gateOf(t, dir, "./a.cue", "./b.cue"); !plain {
		t.Errorf("a plain imported package is refused: %s", why)
	}
	write("lib/lib.cue", "package lib\nH: *\"a:b\" | string\n")
	if plain, _ := gateOf(t, dir, "./a.cue", "./b.cue"); plain {
		t.Error("a default in an imported package passes the gate")
	}
}

// TestCUEGateKeepsFastPath: the quickstart, the benchmark's workload and
// the multi-service example (with a definition of its own, #Python) take
// the fast path.
func TestCUEGateKeepsFastPath(t *testing.T) {
	dir := t.TempDir()
	if err := workload.Write(dir, workload.Options{N: 200}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dir, file string }{{"../examples/quickstart", "./main.cue"}, {dir, "./main.cue"}, {"../examples/multi-service", "./main.cue"}, {"../examples/environments", "./main.cue"}} {
		if plain, why := gateOf(t, tc.dir, tc.file); !plain {
			t.Errorf("%s: the gate refuses: %s", tc.dir, why)
		}
	}
}
