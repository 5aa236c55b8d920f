package compiler

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 11: kinds parity. Containers, scaling groups and trainings take
// what sandboxes take, the same way: the image string shorthand, the
// process as command or entrypoint and args, shared defaults.

// parityKinds are the kinds of this file: CUE collection and HCL block.
var parityKinds = []struct{ coll, block, addr string }{
	{"containers", "container", "container.w"},
	{"scaling_groups", "scaling_group", "scaling_group.w"},
	{"trainings", "training", "training.w"},
}

// TestKindsImageShorthand: issue 11: image shorthands. A container's,
// scaling group's and training's image = "ubuntu:latest" compiles to the
// same desired state as image { from = "ubuntu:latest" }, in both
// languages.
func TestKindsImageShorthand(t *testing.T) {
	for _, k := range parityKinds {
		short := compileBoth(t, `project: "p"
`+k.coll+`: w: image: "ubuntu:latest"
`, `project = "p"
`+k.block+` "w" { image = "ubuntu:latest" }
`)
		long := compileBoth(t, `project: "p"
`+k.coll+`: w: image: from: "ubuntu:latest"
`, `project = "p"
`+k.block+` "w" {
  image { from = "ubuntu:latest" }
}
`)
		if !bytes.Equal(short, long) {
			t.Errorf("%s: shorthand differs from the long form:\n%s\n%s", k.block, short, long)
		}
	}
}

// TestKindsImageShorthandBadRef: issue 11: image shorthands. A bad
// reference in the shorthand is the registry grammar's error, positioned
// at the image, in both languages.
func TestKindsImageShorthandBadRef(t *testing.T) {
	for _, k := range parityKinds {
		for file, src := range map[string]string{
			"main.cue": "project: \"p\"\n" + k.coll + ": w: {\n\timage: \"Ubuntu:latest\"\n}\n",
			"main.hcl": "project = \"p\"\n" + k.block + " \"w\" {\n  image = \"Ubuntu:latest\"\n}\n",
		} {
			msg := compileErr(t, writeProject(t, map[string]string{file: src}))
			if !strings.Contains(msg, file+":3:") || !strings.Contains(msg, "must be lowercase") || strings.Count(msg, "\n") != 1 {
				t.Errorf("%s %s: %q, want one error at line 3: must be lowercase", k.block, file, msg)
			}
		}
	}
}

// parityProcess compiles a workload of kind k whose body (CUE) is body,
// and returns its hash and spec.
func parityProcess(t *testing.T, coll, addr, body string) (string, map[string]any) {
	t.Helper()
	dir := writeProject(t, map[string]string{"main.cue": `project: "demo"
` + coll + `: w: {
	image: "python:3.12-slim@sha256:` + zeros + `"
	` + body + `
}
`})
	d := compileOK(t, filepath.Join(dir, "main.cue"), Input{})
	return d.Lookup(addr).Hash, specOf(t, d, addr)
}

// TestKindsEntrypointArgs: issue 11: one meaning of the process. As a
// sandbox's, a container's, scaling group's and training's entrypoint
// without args is command (same spec and hash), entrypoint and args are
// entrypoint then args, args alone stay args (empty too, not unset), and
// a command-only spec has command alone.
func TestKindsEntrypointArgs(t *testing.T) {
	for _, k := range parityKinds {
		cmd, cmdSpec := parityProcess(t, k.coll, k.addr, `command: ["sleep", "infinity"]`)
		if _, ok := cmdSpec["args"]; ok || cmdSpec["entrypoint"] != nil {
			t.Errorf("%s: a command-only spec = %v, want command alone", k.block, cmdSpec)
		}
		for _, body := range []string{
			`entrypoint: ["sleep", "infinity"]`,
			`entrypoint: ["sleep"], args: ["infinity"]`,
			`entrypoint: ["sleep", "infinity"], args: []`,
		} {
			if h, _ := parityProcess(t, k.coll, k.addr, body); h != cmd {
				t.Errorf("%s: %s hashes %s, command %s: want equal", k.block, body, h, cmd)
			}
		}
		none, _ := parityProcess(t, k.coll, k.addr, ``)
		empty, emptySpec := parityProcess(t, k.coll, k.addr, `args: []`)
		if empty == none {
			t.Errorf("%s: args [] (no CMD) hashes as no args (the image's CMD)", k.block)
		}
		if a, ok := emptySpec["args"].([]any); !ok || len(a) != 0 {
			t.Errorf("%s: args [] compiles to %v, want an empty args", k.block, emptySpec)
		}
		if _, spec := parityProcess(t, k.coll, k.addr, `args: ["--port", "80"]`); spec["command"] != nil || len(spec["args"].([]any)) != 2 {
			t.Errorf("%s: args alone compile to %v, want args alone", k.block, spec)
		}
	}
}

