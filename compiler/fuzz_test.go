package compiler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// fuzzDir is one project directory per fuzzing process, rewritten for each
// input: a temporary directory per input would cost more than the compile.
var fuzzDir = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "cc-fuzz-")
	if err != nil {
		return "", err
	}
	// Files the seeds refer to, so inputs get past the file checks.
	for name, content := range map[string]string{
		"src/support.py": "def answer(x): return x\n", "data/goldens.csv": "input,expected\n",
		"requirements.txt": "x\n", "dev.env": "A=1\nDATABASE_URL=x\n", "config/agent.yaml": "a: 1\n",
		"api/server.py": "x\n", "worker/jobs.py": "x\n", "shared/util.py": "x\n", "VERSION": "1\n",
	} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	return dir, nil
})

// seeds adds the examples and the bad corpus of one language.
func seeds(f *testing.F, ext string) {
	for _, ex := range []string{"quickstart", "multi-service", "shared-data"} {
		b, err := os.ReadFile(filepath.Join("../examples", ex, "main"+ext))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	files, _ := filepath.Glob("../testdata/bad/*.txtar")
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, af := range ar.Files {
			if filepath.Ext(af.Name) == ext {
				f.Add(af.Data)
			}
		}
	}
}

// fuzzCompile compiles src as the project's one configuration file: it may
// fail, but only with positioned configuration diagnostics, never with a
// panic or an internal error.
func fuzzCompile(t *testing.T, name string, src []byte) {
	dir, err := fuzzDir()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Compile(context.Background(), Input{Path: path})
	if err == nil {
		return
	}
	var cerr *Error
	if !errors.As(err, &cerr) {
		t.Fatalf("Compile() error = %v, want configuration diagnostics", err)
	}
	for _, d := range cerr.Diagnostics {
		if d.Omitted > 0 {
			continue // "and N more errors": a count, not a problem
		}
		if d.Summary == "" || strings.Contains(d.Summary, "internal error") {
			t.Fatalf("bad diagnostic: %q", d.Error())
		}
		if d.Subject == nil || d.Subject.Start.Line == 0 {
			t.Fatalf("diagnostic without a position: %q", d.Error())
		}
	}
}

