package compiler

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// compileSrc compiles one file of lang holding src, with -var values.
func compileSrc(t *testing.T, lang, src string, vars ...string) (*Result, error) {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main."+lang), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := Compile(context.Background(), Input{Path: dir, Vars: vars})
	var cerr *Error
	if errors.As(err, &cerr) {
		for _, d := range cerr.Diagnostics {
			d.Summary = strings.ReplaceAll(d.Summary, dir+"/", "")
		}
	}
	return res, err
}

// TestIssue9LengthOfString: issue 9 item 18. length takes a string, as
// Terraform's does (characters, not bytes); before, it was refused.
func TestIssue9LengthOfString(t *testing.T) {
	src := `project = "demo"
locals {
  s = length("abcé")
  l = length(["a", "b"])
  m = length({ a = 1 })
}
sandbox "dev" {
  image { from = "python:3.12-slim" }
  tags = ["s${local.s}", "l${local.l}", "m${local.m}"]
}
`
	res, err := compileSrc(t, "hcl", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range res.Desired.Resources {
		if r.Name == "dev" {
			if b := string(r.Spec); !strings.Contains(b, `"s4"`) || !strings.Contains(b, `"l2"`) || !strings.Contains(b, `"m1"`) {
				t.Errorf("spec = %s, want tags s4, l2, m1", b)
			}
		}
	}
}

// TestIssue9VarBareWord: issue 9 item 18. -var n=abc for a number says a
// number is required, at the variable; before: "Variables not allowed".
func TestIssue9VarBareWord(t *testing.T) {
	src := `project = "demo"
variable "n" { type = number }
sandbox "dev" {
  image { from = "python:3.12-slim" }
  tags = ["n${var.n}"]
}
`
	_, err := compileSrc(t, "hcl", src, "n=abc")
	if err == nil || !strings.Contains(err.Error(), `main.hcl:2:1: invalid value for variable "n": a number is required`) || strings.Contains(err.Error(), "Variables not allowed") {
		t.Errorf("error = %v, want: a number is required", err)
	}
	if _, err := compileSrc(t, "hcl", src, "n=3"); err != nil {
		t.Errorf("n=3: %v", err)
	}
}

// TestIssue9SDKNames: issue 9 item 18. A field written under the SDKs'
// name is told cc's (@cc(sdk=...)), and SDK-style resources { cpu } is
// told requests.cpu; before, cpu suggested gpu and the SDK names nothing.
func TestIssue9SDKNames(t *testing.T) {
	cue := `project: "demo"
images: base: from: "python:3.12-slim"
sandboxes: dev: {
	image: images.base
	resources: cpu: "2"
	chalk_identity: true
	max_lifetime_seconds: 3600
	environment_variables: A: "1"
	file_system_snapshot: path: "/data"
	secrets: []
	container_image: images.base
}
`
	hcl := `project = "demo"
image "base" { from = "python:3.12-slim" }
sandbox "dev" {
  image = image.base
  resources { cpu = "2" }
  chalk_identity = true
  max_lifetime_seconds = 3600
  environment_variables = { A = "1" }
  file_system_snapshot { path = "/data" }
  secrets = []
  container_image = image.base
}
`
	want := []string{"requests.cpu", "identity", "lifetime", "env", "snapshot", "env_from", "image"}
	for lang, src := range map[string]string{"cue": cue, "hcl": hcl} {
		_, err := compileSrc(t, lang, src)
		var cerr *Error
		if !errors.As(err, &cerr) || len(cerr.Diagnostics) != len(want) {
			t.Fatalf("%s: error = %v, want %d diagnostics", lang, err, len(want))
		}
		for i, d := range cerr.Diagnostics {
			if d.Subject == nil || d.Subject.Start.Line != 5+i || !strings.HasSuffix(d.Summary, `did you mean "`+want[i]+`"?`) {
				t.Errorf("%s: %s, want line %d suggesting %q", lang, d.Error(), 5+i, want[i])
			}
		}
	}
}

// TestIssue9CloseNamesOnly: issue 9 item 18. A reference to an undefined
// image suggests only a close name (bse: base), never an unrelated one
// (nope: code, two edits of four letters).
func TestIssue9CloseNamesOnly(t *testing.T) {
	for lang, src := range map[string]string{
		"cue": "project: \"demo\"\nimages: base: from: \"python:3.12-slim\"\nimages: code: from: \"python:3.12-slim\"\nsandboxes: a: image: images.nope\nsandboxes: b: image: images.bse\n",
		"hcl": "project = \"demo\"\nimage \"base\" { from = \"python:3.12-slim\" }\nimage \"code\" { from = \"python:3.12-slim\" }\nsandbox \"a\" { image = image.nope }\nsandbox \"b\" { image = image.bse }\n",
	} {
		_, err := compileSrc(t, lang, src)
		if err == nil {
			t.Fatalf("%s: compiled", lang)
		}
		msg := err.Error()
		if strings.Contains(msg, "code") || !strings.Contains(msg, `nope"`) && !strings.Contains(msg, "images.nope") {
			t.Errorf("%s: %s\nwant nope without a suggestion", lang, msg)
		}
		if !strings.Contains(msg, "did you mean image.base?") && !strings.Contains(msg, "did you mean images.base?") {
			t.Errorf("%s: %s\nwant bse to suggest base", lang, msg)
		}
	}
}

// TestIssue9PluralWords: issue 9 item 18. A reference to a sandbox says
// "sandboxes", not "sandboxs".
func TestIssue9PluralWords(t *testing.T) {
	src := "project = \"demo\"\nsandbox \"a\" {\n  image { from = \"python:3.12-slim\" }\n}\nsandbox \"b\" {\n  image { from = \"python:3.12-slim\" }\n  tags = [sandbox.a.x]\n}\n"
	_, err := compileSrc(t, "hcl", src)
	if err == nil || !strings.Contains(err.Error(), "sandboxes cannot be referred to") {
		t.Errorf("error = %v, want: sandboxes cannot be referred to", err)
	}
}

// TestIssue9FileErrorNamesFile: issue 9 item 18. A file system error
// while hashing a copied tree names the file, relative to the project
// root; before, "copy source permission denied" named none. (The tests
// run as root, where a mode cannot deny a read: the error is made.)
func TestIssue9FileErrorNamesFile(t *testing.T) {
	h := &fileHasher{root: "/work/p"}
	err := h.namedPathError(fmt.Errorf("walking: %w", &fs.PathError{Op: "open", Path: "/work/p/src/keys", Err: fs.ErrPermission}))
	if err == nil || err.Error() != "src/keys permission denied" || !errors.Is(err, fs.ErrPermission) {
		t.Errorf("namedPathError() = %v, want src/keys permission denied", err)
	}
	if err := h.namedPathError(&fs.PathError{Op: "open", Path: "/etc/x", Err: fs.ErrPermission}); err.Error() != "permission denied" {
		t.Errorf("outside the root: %v, want the bare error", err)
	}
}

// TestIssue9NestedSuggestion: issue 9 item 18. A misspelt resource
// quantity one level too high suggests the closer nested field.
func TestIssue9NestedSuggestion(t *testing.T) {
	for want, name := range map[string]string{"requests.cpu": "cpuu", "requests.memory": "memroy", "gpu": "gpu_"} {
		if got := suggestField([]string{"sandboxes", "dev", "resources"}, name); got != want {
			t.Errorf("suggestField(resources, %q) = %q, want %q", name, got, want)
		}
	}
}