// TestKindsEntrypointArgsBothLanguages: issue 11: one meaning of the
// process. entrypoint and args give the same desired state from CUE and
// HCL for every kind.
func TestKindsEntrypointArgsBothLanguages(t *testing.T) {
	for _, k := range parityKinds {
		d := compileBoth(t, `project: "p"
`+k.coll+`: w: {image: "ubuntu:latest", entrypoint: ["python"], args: ["-m", "app"]}
`+k.coll+`: a: {image: "ubuntu:latest", args: ["serve"]}
`, `project = "p"
`+k.block+` "w" {
  image      = "ubuntu:latest"
  entrypoint = ["python"]
  args       = ["-m", "app"]
}
`+k.block+` "a" {
  image = "ubuntu:latest"
  args  = ["serve"]
}
`)
		if c := specAt(t, d, k.addr)["command"].([]any); len(c) != 3 || c[0] != "python" || c[2] != "app" {
			t.Errorf("%s: command = %v, want python -m app", k.block, c)
		}
	}
}

// TestKindsProcessErrors: issue 11: one meaning of the process. command
// with entrypoint or args is refused at the field, positioned, in both
// languages, with the sandbox's message.
func TestKindsProcessErrors(t *testing.T) {
	for _, k := range parityKinds {
		for _, tc := range []struct{ field, want string }{
			{"entrypoint", "set command or entrypoint, not both"},
			{"args", "set command or args, not both"},
		} {
			for file, src := range map[string]string{
				"main.cue": "project: \"p\"\n" + k.coll + ": w: {\n\timage: \"ubuntu:latest\"\n\tcommand: [\"a\"]\n\t" + tc.field + ": [\"b\"]\n}\n",
				"main.hcl": "project = \"p\"\n" + k.block + " \"w\" {\n  image   = \"ubuntu:latest\"\n  command = [\"a\"]\n  " + tc.field + " = [\"b\"]\n}\n",
			} {
				msg := compileErr(t, writeProject(t, map[string]string{file: src}))
				if !strings.Contains(msg, file+":5:") || !strings.Contains(msg, tc.want) {
					t.Errorf("%s %s %s: %q, want at line 5: %s", k.block, file, tc.field, msg, tc.want)
				}
			}
		}
	}
}

// TestKindsDefaults: issue 11: shared defaults. A container and a scaling
// group take project-wide defaults and named sets: tags merged, a default
// env key overridden by the resource's, byte-identical desired state from
// CUE and HCL, the same as the resources written out in full.
func TestKindsDefaults(t *testing.T) {
	merged := compileBoth(t, `project: "p"
defaults: container: {image: "ubuntu:latest", tags: ["team"], env: {LEVEL: "info", REGION: "eu"}}
defaults: scaling_group: {image: "ubuntu:latest", tags: ["team"], env: {LEVEL: "info", REGION: "eu"}}
default_sets: big: scaling_group: replicas: {min: 2, max: 4}
containers: web: {tags: ["web"], env: LEVEL: "debug"}
scaling_groups: api: {use_defaults: ["big"], tags: ["api", "team"], env: LEVEL: "debug"}
`, `project = "p"
defaults {
  container {
    image = "ubuntu:latest"
    tags  = ["team"]
    env   = { LEVEL = "info", REGION = "eu" }
  }
  scaling_group {
    image = "ubuntu:latest"
    tags  = ["team"]
    env   = { LEVEL = "info", REGION = "eu" }
  }
}
defaults "big" {
  scaling_group {
    replicas {
      min = 2
      max = 4
    }
  }
}
container "web" {
  tags = ["web"]
  env  = { LEVEL = "debug" }
}
scaling_group "api" {
  use_defaults = ["big"]
  tags         = ["api", "team"]
  env          = { LEVEL = "debug" }
}
`)
	full := compileBoth(t, `project: "p"
containers: web: {image: "ubuntu:latest", tags: ["team", "web"], env: {LEVEL: "debug", REGION: "eu"}}
scaling_groups: api: {image: "ubuntu:latest", replicas: {min: 2, max: 4}, tags: ["team", "api"], env: {LEVEL: "debug", REGION: "eu"}}
`, `project = "p"
container "web" {
  image = "ubuntu:latest"
  tags  = ["team", "web"]
  env   = { LEVEL = "debug", REGION = "eu" }
}
scaling_group "api" {
  image = "ubuntu:latest"
  tags  = ["team", "api"]
  env   = { LEVEL = "debug", REGION = "eu" }
  replicas {
    min = 2
    max = 4
  }
}
`)
	if !bytes.Equal(merged, full) {
		t.Fatalf("defaults differ from the resources in full:\n%s\n%s", merged, full)
	}
}
