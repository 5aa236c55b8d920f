package compiler

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
)

const defaultsImage = `"python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"`

// defaultsCase is one project written in both languages.
type defaultsCase struct {
	name     string
	hcl, cue string
	// want are substrings of the desired state's JSON; wantErr, when set,
	// are the errors (file:line:col: message) both languages give instead.
	want    []string
	wantErr []string
}

// TestDefaultsMergeRules is acceptance 4 of issue 11 (shared defaults):
// seed B's merge rules, each in both languages, whose desired states are
// byte for byte the same.
func TestDefaultsMergeRules(t *testing.T) {
	for _, tc := range []defaultsCase{
		{
			name: "default tags and resource tags are merged, defaults first, without duplicates",
			hcl: `project = "p"
defaults {
  sandbox {
    image = { from = ` + defaultsImage + ` }
    tags  = ["team-a", "shared"]
  }
}
sandbox "dev" {
  tags = ["mine", "team-a"]
}
`,
			cue: `project: "p"
defaults: sandbox: {
	image: from: ` + defaultsImage + `
	tags: ["team-a", "shared"]
}
sandboxes: dev: tags: ["mine", "team-a"]
`,
			want: []string{`"tags":["team-a","shared","mine"]`},
		},
		{
			name: "a default env key is overridden, the others kept; annotations alike",
			hcl: `project = "p"
defaults {
  sandbox {
    image       = { from = ` + defaultsImage + ` }
    env         = { LOG = "info", REGION = "eu" }
    annotations = { team = "a", tier = "gold" }
  }
}
sandbox "dev" {
  env         = { LOG = "debug" }
  annotations = { tier = "silver" }
}
`,
			cue: `project: "p"
defaults: sandbox: {
	image: from: ` + defaultsImage + `
	env: {LOG: "info", REGION: "eu"}
	annotations: {team: "a", tier: "gold"}
}
sandboxes: dev: {
	env: LOG: "debug"
	annotations: tier: "silver"
}
`,
			want: []string{`"env":{"LOG":"debug","REGION":"eu"}`, `"annotations":{"team":"a","tier":"silver"}`},
		},
		{
			name: "a default network is replaced as a whole",
			hcl: `project = "p"
defaults {
  sandbox {
    image = { from = ` + defaultsImage + ` }
    network {
      egress_mode  = "allowlist"
      egress_allow = ["pypi.org"]
    }
  }
}
sandbox "dev" {
  network {
    ingress_mode = "public"
  }
}
`,
			cue: `project: "p"
defaults: sandbox: {
	image: from: ` + defaultsImage + `
	network: {egress_mode: "allowlist", egress_allow: ["pypi.org"]}
}
sandboxes: dev: network: ingress_mode: "public"
`,
			want: []string{`"network":{"ingress_mode":"public"}`},
		},
		{
			name: "a named set applies after the project-wide defaults, the resource last",
			hcl: `project = "p"
defaults {
  sandbox {
    image    = { from = ` + defaultsImage + ` }
    tags     = ["team-a"]
    lifetime = "1h"
    env      = { LOG = "info" }
  }
}
defaults "gpu" {
  sandbox {
    tags     = ["gpu"]
    lifetime = "4h"
    env      = { LOG = "warn", CUDA = "1" }
    resources {
      gpu {
        count = 1
      }
    }
  }
}
defaults "long" {
  sandbox {
    lifetime = "8h"
  }
}
sandbox "train" {
  use_defaults = ["gpu", "long"]
  env          = { CUDA = "0" }
}
sandbox "dev" {
}
`,
			cue: `project: "p"
defaults: sandbox: {
	image: from: ` + defaultsImage + `
	tags: ["team-a"]
	lifetime: "1h"
	env: LOG: "info"
}
default_sets: gpu: sandbox: {
	tags: ["gpu"]
	lifetime: "4h"
	env: {LOG: "warn", CUDA: "1"}
	resources: gpu: count: 1
}
default_sets: long: sandbox: lifetime: "8h"
sandboxes: train: {
	use_defaults: ["gpu", "long"]
	env: CUDA: "0"
}
sandboxes: dev: {}
`,
			want: []string{
				`"name":"train","spec":{"env":{"CUDA":"0","LOG":"warn"},"image":"sha256:`,
				`"lifetime":"8h","resources":{"gpu":{"count":1}},"tags":["team-a","gpu"]}`,
				`"name":"dev","spec":{"env":{"LOG":"info"},"image":"sha256:`,
			},
		},
		{
			name: "functions take defaults too",
			hcl: `project = "p"
defaults {
  function {
    image   = { from = ` + defaultsImage + ` }
    timeout = "30s"
    env     = { LOG = "info" }
  }
}
function "answer" {
  source {
    paths = ["src"]
  }
  handler = "app.main:answer"
}
`,
			cue: `project: "p"
defaults: function: {
	image: from: ` + defaultsImage + `
	timeout: "30s"
	env: LOG: "info"
}
functions: answer: {
	source: paths: ["src"]
	handler: "app.main:answer"
}
`,
			want: []string{`"env":{"LOG":"info"}`, `"timeout":"30s"`},
		},
		{
			name: "a reference to a function from defaults is that function",
			hcl: `project = "p"
defaults "quick" {
  function {
    image   = { from = ` + defaultsImage + ` }
    timeout = "30s"
  }
}
function "answer" {
  use_defaults = ["quick"]
  source {
    paths = ["src"]
  }
  handler = "app.main:answer"
}
dataset "goldens" {
  files = ["data/goldens.csv"]
}
evaluation "ev" {
  dataset = dataset.goldens
  task    = function.answer
  scorer "exact_match" {}
}
`,
			cue: `project: "p"
default_sets: quick: function: {
	image: from: ` + defaultsImage + `
	timeout: "30s"
}
functions: answer: {
	use_defaults: ["quick"]
	source: paths: ["src"]
	handler: "app.main:answer"
}
datasets: goldens: files: ["data/goldens.csv"]
evaluations: ev: {
	dataset: datasets.goldens
	task:    functions.answer
	scorers: [{exact_match: {}}]
}
`,
			want: []string{`"timeout":"30s"`, `"depends_on":["dataset.goldens","function.answer"]`},
		},
		{
			name: "an unknown set name is a positioned error with did-you-mean",
			hcl: `project = "p"
defaults "gpu" {
  sandbox {
    image = { from = ` + defaultsImage + ` }
  }
}
sandbox "dev" {
  use_defaults = ["gpx"]
}
`,
			cue: `project: "p"
default_sets: gpu: sandbox: image: from: ` + defaultsImage + `
sandboxes: dev: use_defaults: ["gpx"]
`,
			wantErr: []string{`main.hcl:8:19: no default set "gpx"; did you mean "gpu"?`, `main.cue:3:32: no default set "gpx"; did you mean "gpu"?`},
		},
		{
			name: "an unknown field in a default is a positioned error with did-you-mean",
			hcl: `project = "p"
defaults {
  sandbox {
    imag = { from = ` + defaultsImage + ` }
  }
}
`,
			cue: `project: "p"
defaults: sandbox: imag: from: ` + defaultsImage + `
`,
			wantErr: []string{`main.hcl:4:5: unknown field "imag" in sandbox defaults; did you mean "image"?`, `main.cue:2:20: unknown field "imag" in sandbox defaults; did you mean "image"?`},
		},
		{
			name: "a bad value from a default points into the default",
			hcl: `project = "p"
defaults {
  sandbox {
    image    = { from = ` + defaultsImage + ` }
    lifetime = "soon"
  }
}
sandbox "dev" {
}
`,
			cue: `project: "p"
defaults: sandbox: {
	image: from: ` + defaultsImage + `
	lifetime: "soon"
}
sandboxes: dev: {}
`,
			wantErr: []string{`main.hcl:5:16: lifetime: invalid value "soon"`, `main.cue:4:2: lifetime: invalid value "soon"`},
		},
		{
			name: "a set's name has a resource name's form",
			hcl: `project = "p"
defaults "GPU" {
}
`,
			cue: `project: "p"
default_sets: GPU: {}
`,
			wantErr: []string{`main.hcl:2:10: default set name "GPU"`, `main.cue:2:15: default set name "GPU"`},
		},
		{
			name: "a misspelt use_defaults is told its name",
			hcl: `project = "p"
sandbox "dev" {
  image       = { from = ` + defaultsImage + ` }
  use_default = ["gpu"]
}
`,
			cue: `project: "p"
sandboxes: dev: {
	image: from: ` + defaultsImage + `
	use_default: ["gpu"]
}
`,
			wantErr: []string{`main.hcl:4:3: unknown attribute "use_default"; did you mean "use_defaults"?`, `main.cue:4:2: unknown field "use_default"; did you mean "use_defaults"?`},
		},
		{
			name: "a kind that takes no defaults",
			hcl: `project = "p"
defaults {
  sandboxes {
  }
}
`,
			cue: `project: "p"
defaults: sandboxes: {}
`,
			wantErr: []string{`main.hcl:3:3: "sandboxes" takes no defaults; did you mean "sandbox"?`, `main.cue:2:11: "sandboxes" takes no defaults; did you mean "sandbox"?`},
		},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t) })
	}
}

