package compiler

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/schema"
)

func spec[T any](t *testing.T, d *schema.Desired, addr string) T {
	t.Helper()
	r := d.Lookup(addr)
	if r == nil {
		t.Fatalf("no resource %s", addr)
	}
	var v T
	if err := json.Unmarshal(r.Spec, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestHCLLanguage exercises what HCL users expect: variables with types,
// defaults, validation and sensitivity; -var and -var-file; locals; the
// usual functions; references.
func TestHCLLanguage(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"main.hcl": `
variable "env" {
  type    = string
  default = "dev"
  validation {
    condition     = contains(["dev", "prod"], var.env)
    error_message = "env is dev or prod"
  }
}
variable "replicas" {
  type    = number
  default = 1
}
variable "token" {
  type      = string
  default   = "s3cr3t-canary"
  sensitive = true
}
variable "tags" {
  type    = list(string)
  default = ["a"]
}
locals {
  name    = format("%s-%s", "api", var.env)
  labels  = merge({ team = "docs" }, { env = upper(var.env) })
  parts   = split(",", "x,y,z")
  version = trimspace(file("VERSION"))
}
project = "demo"
image "base" {
  from = "python:3.12-slim"
  env {
    vars = {
      NAME    = local.name
      VERSION = local.version
      SHA     = filesha256("VERSION")
      HAS     = tostring(fileexists("VERSION"))
      JOINED  = join("-", local.parts)
      JSON    = jsonencode(local.labels)
      LEN     = tostring(length(concat(local.parts, var.tags)))
      FIRST   = coalesce("", "first")
      LOOKUP  = lookup(local.labels, "team", "none")
      RE      = replace("a.b.c", ".", "/")
      LOW     = lower("ABC")
      DEC     = jsondecode("{\"k\": \"v\"}").k
    }
  }
}
sandbox "s" {
  image       = image.base
  annotations = local.labels
  env         = { TOKEN = var.token, PLAIN = "x" }
  tags        = var.tags
}
function "f" {
  image   = image.base
  source { paths = ["VERSION"] }
  handler = "m:f"
  scaling {
    min_replicas = var.replicas
    max_replicas = var.replicas * 2
  }
}
`,
		"VERSION":       "1.2.3\n",
		"vars/prod.hcl": `env = "prod"` + "\n" + `tags = ["b", "c"]` + "\n",
	})
	d := compileOK(t, dir, Input{})
	img := spec[schema.ImageSpec](t, d, "image.base")
	vars := img.Steps[0].Env.Vars
	want := map[string]string{
		"NAME": "api-dev", "VERSION": "1.2.3", "HAS": "true", "JOINED": "x-y-z",
		"JSON": `{"env":"DEV","team":"docs"}`, "LEN": "4", "FIRST": "first", "LOOKUP": "docs",
		"RE": "a/b/c", "LOW": "abc", "DEC": "v",
		"SHA": "d82f34ae9aa41bc4a0cb529a1ac0898fed09d6b479fb1cc44cb66c34f15ee84d",
	}
	if !cmp.Equal(vars, want) {
		t.Errorf("env vars:\n%s", cmp.Diff(want, vars))
	}
	sb := d.Lookup("sandbox.s")
	if !cmp.Equal(sb.Sensitive, []string{"/env/TOKEN"}) {
		t.Errorf("sandbox.s sensitive = %v, want [/env/TOKEN]", sb.Sensitive)
	}

	// -var-file then -var, in that order of precedence.
	d = compileOK(t, dir, Input{VarFiles: []string{filepath.Join(dir, "vars", "prod.hcl")}, Vars: []string{"replicas=3"}})
	fn := spec[schema.FunctionSpec](t, d, "function.f")
	if fn.Scaling.MinReplicas != 3 || fn.Scaling.MaxReplicas != 6 {
		t.Errorf("scaling = %+v, want 3..6 from -var replicas=3", fn.Scaling)
	}
	sbs := spec[schema.SandboxSpec](t, d, "sandbox.s")
	if sbs.Annotations["env"] != "PROD" || !cmp.Equal(sbs.Tags, []string{"b", "c"}) {
		t.Errorf("annotations %v tags %v, want env=PROD from the var file", sbs.Annotations, sbs.Tags)
	}

	for _, tc := range []struct {
		in   Input
		want string
	}{
		{Input{Vars: []string{"env=staging"}}, `invalid value for variable "env": env is dev or prod`},
		{Input{Vars: []string{"replicas=many"}}, `replicas`},
		{Input{Vars: []string{"regoin=x"}}, `variable "regoin" is not declared`},
		{Input{Vars: []string{"nothing"}}, `want name=value`},
	} {
		tc.in.Path = dir
		_, err := Compile(context.Background(), tc.in)
		var cerr *Error
		if !errors.As(err, &cerr) || !strings.Contains(cerr.Error(), tc.want) {
			t.Errorf("Compile(%v) error = %v, want one containing %q", tc.in.Vars, err, tc.want)
		}
	}
}

