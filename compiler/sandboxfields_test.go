package compiler

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// sandboxFieldsHCL and sandboxFieldsCUE are one project in both languages
// that uses every field of issue 11's sandbox and function parts.
const sandboxFieldsHCL = `project = "demo"
image "app" { from = "python:3.12-slim@sha256:` + zeros + `" }
secret "aws" {
  from_env_file {
    path = "aws.env"
  }
}
secret "token" { from_env = "TOKEN" }
sandbox "agent" {
  image         = image.app
  entrypoint    = ["sleep", "infinity"]
  compute_class = "host"
  port {
    container_port = 8080
    host_port      = 80
  }
  port {
    container_port = 5353
    protocol       = "udp"
  }
  s3_mount {
    bucket      = "team-data"
    prefix      = "runs/"
    mount_path  = "/mnt/s3"
    read_only   = true
    credentials = secret.aws
  }
  snapshot { mount_path = "/work" }
  max_timeout = "600s"
  runners     = ["runner-1"]
  profiles    = ["gpu-a100"]
  temp_dir    = "/scratch"
  stop {
    grace_period     = "30s"
    snapshot_on_stop = true
  }
}
sandbox "serve" {
  image = image.app
  args  = ["--port", "8080"]
}
function "ranker" {
  image       = image.app
  source { paths = ["src"] }
  handler     = "app.rank:Ranker"
  methods     = ["rank", "score"]
  description = "ranks answers"
  identity    = true
  network {
    egress_allow = ["api.openai.com"]
  }
  mounted_file {
    src  = "conf/app.toml"
    path = "/etc/app.toml"
  }
  credential {
    hosts  = ["api.openai.com"]
    secret = secret.token
  }
  tags          = ["team-a"]
  annotations   = { owner = "me" }
  profiles      = ["cpu"]
  compute_class = "host"
}
`

const sandboxFieldsCUE = `package demo

project: "demo"
images: app: from: "python:3.12-slim@sha256:` + zeros + `"
secrets: aws: from_env_file: path: "aws.env"
secrets: token: from_env: "TOKEN"
sandboxes: agent: {
	image:         images.app
	entrypoint:    ["sleep", "infinity"]
	compute_class: "host"
	ports: [{container_port: 8080, host_port: 80}, {container_port: 5353, protocol: "udp"}]
	s3_mount: {
		bucket:      "team-data"
		prefix:      "runs/"
		mount_path:  "/mnt/s3"
		read_only:   true
		credentials: secrets.aws
	}
	snapshot: mount_path: "/work"
	max_timeout: "10m"
	runners: ["runner-1"]
	profiles: ["gpu-a100"]
	temp_dir: "/scratch"
	stop: {grace_period: "30s", snapshot_on_stop: true}
}
sandboxes: serve: {
	image: images.app
	args: ["--port", "8080"]
}
functions: ranker: {
	image:  images.app
	source: paths: ["src"]
	handler:     "app.rank:Ranker"
	methods:     ["rank", "score"]
	description: "ranks answers"
	identity:    true
	network: egress_allow: ["api.openai.com"]
	mounted_files: [{src: "conf/app.toml", path: "/etc/app.toml"}]
	credentials: [{hosts: ["api.openai.com"], secret: secrets.token}]
	tags: ["team-a"]
	annotations: owner: "me"
	profiles: ["cpu"]
	compute_class: "host"
}
`

const zeros = "0000000000000000000000000000000000000000000000000000000000000000"

var sandboxFieldsFiles = map[string]string{
	"src/app/rank.py": "class Ranker:\n    def rank(self, x): return x\n    def score(self, x): return 1\n",
	"conf/app.toml":   "x = 1\n",
	"aws.env":         "AWS_ACCESS_KEY_ID=a\nAWS_SECRET_ACCESS_KEY=b\n",
}

func sandboxFieldsProject(t *testing.T, extra map[string]string) string {
	t.Helper()
	files := map[string]string{"main.hcl": sandboxFieldsHCL, "main.cue": sandboxFieldsCUE}
	for k, v := range sandboxFieldsFiles {
		files[k] = v
	}
	for k, v := range extra {
		files[k] = v
	}
	return writeProject(t, files)
}

