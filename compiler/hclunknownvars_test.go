package compiler

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// unknownVarsProject has required variables of several types used in
// checked fields, a validation rule and a sensitive one.
const unknownVarsProject = `
project = "demo-${var.stage}"
variable "stage" { type = string }
variable "cpu" { type = string }
variable "ports" { type = list(number) }
variable "n" {
  type = number
  validation {
    condition     = var.n > 0
    error_message = "at least one"
  }
}
variable "token" {
  type      = string
  sensitive = true
}
image "app" { from = "python:${var.stage}-slim" }
sandbox "dev" {
  image   = image.app
  command = ["serve", "${var.n}"]
  env     = { TOKEN = var.token }
  resources {
    requests { cpu = var.cpu }
  }
}
`

// TestUnknownVariablesValidate: issue 12: validate without required
// variables. With Input.UnknownVariables an unset variable is unknown and
// the checks that meet it are skipped; without it (plan, apply, compile)
// each is still an error.
func TestUnknownVariablesValidate(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": unknownVarsProject})
	if _, err := Compile(context.Background(), Input{Path: dir, UnknownVariables: true}); err != nil {
		t.Fatalf("with UnknownVariables: %v", err)
	}
	_, err := Compile(context.Background(), Input{Path: dir})
	var cerr *Error
	if !errors.As(err, &cerr) {
		t.Fatalf("without UnknownVariables: %v, want diagnostics", err)
	}
	for _, name := range []string{"stage", "cpu", "ports", "n", "token"} {
		if !strings.Contains(err.Error(), `no value for required variable "`+name+`"`) {
			t.Errorf("without UnknownVariables, no error for %s:\n%v", name, err)
		}
	}
}

// TestUnknownVariablesKeepOtherErrors: issue 12: skipping a check of an
// unknown value leaves every other error, and a known value's checks
// (and validation rules), in place.
func TestUnknownVariablesKeepOtherErrors(t *testing.T) {
	bad := strings.Replace(unknownVarsProject, `command = [`, `comand = [`, 1)
	dir := writeProject(t, map[string]string{"main.hcl": bad})
	_, err := Compile(context.Background(), Input{Path: dir, UnknownVariables: true})
	if err == nil || !strings.Contains(err.Error(), `unknown attribute "comand"`) || strings.Contains(err.Error(), "cpu") {
		t.Errorf("got %v, want only the misspelt attribute", err)
	}
	dir = writeProject(t, map[string]string{"main.hcl": unknownVarsProject})
	for v, want := range map[string]string{"n=0": `invalid value for variable "n": at least one`, "cpu=lots": `cpu: invalid value "lots"`} {
		_, err = Compile(context.Background(), Input{Path: dir, UnknownVariables: true, Vars: []string{v}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--var %s: got %v, want %s", v, err, want)
		}
	}
}

// TestPlaceholder: an unknown value's placeholder is a known value of its
// type, and a marked unknown stays marked.
func TestPlaceholder(t *testing.T) {
	ty := cty.Object(map[string]cty.Type{"s": cty.String, "n": cty.Number, "l": cty.List(cty.String)})
	v := placeholder(cty.UnknownVal(ty))
	if !v.IsWhollyKnown() || !v.Type().Equals(ty) {
		t.Errorf("placeholder = %#v, want a known %s", v, ty.FriendlyName())
	}
	if m := placeholder(cty.UnknownVal(cty.String).Mark(sensitiveMark)); !m.IsKnown() || !m.HasMark(sensitiveMark) {
		t.Errorf("placeholder of a sensitive unknown = %#v, want it known and marked", m)
	}
}