func (tc defaultsCase) run(t *testing.T) {
	files := map[string]string{"src/app/main.py": "def answer(x):\n    return x\n", "data/goldens.csv": "input,expected\na,a\n"}
	hf, cf := copyFiles(files), copyFiles(files)
	hf["main.hcl"], cf["main.cue"] = tc.hcl, tc.cue
	if tc.wantErr != nil {
		h := compileErr(t, writeProject(t, hf))
		c := compileErr(t, writeProject(t, cf))
		if !strings.Contains(h, tc.wantErr[0]) {
			t.Errorf("HCL error:\n%s\nwant %s", h, tc.wantErr[0])
		}
		if !strings.Contains(c, tc.wantErr[1]) {
			t.Errorf("CUE error:\n%s\nwant %s", c, tc.wantErr[1])
		}
		return
	}
	h := compileJSON(t, writeProject(t, hf), Input{})
	c := compileJSON(t, writeProject(t, cf), Input{})
	if !bytes.Equal(h, c) {
		t.Fatalf("HCL and CUE differ:\n%s\n%s", h, c)
	}
	for _, w := range tc.want {
		if !bytes.Contains(h, []byte(w)) {
			t.Errorf("desired state lacks %s:\n%s", w, h)
		}
	}
	for _, no := range []string{"use_defaults", "default"} {
		if bytes.Contains(h, []byte(no)) {
			t.Errorf("the desired state has a trace of the defaults (%s):\n%s", no, h)
		}
	}
}