// issue 11: sandbox fields. Every new sandbox and function field compiles
// to byte-identical desired state from CUE and HCL, each in its spec, and
// the service's check of a spec takes them.
func TestSandboxFieldsBothLanguages(t *testing.T) {
	t.Setenv("TOKEN", "t0ken")
	dir := sandboxFieldsProject(t, nil)
	c := compileJSON(t, filepath.Join(dir, "main.cue"), Input{})
	if h := compileJSON(t, filepath.Join(dir, "main.hcl"), Input{}); !bytes.Equal(c, h) {
		t.Fatalf("CUE and HCL compile differently:\n%s\n%s", c, h)
	}
	d := compileOK(t, filepath.Join(dir, "main.hcl"), Input{})
	agent := specOf(t, d, "sandbox.agent")
	for _, k := range []string{"compute_class", "ports", "s3_mount", "max_timeout", "runners", "profiles", "temp_dir", "stop"} {
		if agent[k] == nil {
			t.Errorf("sandbox.agent's spec lacks %s: %v", k, agent)
		}
	}
	if agent["max_timeout"] != "10m" {
		t.Errorf("max_timeout = %v, want the canonical 10m", agent["max_timeout"])
	}
	ports, _ := agent["ports"].([]any)
	if len(ports) != 2 || ports[0].(map[string]any)["protocol"] != "tcp" {
		t.Errorf("ports = %v, want two, the first tcp by default", agent["ports"])
	}
	if s3, _ := agent["s3_mount"].(map[string]any); s3 == nil || s3["credentials"].(map[string]any)["ref"] != "secret.aws" {
		t.Errorf("s3_mount = %v, want its credentials by reference to secret.aws", agent["s3_mount"])
	}
	ranker := specOf(t, d, "function.ranker")
	for _, k := range []string{"methods", "description", "identity", "network", "mounted_files", "credentials", "tags", "annotations", "profiles", "compute_class"} {
		if ranker[k] == nil {
			t.Errorf("function.ranker's spec lacks %s: %v", k, ranker)
		}
	}
	for _, r := range d.Resources {
		if r.Kind == schema.KindImage {
			continue
		}
		if err := schema.ValidateSpec(r.Kind, r.Spec); err != nil {
			t.Errorf("ValidateSpec(%s) = %v, want nil", r.Address, err)
		}
	}
	if bytes.Contains(c, []byte("t0ken")) || bytes.Contains(c, []byte("AWS_SECRET_ACCESS_KEY=b")) {
		t.Fatalf("a secret's value is in the desired state:\n%s", c)
	}
}

// issue 11: sandbox fields. An entrypoint without args is the whole
// process, the same spec (and hash) as command; entrypoint and args are
// entrypoint then args; args alone, empty or not, keep the image's
// ENTRYPOINT; a sandbox of command only keeps the spec it had.
func TestSandboxEntrypointArgs(t *testing.T) {
	hash := func(body string) (string, map[string]any) {
		dir := writeProject(t, map[string]string{"main.cue": `package demo
project: "demo"
images: app: from: "python:3.12-slim@sha256:` + zeros + `"
sandboxes: s: {
	image: images.app
	` + body + `
}
`})
		d := compileOK(t, filepath.Join(dir, "main.cue"), Input{})
		return d.Lookup("sandbox.s").Hash, specOf(t, d, "sandbox.s")
	}
	cmd, cmdSpec := hash(`command: ["sleep", "infinity"]`)
	if _, ok := cmdSpec["args"]; ok || cmdSpec["entrypoint"] != nil {
		t.Fatalf("a command-only spec = %v, want command alone", cmdSpec)
	}
	if ep, _ := hash(`entrypoint: ["sleep", "infinity"]`); ep != cmd {
		t.Errorf("entrypoint X hashes %s, command X %s: want equal", ep, cmd)
	}
	if ep, _ := hash(`entrypoint: ["sleep"], args: ["infinity"]`); ep != cmd {
		t.Errorf("entrypoint+args hashes %s, command %s: want equal", ep, cmd)
	}
	if ep, _ := hash(`entrypoint: ["sleep", "infinity"], args: []`); ep != cmd {
		t.Errorf("entrypoint with args [] hashes %s, command %s: want equal", ep, cmd)
	}
	none, _ := hash(``)
	empty, emptySpec := hash(`args: []`)
	if empty == none {
		t.Errorf("args [] (no CMD) hashes as no args (the image's CMD)")
	}
	if a, ok := emptySpec["args"].([]any); !ok || len(a) != 0 {
		t.Errorf("args [] compiles to %v, want an empty args", emptySpec)
	}
}

