package compiler

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// issue 10: forced versions. A function's version_trigger compiles to the
// same desired state from CUE and HCL, is part of its spec (so a change of
// it changes the function's hash, and nothing else's), and a bad one is a
// positioned error in both languages.
func TestVersionTriggerBothLanguages(t *testing.T) {
	project := func(trigger string) string {
		return writeProject(t, map[string]string{
			"src/app.py": "def main(x): return x\n",
			"main.hcl": `project = "demo"
image "app" { from = "python:3.12-slim@sha256:` + strings.Repeat("0", 64) + `" }
function "app" {
  image           = image.app
  source { paths = ["src"] }
  handler         = "app:main"
  version_trigger = ` + trigger + `
}
`,
			"main.cue": `package demo

project: "demo"
images: app: from: "python:3.12-slim@sha256:` + strings.Repeat("0", 64) + `"
functions: app: {
	image:           images.app
	source: paths: ["src"]
	handler:         "app:main"
	version_trigger: ` + trigger + `
}
`,
		})
	}
	a := project(`"rotated 2026-12-01"`)
	ca := compileJSON(t, filepath.Join(a, "main.cue"), Input{})
	if h := compileJSON(t, filepath.Join(a, "main.hcl"), Input{}); !bytes.Equal(ca, h) {
		t.Fatalf("CUE and HCL compile differently:\n%s\n%s", ca, h)
	}
	if !bytes.Contains(ca, []byte(`"version_trigger":"rotated 2026-12-01"`)) {
		t.Fatalf("the spec has no version_trigger:\n%s", ca)
	}
	b := project(`"rotated 2026-12-02"`)
	ra, err := Compile(context.Background(), Input{Path: filepath.Join(a, "main.hcl")})
	if err != nil {
		t.Fatal(err)
	}
	rb, err := Compile(context.Background(), Input{Path: filepath.Join(b, "main.hcl")})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range ra.Desired.Resources {
		same := r.Hash == rb.Desired.Resources[i].Hash
		if same == (r.Address == "function.app") {
			t.Errorf("%s: hash the same = %t after a change of the function's version_trigger", r.Address, same)
		}
	}

	bad := project(`"two\nlines"`)
	for file, want := range map[string]string{"main.hcl": "main.hcl:7:21", "main.cue": "main.cue:9:19"} {
		_, err := Compile(context.Background(), Input{Path: filepath.Join(bad, file)})
		var cerr *Error
		if !errors.As(err, &cerr) || !strings.Contains(cerr.Diagnostics.Error(), want) || !strings.Contains(cerr.Diagnostics.Error(), "version_trigger") {
			t.Errorf("Compile(%s, two lines) = %v, want an error at %s naming version_trigger", file, err, want)
		}
	}
}
