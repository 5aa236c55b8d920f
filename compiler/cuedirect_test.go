package compiler

import (
	"context"
	"os"
	"testing"

	"cc.dev/cc/compiler/workload"
)

// loadDirect loads the CUE project at path the direct way, failing the
// test when it does not take it.
func loadDirect(t *testing.T, path string) *loaded {
	t.Helper()
	p, err := locate(path, DefaultMaxConfigSize)
	if err != nil {
		t.Fatal(err)
	}
	inst, _, ds := loadCUEInstance(p)
	if ds != nil {
		t.Fatal(ds)
	}
	verdict := cueGateVerdict(p, inst)
	if !verdict.plain {
		t.Fatalf("%s: the gate refuses: %s", path, verdict.why)
	}
	tree, err := newDirectTree(inst)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !tree.topLevelDirect() {
		t.Fatalf("%s: top level not direct", path)
	}
	if _, err := tree.collect(compiledSchemaOf(p.schema())); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ld := directLoad(p, tree)
	if ld == nil {
		t.Fatalf("%s: not loaded the direct way", path)
	}
	return ld
}

// TestDirectCUEWorkload: the generated projects take the direct way, and
// (crossCheck) CUE's way gives the same (issue 13: CUE compile).
func TestDirectCUEWorkload(t *testing.T) {
	for _, o := range []workload.Options{{N: 3}, {N: 200}, {N: 1000, ImageShare: 0.5, CopyBytes: 4096}} {
		dir := t.TempDir()
		if err := workload.Write(dir, o); err != nil {
			t.Fatal(err)
		}
		loadDirect(t, dir+"/main.cue")
		p, err := locate(dir+"/main.cue", DefaultMaxConfigSize)
		if err != nil {
			t.Fatal(err)
		}
		if _, ds := loadCUE(context.Background(), p); ds.HasErrors() {
			t.Fatal(ds)
		}
	}
}