// TestCUEModule compiles a CUE package that imports another package of its
// module, with definitions, defaults, comprehensions and constraints.
func TestCUEModule(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"cue.mod/module.cue": "module: \"example.com/demo@v0\"\nlanguage: version: \"v0.12.0\"\n",
		"lib/lib.cue": `package lib

#Python: {
	from: "python:3.12-slim"
	steps: [{pip: packages: ["requests"]}]
}
names: ["a", "b", "c"]
`,
		"main.cue": `package demo

import "example.com/demo/lib"

project: "demo"
images: base: lib.#Python
sandboxes: {
	for n in lib.names {
		"box-\(n)": {
			image: images.base
			lifetime: *"1h" | string
		}
	}
}
sandboxes: "box-c": lifetime: "3h"
`,
		"other.cue": `package demo

volumes: data: size: "1Gi"
`,
	})
	d := compileOK(t, dir, Input{})
	var addrs []string
	for _, r := range d.Resources {
		addrs = append(addrs, r.Address)
	}
	want := []string{"image.base", "sandbox.box-a", "sandbox.box-b", "sandbox.box-c", "volume.data"}
	if !cmp.Equal(addrs, want) {
		t.Fatalf("resources = %v, want %v", addrs, want)
	}
	if got := spec[schema.SandboxSpec](t, d, "sandbox.box-c").Lifetime; got != "3h" {
		t.Errorf("box-c lifetime = %q, want 3h", got)
	}
	if got := spec[schema.SandboxSpec](t, d, "sandbox.box-a").Lifetime; got != "1h" {
		t.Errorf("box-a lifetime = %q, want the default 1h", got)
	}
}

// TestReferencesByContent: a CUE value that is not written as a reference
// (built with &, or through a let) still refers to the declared resource
// it equals; an inline secret equal to none is refused.
func TestReferencesByContent(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.cue": `
project: "demo"
let key = secrets.openai
secrets: openai: from_env: "OPENAI_API_KEY"
sandboxes: a: {
	image: from: "python:3.12-slim"
	env: {KEY: key, OTHER: secrets.openai & {}}
}
`})
	d := compileOK(t, dir, Input{})
	s := spec[schema.SandboxSpec](t, d, "sandbox.a")
	if s.Env["KEY"].Secret == nil || s.Env["KEY"].Secret.Ref != "secret.openai" || s.Env["OTHER"].Secret.Ref != "secret.openai" {
		t.Errorf("env = %+v, want both refer to secret.openai", s.Env)
	}
	dir = writeProject(t, map[string]string{"main.cue": `
project: "demo"
sandboxes: a: {
	image: from: "python:3.12-slim"
	env: KEY: from_env: "X"
}
`})
	_, err := Compile(context.Background(), Input{Path: dir})
	if err == nil || !strings.Contains(err.Error(), "main.cue:5:7: a secret here must be a declared secret of this project") {
		t.Errorf("inline secret: error = %v", err)
	}
}

// TestVarMessagesSpellDoubleDash: issue 12, the command line. The messages
// about --var and --var-file spell the flags as cc's help does.
func TestVarMessagesSpellDoubleDash(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"main.hcl": `project = "p"
variable "region" { type = string }
`,
	})
	for _, tc := range []struct {
		in   Input
		want string
	}{
		{Input{Vars: []string{"nothing"}}, `--var "nothing": want name=value`},
		{Input{}, `set it with --var region=VALUE or in a --var-file`},
		{Input{VarFiles: []string{filepath.Join(dir, "missing.hcl")}}, `--var-file `},
	} {
		tc.in.Path = dir
		_, err := Compile(context.Background(), tc.in)
		var cerr *Error
		if !errors.As(err, &cerr) || !strings.Contains(cerr.Error()+detailsOf(cerr), tc.want) {
			t.Errorf("Compile(%+v) error = %v, want one containing %q", tc.in, err, tc.want)
		}
	}
}

// detailsOf joins the details of an error's diagnostics.
func detailsOf(e *Error) string {
	var b strings.Builder
	for _, d := range e.Diagnostics {
		b.WriteString(d.Detail + "\n")
	}
	return b.String()
}