// issue 11: sandbox and function class errors, positioned, in both
// languages; a single-string profile is refused with the list form.
func TestSandboxFieldsErrors(t *testing.T) {
	img := `"python:3.12-slim@sha256:` + zeros + `"`
	for _, tc := range []struct {
		name, file, src string
		want            []string
	}{
		{"hcl", "main.hcl", `project = "demo"
image "app" { from = ` + img + ` }
sandbox "a" {
  image      = image.app
  command    = ["sh"]
  entrypoint = ["sleep"]
  args       = ["1"]
  port { container_port = 80 }
  port { container_port = 80 }
  stop { snapshot_on_stop = true }
}
function "cls" {
  image = image.app
  source { paths = ["src"] }
  handler = "app:Ranker"
}
function "fn" {
  image = image.app
  source { paths = ["src"] }
  handler = "app:rank"
  methods = ["a"]
}
function "dup" {
  image = image.app
  source { paths = ["src"] }
  handler = "app:Ranker"
  methods = ["a", "b", "a"]
}
`, []string{
			`main.hcl:6:16: set command or entrypoint, not both`,
			`main.hcl:7:16: set command or args, not both`,
			`main.hcl:9:27: ports: container port 80/tcp is mapped twice`,
			`main.hcl:10:29: stop: snapshot_on_stop needs a snapshot mount`,
			`main.hcl:15:13: handler app:Ranker names a class`,
			`main.hcl:21:13: methods are a function class's: handler app:rank names a function`,
			`main.hcl:27:24: method "a" is listed twice`,
		}},
		{"cue-class-task", "main.cue", `package demo

project: "demo"
images: app: from: ` + img + `
datasets: g: files: ["g.csv"]
functions: ranker: {
	image: images.app
	source: paths: ["src"]
	handler: "app:Ranker"
	methods: ["rank"]
}
evaluations: e: {
	dataset: datasets.g
	task:    functions.ranker
	scorers: [{function: functions.ranker}]
}
`, []string{
			`main.cue:14:2: the task is a function class (methods rank): an evaluation calls a function, not a class`,
			`main.cue:15:13: scorer 1 is a function class (methods rank)`,
		}},
		{"cue", "main.cue", `package demo

project: "demo"
images: app: from: ` + img + `
sandboxes: a: {
	image:      images.app
	command:    ["sh"]
	entrypoint: ["sleep"]
}
functions: cls: {
	image: images.app
	source: paths: ["src"]
	handler: "app:Ranker"
}
`, []string{
			`main.cue:8:2: set command or entrypoint, not both`,
			`main.cue:13:2: handler app:Ranker names a class`,
		}},
		{"hcl-profile", "main.hcl", `project = "demo"
image "app" { from = ` + img + ` }
sandbox "a" {
  image   = image.app
  profile = "gpu"
}
`, []string{`main.hcl:5:3: unknown attribute "profile"; did you mean "profiles"?; profiles is a list: profiles = ["..."]`}},
		{"hcl-sdk-names", "main.hcl", `project = "demo"
image "app" { from = ` + img + ` }
sandbox "a" {
  image               = image.app
  max_timeout_seconds = 600
  runner_ids          = ["r"]
  profile_names       = ["p"]
  stop { graceful_shutdown_seconds = 10 }
}
function "f" {
  image = image.app
  source { paths = ["src"] }
  handler        = "app:run"
  chalk_identity = true
  profile_ids    = ["p"]
}
`, []string{
			`main.hcl:5:3: unknown attribute "max_timeout_seconds"; did you mean "max_timeout"?`,
			`main.hcl:6:3: unknown attribute "runner_ids"; did you mean "runners"?`,
			`main.hcl:7:3: unknown attribute "profile_names"; did you mean "profiles"?`,
			`main.hcl:8:10: unknown attribute "graceful_shutdown_seconds"; did you mean "grace_period"?`,
			`main.hcl:14:3: unknown attribute "chalk_identity"; did you mean "identity"?`,
			`main.hcl:15:3: unknown attribute "profile_ids"; did you mean "profiles"?`,
		}},
		{"cue-profile", "main.cue", `package demo

project: "demo"
images: app: from: ` + img + `
sandboxes: a: {
	image:   images.app
	profile: "gpu"
}
`, []string{`main.cue:7:2: unknown field "profile"; did you mean "profiles"?; profiles is a list: profiles: ["..."]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(context.Background(), Input{Path: writeProject(t, map[string]string{tc.file: tc.src, "src/app.py": "x = 1\n", "g.csv": "input,expected\na,b\n"})})
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("Compile() error = %v, want a configuration error", err)
			}
			got := ce.Error()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("Compile() errors lack %q:\n%s", w, got)
				}
			}
		})
	}
}

// issue 11, acceptance 5b: a function class with two methods plans one
// function with one version, its methods in the spec; a change of a
// method is a new version of the class, not of a method.
func TestFunctionClassPlansOneVersion(t *testing.T) {
	t.Setenv("TOKEN", "t0ken")
	dir := sandboxFieldsProject(t, nil)
	d := compileOK(t, filepath.Join(dir, "main.hcl"), Input{})
	p, err := planner.Diff(d, &planner.State{Project: d.Project}, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var fns []planner.Change
	for _, c := range p.Changes {
		if c.Addr == "function.ranker" || strings.HasPrefix(c.Addr, "function.ranker.") {
			fns = append(fns, c)
		}
	}
	if len(fns) != 1 || fns[0].Version == nil || fns[0].Version.Number != 1 {
		t.Fatalf("function.ranker changes = %+v, want one, version 1", fns)
	}
	if m, _ := specOf(t, d, "function.ranker")["methods"].([]any); len(m) != 2 {
		t.Fatalf("methods = %v, want rank and score", m)
	}
	st := appliedState(d)
	for i := range st.Resources {
		if st.Resources[i].Address == "function.ranker" {
			st.Resources[i].Version = 1
		}
	}
	src := strings.Replace(sandboxFieldsHCL, `methods     = ["rank", "score"]`, `methods     = ["rank", "score", "explain"]`, 1)
	d2 := compileOK(t, filepath.Join(writeProject(t, map[string]string{"main.hcl": src, "src/app/rank.py": "x = 1\n", "conf/app.toml": "x = 1\n", "aws.env": "A=1\n"}), "main.hcl"), Input{})
	p2, err := planner.Diff(d2, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range p2.Changes {
		if c.Addr == "function.ranker" && (c.Version == nil || c.Version.Action != "new") {
			t.Errorf("a new method plans %+v, want a new version of the class", c)
		}
	}
}

// issue 11: sandbox fields. An S3 mount's credentials may be a secret the
// service has (data.secrets.NAME), as a function's credentials may: the
// same desired state from both languages, the reference in the spec.
func TestS3MountDataSecret(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"main.cue": `package demo

project: "demo"
data: secrets: aws: name: "team-aws"
images: app: from: "python:3.12-slim@sha256:` + zeros + `"
sandboxes: s: {
	image: images.app
	s3_mount: {bucket: "team-data", mount_path: "/mnt/s3", credentials: data.secrets.aws}
}
`,
		"main.hcl": `project = "demo"
data "secret" "aws" {
  name = "team-aws"
}
image "app" { from = "python:3.12-slim@sha256:` + zeros + `" }
sandbox "s" {
  image = image.app
  s3_mount {
    bucket      = "team-data"
    mount_path  = "/mnt/s3"
    credentials = data.secret.aws
  }
}
`})
	c := compileJSON(t, filepath.Join(dir, "main.cue"), Input{})
	if h := compileJSON(t, filepath.Join(dir, "main.hcl"), Input{}); !bytes.Equal(c, h) {
		t.Fatalf("CUE and HCL compile differently:\n%s\n%s", c, h)
	}
	d := compileOK(t, filepath.Join(dir, "main.hcl"), Input{})
	s3, _ := specOf(t, d, "sandbox.s")["s3_mount"].(map[string]any)
	if cr, _ := s3["credentials"].(map[string]any); cr == nil || !strings.HasPrefix(cr["ref"].(string), "data.secret") {
		t.Fatalf("s3_mount = %v, want credentials referring to the data source", s3)
	}
	if err := schema.ValidateSpec(schema.KindSandbox, d.Lookup("sandbox.s").Spec); err != nil {
		t.Fatalf("ValidateSpec = %v", err)
	}
}
