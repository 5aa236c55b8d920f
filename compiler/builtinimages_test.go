package compiler

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/schema"
)

// compileBoth compiles the same project written in CUE and in HCL and
// fails unless both give byte-identical desired states; it returns that.
func compileBoth(t *testing.T, cueSrc, hclSrc string) []byte {
	t.Helper()
	src := "def main(x):\n    return x\n"
	c := writeProject(t, map[string]string{"main.cue": cueSrc, "src/app.py": src})
	h := writeProject(t, map[string]string{"main.hcl": hclSrc, "src/app.py": src})
	cj := compileJSON(t, filepath.Join(c, "main.cue"), Input{})
	hj := compileJSON(t, filepath.Join(h, "main.hcl"), Input{})
	if !bytes.Equal(cj, hj) {
		t.Fatalf("CUE and HCL differ:\nCUE %s\nHCL %s", cj, hj)
	}
	return cj
}

// specAt returns the spec of the resource at addr in a desired state's
// JSON, failing when there is none.
func specAt(t *testing.T, desired []byte, addr string) map[string]any {
	t.Helper()
	var d struct {
		Resources []struct {
			Address string         `json:"address"`
			Spec    map[string]any `json:"spec"`
		} `json:"resources"`
	}
	if err := json.Unmarshal(desired, &d); err != nil {
		t.Fatal(err)
	}
	for _, r := range d.Resources {
		if r.Address == addr {
			return r.Spec
		}
	}
	t.Fatalf("no %s in %s", addr, desired)
	return nil
}

// TestIssue11ImageStringShorthand: issue 11: image shorthands. A registry
// reference where an image is taken (a sandbox's, a function's) compiles
// to the same desired state as an image with only that base, in both
// languages.
func TestIssue11ImageStringShorthand(t *testing.T) {
	short := compileBoth(t, `project: "p"
sandboxes: dev: image: "ubuntu:latest"
functions: f: {image: "ubuntu:latest", source: paths: ["src"], handler: "app:main"}
`, `project = "p"
sandbox "dev" { image = "ubuntu:latest" }
function "f" {
  image   = "ubuntu:latest"
  handler = "app:main"
  source { paths = ["src"] }
}
`)
	long := compileBoth(t, `project: "p"
sandboxes: dev: image: from: "ubuntu:latest"
functions: f: {image: from: "ubuntu:latest", source: paths: ["src"], handler: "app:main"}
`, `project = "p"
sandbox "dev" {
  image { from = "ubuntu:latest" }
}
function "f" {
  handler = "app:main"
  image { from = "ubuntu:latest" }
  source { paths = ["src"] }
}
`)
	if !bytes.Equal(short, long) {
		t.Fatalf("shorthand differs from the long form:\n%s\n%s", short, long)
	}
}

// TestIssue11BuiltinImages: issue 11: image shorthands. images.debian_slim
// and images.sandbox need no declaration; they compile as the named
// images image.debian-slim and image.sandbox (seed A's Image.debian_slim()
// and Image.sandbox()), and a sandbox without an image runs image.sandbox.
func TestIssue11BuiltinImages(t *testing.T) {
	d := compileBoth(t, `project: "p"
images: app: {from: images.debian_slim, steps: [{pip: packages: ["flask"]}]}
images: tools: {from: images.sandbox, steps: [{apt: packages: ["tmux"]}]}
sandboxes: plain: {}
sandboxes: direct: image: images.sandbox
sandboxes: tools: image: images.tools
`, `project = "p"
image "app" {
  from = image.debian_slim
  pip { packages = ["flask"] }
}
image "tools" {
  from = image.sandbox
  apt { packages = ["tmux"] }
}
sandbox "plain" {}
sandbox "direct" { image = image.sandbox }
sandbox "tools" { image = image.tools }
`)
	slim := specAt(t, d, "image.debian-slim")
	if slim["from"] != schema.DebianSlimBase || len(slim) != 1 {
		t.Errorf("image.debian-slim = %v, want only from %s", slim, schema.DebianSlimBase)
	}
	sb, _ := json.Marshal(specAt(t, d, "image.sandbox"))
	want := `{"from":"python:3.14-slim-trixie","steps":[{"apt":{"packages":["git","ca-certificates","openssh-client"]}},{"workdir":{"path":"/workspace"}}]}`
	if string(sb) != want {
		t.Errorf("image.sandbox = %s, want %s", sb, want)
	}
	plain, direct := specAt(t, d, "sandbox.plain"), specAt(t, d, "sandbox.direct")
	if plain["image"] == nil || plain["image"] != direct["image"] {
		t.Errorf("a sandbox without image runs %v, want image.sandbox's %v", plain["image"], direct["image"])
	}
	if fi, _ := specAt(t, d, "image.tools")["from_image"].(string); !strings.HasPrefix(fi, "sha256:") {
		t.Errorf("image.tools is not built from image.sandbox: %v", specAt(t, d, "image.tools"))
	}
}

// TestIssue11UnusedBuiltinsAbsent: issue 11: image shorthands. A project
// that uses no built-in image has none in its desired state.
func TestIssue11UnusedBuiltinsAbsent(t *testing.T) {
	d := compileBoth(t, `project: "p"
sandboxes: dev: image: from: "python:3.14-slim-trixie"
`, `project = "p"
sandbox "dev" {
  image { from = "python:3.14-slim-trixie" }
}
`)
	if bytes.Contains(d, []byte(`"image.debian-slim"`)) || bytes.Contains(d, []byte(`"image.sandbox"`)) {
		t.Fatalf("unused built-in image in %s", d)
	}
}