func copyFiles(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// compileErr compiles a project that must fail and returns its
// diagnostics, one per line.
func compileErr(t *testing.T, dir string) string {
	t.Helper()
	_, err := Compile(context.Background(), Input{Path: dir})
	var ce *Error
	if !errors.As(err, &ce) {
		t.Fatalf("Compile(%s) = %v, want a configuration error", dir, err)
	}
	var b strings.Builder
	for _, d := range ce.Diagnostics {
		b.WriteString(d.Error())
		b.WriteByte('\n')
	}
	return b.String()
}

// TestDefaultsLeaveNoTrace: a resource written out in full and the same
// resource from defaults have the same spec and hash (issue 11: shared
// defaults), in both languages.
func TestDefaultsLeaveNoTrace(t *testing.T) {
	full := compileOK(t, writeProject(t, map[string]string{"main.hcl": `project = "p"
sandbox "dev" {
  image = { from = ` + defaultsImage + ` }
  tags  = ["team-a", "mine"]
  env   = { LOG = "debug", REGION = "eu" }
}
`}), Input{})
	for name, src := range map[string]string{
		"main.hcl": `project = "p"
defaults "team" {
  sandbox {
    image = { from = ` + defaultsImage + ` }
    tags  = ["team-a"]
    env   = { LOG = "info", REGION = "eu" }
  }
}
sandbox "dev" {
  use_defaults = ["team"]
  tags         = ["mine"]
  env          = { LOG = "debug" }
}
`,
		"main.cue": `project: "p"
default_sets: team: sandbox: {
	image: from: ` + defaultsImage + `
	tags: ["team-a"]
	env: {LOG: "info", REGION: "eu"}
}
sandboxes: dev: {
	use_defaults: ["team"]
	tags: ["mine"]
	env: LOG: "debug"
}
`,
	} {
		d := compileOK(t, writeProject(t, map[string]string{name: src}), Input{})
		a, b := full.Lookup("sandbox.dev"), d.Lookup("sandbox.dev")
		if a == nil || b == nil || a.Hash != b.Hash || !bytes.Equal(a.Spec, b.Spec) {
			t.Errorf("%s: from defaults %s, written out %s", name, b.Spec, a.Spec)
		}
	}
}

// TestDefaultsChangeEveryUser: changing a default changes the hash of
// every resource that takes it and of no other (issue 11: shared
// defaults); the planner plans an update for each changed hash.
func TestDefaultsChangeEveryUser(t *testing.T) {
	src := func(log string) string {
		return `project: "p"
images: app: from: ` + defaultsImage + `
defaults: sandbox: env: LOG: "` + log + `"
default_sets: gpu: function: resources: gpu: count: 1
sandboxes: a: image: images.app
sandboxes: b: {image: images.app, tags: ["b"]}
functions: f: {image: images.app, source: paths: ["src"], handler: "app.main:answer"}
`
	}
	files := map[string]string{"src/app/main.py": "x = 1\n"}
	files["main.cue"] = src("info")
	before := hashes(t, writeProject(t, files))
	files["main.cue"] = src("debug")
	after := hashes(t, writeProject(t, files))
	got := strings.Join(changed(before, after), " ")
	if got != "sandbox.a sandbox.b" {
		t.Errorf("changed = %q, want sandbox.a sandbox.b", got)
	}
}

// TestDefaultsKeepSensitivity: a sensitive value a resource takes from a
// default is sensitive in the resource (issue 11: shared defaults), so it
// is never shown.
func TestDefaultsKeepSensitivity(t *testing.T) {
	d := compileOK(t, writeProject(t, map[string]string{"main.hcl": `project = "p"
variable "tok" {
  sensitive = true
  default   = "hunter2"
}
defaults {
  sandbox {
    image       = { from = ` + defaultsImage + ` }
    env         = { TOKEN = var.tok, LOG = "info" }
    annotations = { a = var.tok }
  }
}
sandbox "dev" {
  env = { LOG = "debug" }
}
`}), Input{})
	got := d.Lookup("sandbox.dev").Sensitive
	if strings.Join(got, " ") != "/annotations/a /env/TOKEN" {
		t.Errorf("sensitive = %v, want /annotations/a /env/TOKEN", got)
	}
}
