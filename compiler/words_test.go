package compiler

import (
	"context"
	"errors"
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