func FuzzCompileCUE(f *testing.F) {
	seeds(f, ".cue")
	// Issue 8 item 1: markers on collections and resources.
	f.Add([]byte("project: \"p\"\nsandboxes!: dev: image: from: \"python:3.12\"\nvolumes: d?: size: \"1Gi\"\nfoo!: 1\n"))
	// Issue 10: the lifecycle declarations.
	f.Add([]byte("project: \"p\"\nvolumes: b: {size: \"1Gi\", lifecycle: {prevent_destroy: true, ignore_changes: [\"size\"]}}\nmoved: [{from: \"volume.a\", to: \"volume.b\"}]\nremoved: [\"volume.c\"]\nimports: [{to: \"volume.b\", id: \"x\"}]\ndata: volumes: d: name: \"d\"\n"))
	// The gate's comprehensions and interpolated labels (4bfea54).
	f.Add([]byte("project: \"p\"\nimages: b: from: \"python:3.12\"\nfunctions: f: {image: images.b, source: paths: [\"src\"], handler: \"a:b\"}\n_r: [\"eu\", \"us\"]\nlet z = {s: \"1Gi\"}\nvolumes: {for r in _r {\"c-\\(r)\": size: \"1Gi\"}, for k, v in z if k != \"x\" {\"v-\\(k)\": size: v}, if functions.f.timeout == \"5m\" {b: size: \"1Gi\"}}\nsandboxes: s: {image: images.b, env: {for r in _r {\"R_\\(r)\": r}}}\n"))
	f.Add([]byte("project: \"p\"\n_r: [\"a\"]\nimages: x: {from: \"python:3.12\", foo: {for r in _r {a: 1}}}\n"))
	// Definitions of the user's own on the fast path, closed and open,
	// and a comprehension embedded from a hidden field (c9caa1d).
	f.Add([]byte("project: \"p\"\nimages: b: from: \"python:3.12\"\n#Box: {command: [\"sleep\"], resources: requests: {cpu: \"1\"}, ...}\n#Sc: {max_replicas: 3}\n_#Env: {LOG: \"info\"}\nsandboxes: a: #Box & {image: images.b, env: _#Env}\nfunctions: f: {image: images.b, source: paths: [\"src\"], handler: \"a:b\", scaling: #Sc}\n#V: {size: \"1Gi\"}\nvolumes: v: #V\n"))
	f.Add([]byte("project: \"p\"\nimages: b: from: \"python:3.12\"\nfunctions: f: {image: images.b, source: paths: [\"src\"], handler: \"a:b\"}\n_x: {if functions.f.timeout == \"5m\" {b: size: \"1Gi\"}}\n#X: {if project == \"p\" {c: size: \"1Gi\"}, ...}\nvolumes: {a: size: \"1Gi\", _x, #X}\n"))
	// Disjunctions of scalars on the fast path: written, in a hidden
	// field indexed and placed, in a definition, and where the schema
	// has a default (CUE's).
	f.Add([]byte("project: \"p\"\nimages: b: from: \"python:3.12\"\n_env: *\"\" | \"dev\" @tag(env)\n_v: {\"\": {l: \"1Gi\"}, dev: {l: \"2Gi\"}}[_env]\nvolumes: c: size: _v.l\n_e: *\"a\" | \"b\"\n#B: {env: {E: _e, F: *\"c\" | \"d\"}, ...}\nsandboxes: s: #B & {image: images.b, env: G: \"x-\\(_env)\"}\n_t: *\"1m\" | \"2m\"\nfunctions: f: {image: images.b, source: paths: [\"src\"], handler: \"a:b\", timeout: _t}\n"))
	// Outputs on the fast path, each unified with #Output first.
	f.Add([]byte("project: \"p\"\nsecrets: key: from_env: \"KEY\"\noutputs: {\n\turl: {value: \"https://\\(project).x\", description: \"d\"}\n\tk: {value: secrets.key.from_env, sensitive: true}\n\tn: {value: 1, descr: 2}\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) { fuzzCompile(t, "main.cue", src) })
}

func FuzzCompileHCL(f *testing.F) {
	seeds(f, ".hcl")
	// Issue 8 item 14: for expressions, templates and functions under
	// limits.
	f.Add([]byte("project = \"p\"\nlocals {\n  a = [for i in range(10): [for j in range(i): \"${i}-${j}\"]]\n  b = join(\",\", flatten(local.a))\n  c = {for k, v in local.a : k => length(v) if k > 2}\n  d = replace(format(\"%5d\", 1), \" \", \"x\")\n}\nsecret \"s\" {\n  from_env = upper(local.b)\n}\n"))
	// Issue 15: Terraform's functions.
	f.Add([]byte("project = \"p\"\nlocals {\n  a = replace(lower(\"A B\"), \"/[^a-z]+/\", \"-\")\n  b = cidrsubnets(\"10.0.0.0/16\", 4, 8)\n  c = lookup({x = 1}, \"x\")\n  d = coalesce(null, one([sum([1, 2])]))\n  e = yamldecode(yamlencode({k = setproduct([1], [2])}))\n  f = try(tonumber(\"x\"), can(regex(\"a\", \"b\")))\n}\n"))
	// Issue 10: the lifecycle declarations.
	f.Add([]byte("project = \"p\"\nvolume \"b\" {\n  size = \"1Gi\"\n  lifecycle {\n    prevent_destroy = true\n    ignore_changes  = [size]\n  }\n}\nmoved {\n  from = volume.a\n  to   = volume.b\n}\nremoved {\n  from = volume.c\n}\nimport {\n  to = volume.b\n  id = \"x\"\n}\ndata \"volume\" \"d\" {\n  name = \"d\"\n}\n"))
	f.Fuzz(func(t *testing.T, src []byte) { fuzzCompile(t, "main.hcl", src) })
}
