package compiler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIssue9RepeatedKeyHCL: issue 9 item 7. An HCL object constructor
// that sets a key twice is an error at the second key naming the first,
// in a resource, nested, in a local and through an interpolated key:
// before, HCL kept the last value silently.
func TestIssue9RepeatedKeyHCL(t *testing.T) {
	for name, tc := range map[string]struct{ src, want string }{
		"attribute": {`
sandbox "dev" {
  image { from = "python:3.12-slim" }
  env = { A = "1", B = "2", A = "3" }
}`, `main.hcl:4:29: key "A" is set twice in one object (first at main.hcl:4:11)`},
		"local": {`
locals {
  env = { "A" = "1", A = "1" }
}
sandbox "dev" {
  image { from = "python:3.12-slim" }
  env = local.env
}`, `main.hcl:3:22: key "A" is set twice in one object (first at main.hcl:3:11)`},
		"interpolated": {`
variable "k" { default = "A" }
sandbox "dev" {
  image { from = "python:3.12-slim" }
  env = { A = "1", "${var.k}" = "2" }
}`, `main.hcl:5:20: key "A" is set twice in one object (first at main.hcl:5:11)`},
		"nested": {`
sandbox "dev" {
  image { from = "python:3.12-slim" }
  annotations = merge({ x = "1" }, { y = "1", y = "2" })
}`, `main.hcl:4:47: key "y" is set twice in one object (first at main.hcl:4:38)`},
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			src := `project = "demo"` + tc.src + "\n"
			if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Compile(context.Background(), Input{Path: dir})
			var cerr *Error
			if !errors.As(err, &cerr) || len(cerr.Diagnostics) != 1 {
				t.Fatalf("Compile() error = %v, want one diagnostic", err)
			}
			d := cerr.Diagnostics[0]
			if got := strings.ReplaceAll(d.Error(), dir+"/", ""); got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if len(d.Related) != 1 {
				t.Errorf("related = %v, want the first key", d.Related)
			}
		})
	}
	// Distinct keys are fine.
	dir := t.TempDir()
	src := "project = \"demo\"\nsandbox \"dev\" {\n  image { from = \"python:3.12-slim\" }\n  env = { A = \"1\", B = \"2\" }\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Compile(context.Background(), Input{Path: dir}); err != nil {
		t.Errorf("distinct keys: %v", err)
	}
}
