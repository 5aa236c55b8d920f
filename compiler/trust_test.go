package compiler

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// compileDiags compiles the project at path and returns its diagnostics as
// "file:line:col: summary" lines, file names relative to dir.
func compileDiags(t *testing.T, dir, path string, in Input) []string {
	t.Helper()
	in.Path = path
	_, err := Compile(context.Background(), in)
	var cerr *Error
	if !errors.As(err, &cerr) {
		t.Fatalf("Compile(%s) error = %v, want configuration diagnostics", path, err)
	}
	var out []string
	for _, d := range cerr.Diagnostics {
		if d.Subject == nil || d.Subject.Start.Line == 0 {
			t.Errorf("diagnostic without a position: %s", d.Error())
		}
		out = append(out, strings.ReplaceAll(d.Error(), dir+"/", ""))
	}
	return out
}

// TestItem1MarkedTopLevelFieldsRefused: issue 8 item 1. A collection
// written as required (sandboxes!:) or optional (sandboxes?:) is not part
// of CUE's output; it used to compile to zero resources. Unknown top-level
// fields, with or without a marker, were silently accepted. Each is now an
// error at the field.
func TestItem1MarkedTopLevelFieldsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"required sandboxes", "sandboxes!: dev: image: from: \"python:3.12\"\n",
			`main.cue:2:1: sandboxes is marked required (sandboxes!:) and nothing defines it`},
		{"required volumes", "volumes!: data: size: \"1Gi\"\n",
			`main.cue:2:1: volumes is marked required (volumes!:)`},
		{"required images", "images!: app: from: \"python:3.12\"\n",
			`main.cue:2:1: images is marked required (images!:)`},
		{"required secrets", "secrets!: k: from_env: \"K\"\n",
			`main.cue:2:1: secrets is marked required (secrets!:)`},
		{"optional sandboxes", "sandboxes?: dev: image: from: \"python:3.12\"\n",
			`main.cue:2:1: sandboxes is marked optional (sandboxes?:)`},
		{"required entry", "volumes: data!: size: \"1Gi\"\n",
			`main.cue:2:10: volume "data" is marked required (data!:)`},
		{"optional entry", "volumes: data?: size: \"1Gi\"\n",
			`main.cue:2:10: volume "data" is marked optional (data?:)`},
		{"unknown required", "foo!: 1\n", `main.cue:2:1: unknown field "foo" (written as required, with !)`},
		{"unknown optional", "foo?: 1\n", `main.cue:2:1: unknown field "foo" (written as optional, with ?)`},
		{"unknown regular", "foo: 1\n", `main.cue:2:1: unknown field "foo"`},
		{"misspelt", "sandboxs: dev: image: from: \"python:3.12\"\n", `main.cue:2:1: unknown field "sandboxs"; did you mean "sandboxes"?`},
		{"misspelt required", "volums!: {}\n", `main.cue:2:1: unknown field "volums" (written as required, with !); did you mean "volumes"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.cue": "project: \"p\"\n" + tc.src})
			got := compileDiags(t, dir, filepath.Join(dir, "main.cue"), Input{})
			if len(got) == 0 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("diagnostics = %q, want one containing %q", got, tc.want)
			}
		})
	}
}

// TestItem1MarkersThatDefineNothingAreFine: a marker next to a regular
// field, an optional pattern constraint, definitions and hidden fields are
// ordinary CUE and still compile (issue 8 item 1).
func TestItem1MarkersThatDefineNothingAreFine(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.cue": `project: "p"
volumes!: {...}
volumes: data: size: "1Gi"
sandboxes?: [string]: lifetime: *"2h" | string
#Base: {from: "python:3.12"}
_hidden: 1
`})
	d := compileOK(t, filepath.Join(dir, "main.cue"), Input{})
	if d.Lookup("volume.data") == nil {
		t.Fatalf("volume.data missing from %v", d.Resources)
	}
}

// TestItem1UnknownHCLTopLevel: issue 8 item 1, HCL side: unknown
// top-level attributes and block types are positioned errors.
func TestItem1UnknownHCLTopLevel(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"attribute", "foo = 1\n", `main.hcl:2:1: unknown attribute "foo"`},
		{"block", "sandboxs \"dev\" {\n}\n", `main.hcl:2:1: unknown block type "sandboxs"; did you mean "sandbox"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\n" + tc.src})
			got := compileDiags(t, dir, filepath.Join(dir, "main.hcl"), Input{})
			if len(got) == 0 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("diagnostics = %q, want one containing %q", got, tc.want)
			}
		})
	}
}