// TestIssue11BuiltinImageNamesReserved: issue 11: image shorthands. A
// project that declares an image of a built-in's name gets a positioned
// error, in both languages.
func TestIssue11BuiltinImageNamesReserved(t *testing.T) {
	for _, tc := range []struct{ file, src, want string }{
		{"main.cue", "project: \"p\"\nimages: sandbox: from: \"ubuntu:latest\"\n", `main.cue:2:9: image "sandbox" is built in`},
		{"main.cue", "project: \"p\"\nimages: {\n\t\"debian-slim\": from: \"ubuntu:latest\"\n}\n", `main.cue:3:2: image "debian-slim" is built in`},
		{"main.cue", "project: \"p\"\nimages: {for n in [\"sandbox\"] {(n): {from: \"ubuntu:latest\"}}}\n", `main.cue:2:32: image "sandbox" is built in`},
		{"main.hcl", "project = \"p\"\nimage \"sandbox\" { from = \"ubuntu:latest\" }\n", `main.hcl:2:7: image "sandbox" is built in`},
		{"main.hcl", "project = \"p\"\nimage \"debian-slim\" { from = \"ubuntu:latest\" }\n", `main.hcl:2:7: image "debian-slim" is built in`},
	} {
		dir := writeProject(t, map[string]string{tc.file: tc.src})
		got := compileDiags(t, dir, filepath.Join(dir, tc.file), Input{})
		if len(got) == 0 || !strings.Contains(got[0], tc.want) {
			t.Errorf("%s: diagnostics = %q, want %q", tc.src, got, tc.want)
		}
	}
}

// TestIssue11BadImageStringPositioned: issue 11: image shorthands. A bad
// reference given as an image string is refused where it is written, as
// a bad from is.
func TestIssue11BadImageStringPositioned(t *testing.T) {
	for _, tc := range []struct{ file, src, want string }{
		{"main.cue", "project: \"p\"\nsandboxes: dev: image: \"Ubuntu:latest\"\n", `main.cue:2:17: from: invalid image reference "Ubuntu:latest"`},
		{"main.hcl", "project = \"p\"\nsandbox \"dev\" { image = \"Ubuntu:latest\" }\n", `main.hcl:2:`},
		{"main.cue", "project: \"p\"\nsandboxes: dev: image: \"ubuntu latest\"\n", `main.cue:2:`},
		{"main.hcl", "project = \"p\"\nimage \"a\" { from = image.sandbx }\n", `did you mean image.sandbox?`},
	} {
		dir := writeProject(t, map[string]string{tc.file: tc.src})
		got := compileDiags(t, dir, filepath.Join(dir, tc.file), Input{})
		if len(got) == 0 || !strings.Contains(got[0], tc.want) {
			t.Errorf("%s: diagnostics = %q, want one containing %q", tc.src, got, tc.want)
		}
	}
}

// TestIssue11BuiltinByResourceName: issue 11: image shorthands. The
// address a plan shows, image.debian-slim, refers to the built-in as well
// as image.debian_slim does: the same image, in both languages.
func TestIssue11BuiltinByResourceName(t *testing.T) {
	d := compileBoth(t, `project: "p"
images: a: {from: images["debian-slim"], steps: [{pip: packages: ["flask"]}]}
images: b: {from: images.debian_slim, steps: [{pip: packages: ["flask"]}]}
`, `project = "p"
image "a" {
  from = image.debian-slim
  pip { packages = ["flask"] }
}
image "b" {
  from = image.debian_slim
  pip { packages = ["flask"] }
}
`)
	if n := bytes.Count(d, []byte(`"kind":"image"`)); n != 2 {
		t.Fatalf("want 2 images (a, also b, and debian-slim), got %d: %s", n, d)
	}
}

// TestIssue11BuiltinImagesCUEFiles: issue 11: image shorthands. In CUE the
// built-in images resolve from a file that declares no images (with or
// without a package clause), from every file of a package, and a missing
// project is still reported in the user's file.
func TestIssue11BuiltinImagesCUEFiles(t *testing.T) {
	for name, files := range map[string]map[string]string{
		"no package": {"main.cue": "project: \"p\"\nsandboxes: d: image: images.sandbox\n"},
		"package": {
			"a.cue": "package x\nproject: \"p\"\nsandboxes: d: image: images.sandbox\n",
			"b.cue": "package x\nimages: x: from: images.debian_slim\n",
			"c.cue": "package x\nsandboxes: e: image: images.x\n",
		},
	} {
		d := compileJSON(t, writeProject(t, files), Input{})
		if !bytes.Contains(d, []byte(`"address":"image.sandbox"`)) {
			t.Errorf("%s: no image.sandbox in %s", name, d)
		}
	}
	dir := writeProject(t, map[string]string{"main.cue": "sandboxes: d: image: images.sandbox\n"})
	got := compileDiags(t, dir, dir, Input{})
	if len(got) == 0 || !strings.Contains(got[0], `main.cue:1:1: the configuration: missing required field "project"`) {
		t.Errorf("diagnostics = %q", got)
	}
}