// compileBothWays compiles the project at path the direct way (when it takes
// it) and CUE's way, and returns the canonical desired state or the error
// of each.
func compileBothWays(t *testing.T, path string, in Input) (direct, viaCUE string) {
	t.Helper()
	run := func(off bool) string {
		defer func(o bool) { noDirectCUE = o }(noDirectCUE)
		noDirectCUE = off
		in.Path = path
		res, err := Compile(context.Background(), in)
		if err != nil {
			return "error: " + err.Error()
		}
		b, err := res.Desired.MarshalCanonical()
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	return run(false), run(true)
}

// tookDirect reports whether the project at path takes the direct way.
func tookDirect(t *testing.T, path string, in Input) bool {
	t.Helper()
	p, err := locate(path, DefaultMaxConfigSize)
	if err != nil {
		t.Fatal(err)
	}
	p.tags, p.env = in.Tags, in.Env
	inst, _, ds := loadCUEInstance(p)
	if ds != nil {
		return false
	}
	tree := directTreeOf(inst, cueGateVerdict(p, inst))
	return tree != nil && directLoad(p, tree) != nil
}

const directBase = `project: "demo"
images: base: from: "python:3.12-slim"
secrets: key: from_env: "KEY"
functions: f: {image: images.base, source: paths: ["src"], handler: "a:b"}
`

// TestDirectCUESubset: the direct way takes exactly the plain subset of
// CUE it reads as CUE does, and gives the same desired state, or (by
// leaving it to CUE) the same positioned error, as CUE's way, for CUE's
// semantics that would differ: fields declared twice, conflicts,
// embeddings, references, interpolation, arithmetic, imports, packages
// across files and @tag (issue 13: CUE compile).
func TestDirectCUESubset(t *testing.T) {
	for _, tc := range []struct {
		name   string
		files  map[string]string
		tags   []string
		direct bool
	}{
		{"plain", map[string]string{"main.cue": directBase}, nil, true},
		{"fields declared twice merge", map[string]string{"main.cue": directBase + "sandboxes: s: image: images.base\nsandboxes: s: command: [\"sleep\"]\nproject: \"demo\"\n"}, nil, true},
		{"the same value twice", map[string]string{"main.cue": directBase + "functions: f: retries: 2\nfunctions: f: retries: 2\n"}, nil, true},
		{"conflicting values", map[string]string{"main.cue": directBase + "functions: f: retries: 2\nfunctions: f: retries: 3\n"}, nil, false},
		{"a struct meeting a string", map[string]string{"main.cue": directBase + "functions: f: handler: {x: 1}\n"}, nil, false},
		{"int meeting string", map[string]string{"main.cue": directBase + "functions: f: retries: 2\nfunctions: f: retries: \"2\"\n"}, nil, false},
		{"an embedded struct", map[string]string{"main.cue": directBase + "_c: {command: [\"sleep\"]}\nsandboxes: s: {_c, image: images.base}\n"}, nil, false},
		{"references to scalars and hidden fields", map[string]string{"main.cue": directBase + "_t: \"60s\"\nfunctions: g: {image: images.base, source: paths: [\"src\"], handler: functions.f.handler, timeout: _t, env: {P: project, K: secrets.key}}\n"}, nil, true},
		{"a resource through hidden fields (the gate refuses)", map[string]string{"main.cue": directBase + "_i: images.base\n_j: _i\nsandboxes: s: {image: _j}\n"}, nil, false},
		{"a resource by index", map[string]string{"main.cue": directBase + "sandboxes: s: {image: images[\"base\"], env: K: secrets[\"key\"]}\n"}, nil, true},
		{"a reference inside a struct", map[string]string{"main.cue": directBase + "sandboxes: s: {image: images.base, command: [\"x\", _n], _n: \"y\"}\n"}, nil, true},
		{"an image built from an image", map[string]string{"main.cue": directBase + "images: app: from: images.base\nsandboxes: s: image: images.app\n"}, nil, true},
		{"a list element by index", map[string]string{"main.cue": directBase + "_l: [\"a\", \"b\"]\nsandboxes: s: {image: images.base, command: [_l[1]]}\n"}, nil, true},
		{"escapes and multi-line strings", map[string]string{"main.cue": directBase + "sandboxes: s: {image: images.base, command: [\"\\u00e9\\t\", \"\"\"\n\tline\n\t\"\"\", #\"raw\\n\"#]}\n"}, nil, true},
		{"interpolation", map[string]string{"main.cue": directBase + "sandboxes: s: {image: images.base, command: [\"\\(project)-x\"]}\n"}, nil, false},
		{"arithmetic", map[string]string{"main.cue": directBase + "functions: f: retries: 1 + 1\n"}, nil, false},
		{"a hex integer", map[string]string{"main.cue": directBase + "functions: f: retries: 0x2\n"}, nil, false},
		{"bytes", map[string]string{"main.cue": directBase + "sandboxes: s: {image: images.base, command: ['x']}\n"}, nil, false},
		{"a let", map[string]string{"main.cue": "let p = \"demo\"\n" + directBase + "sandboxes: s: {image: images.base, command: [p]}\n"}, nil, false},
		{"a reference cycle", map[string]string{"main.cue": directBase + "_a: _b\n_b: _a\n"}, nil, false},
		{"a structural cycle", map[string]string{"main.cue": directBase + "_a: {b: _a}\n"}, nil, false},
		{"a reference to nothing", map[string]string{"main.cue": directBase + "sandboxes: s: {image: images.nope}\n"}, nil, false},
		{"a hidden field in error", map[string]string{"main.cue": directBase + "_x: 1\n_x: 2\n"}, nil, false},
		{"an unknown field", map[string]string{"main.cue": directBase + "sandbox: s: image: images.base\n"}, nil, false},
		{"a field the schema refuses", map[string]string{"main.cue": directBase + "functions: f: retries: \"many\"\n"}, nil, false},
		{"an import", map[string]string{"main.cue": "import \"strings\"\n" + directBase + "sandboxes: s: {image: images.base, command: [strings.ToUpper(\"x\")]}\n"}, nil, false},
		{"a package across files", map[string]string{
			"a.cue": "package p\n" + directBase,
			"b.cue": "package p\nsandboxes: s: {image: images.base, env: {K: secrets.key, H: functions.f.handler}}\nimages: base: cmd: [\"python\"]\n",
		}, nil, true},
		{"a tag not set", map[string]string{"main.cue": "project: \"demo\" @tag(proj)\n" + directBase}, nil, true},
		{"a tag set", map[string]string{"main.cue": "project: \"demo\" @tag(proj)\n" + directBase}, []string{"proj=demo"}, false},
		{"defaults", map[string]string{"main.cue": directBase + "defaults: function: retries: 2\n"}, nil, false},
		{"use_defaults without defaults", map[string]string{"main.cue": directBase + "functions: f: use_defaults: []\n"}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, tc.files)
			path := dir
			if len(tc.files) == 1 {
				path = dir + "/main.cue"
			}
			in := Input{Tags: tc.tags}
			if got := tookDirect(t, path, in); got != tc.direct {
				t.Errorf("took the direct way = %v, want %v", got, tc.direct)
			}
			direct, viaCUE := compileBothWays(t, path, in)
			if direct != viaCUE {
				t.Errorf("the direct way gives\n%s\nCUE's way gives\n%s", direct, viaCUE)
			}
		})
	}
}

// TestDirectCUEExamples: the examples give the same desired state both
// ways, and the quickstart takes the direct way (issue 13: CUE compile).
func TestDirectCUEExamples(t *testing.T) {
	ents, err := os.ReadDir("../examples")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		path := "../examples/" + e.Name() + "/main.cue"
		if _, err := os.Stat(path); err != nil {
			continue
		}
		in := Input{}
		if e.Name() == "environments" {
			in.Env = "prod"
		}
		took := tookDirect(t, path, in)
		t.Logf("%s: direct %v", e.Name(), took)
		if e.Name() == "quickstart" && !took {
			t.Error("the quickstart does not take the direct way")
		}
		if direct, viaCUE := compileBothWays(t, path, in); direct != viaCUE {
			t.Errorf("%s: the direct way gives\n%s\nCUE's way gives\n%s", e.Name(), direct, viaCUE)
		}
	}
}
