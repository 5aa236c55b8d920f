package compiler

import (
	"context"
	"strings"
	"testing"
)

// meetsModule is a module whose for_each and count depend on its
// variable, with an output of a whole for_each resource.
const meetsModule = `
variable "regions" { type = set(string) }
volume "cache" {
  for_each = var.regions
  size     = "1Gi"
}
sandbox "web" {
  count = length(var.regions)
  image = "python:3.12-slim"
  env   = { I = tostring(count.index) }
}
output "caches" { value = volume.cache }
`

// meetsRoot passes a required variable to the module and repeats a
// resource over the module's output.
const meetsRoot = `
project = "mx"
variable "regions" { type = set(string) }
module "api" {
  source  = "./modules/svc"
  regions = var.regions
}
sandbox "client" {
  for_each = module.api.caches
  image    = "python:3.12-slim"
  env      = { CACHE = each.key }
  volume_mount {
    volume = each.value
    path   = "/cache"
  }
}
output "n" { value = length(module.api.caches) }
`

// TestIssue12MeetsUnknownForEach: issue 12: validate with unknown
// variables meets for_each, count, modules and outputs. A for_each or
// count that depends on an unset variable (in the root, in a module, over
// a module output) validates, as does an output of such a value; plan
// (no UnknownVariables) still wants the variable.
func TestIssue12MeetsUnknownForEach(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": meetsRoot, "modules/svc/main.hcl": meetsModule})
	if _, err := Compile(context.Background(), Input{Path: dir, UnknownVariables: true}); err != nil {
		t.Fatalf("with UnknownVariables: %v", err)
	}
	_, err := Compile(context.Background(), Input{Path: dir})
	if err == nil || !strings.Contains(err.Error(), `no value for required variable "regions"`) {
		t.Fatalf("without UnknownVariables: %v, want the missing variable", err)
	}
}

// TestIssue12MeetsUnknownForEachBodyChecked: issue 12: the body of a
// block whose for_each or count is unknown is still checked once, in
// the root and in a module, with positions in the right file.
func TestIssue12MeetsUnknownForEachBodyChecked(t *testing.T) {
	mod := strings.Replace(meetsModule, `size     = "1Gi"`, "size = \"1Gi\"\n  sizee = 2", 1)
	root := strings.Replace(meetsRoot, `path   = "/cache"`, `path   = 3`, 1)
	dir := writeProject(t, map[string]string{"main.hcl": root, "modules/svc/main.hcl": mod})
	_, err := Compile(context.Background(), Input{Path: dir, UnknownVariables: true})
	if err == nil {
		t.Fatal("no error, want the body's errors")
	}
	for _, want := range []string{`modules/svc/main.hcl:6:3: unknown attribute "sizee"`, `main.hcl:14:14: path: wrong type`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no %q in:\n%v", want, err)
		}
	}
}

// TestIssue12MeetsOutputOfResource: issue 12: outputs meet instances and
// modules. An output of a resource, of a whole for_each resource or of a
// module output made of one holds the resources' attributes, never cc's
// internal "$id".
func TestIssue12MeetsOutputOfResource(t *testing.T) {
	root := `
project = "mo"
module "api" {
  source  = "./modules/svc"
  regions = ["a", "b"]
}
volume "one" { size = "1Gi" }
output "one" { value = volume.one }
output "caches" { value = module.api.caches }
`
	dir := writeProject(t, map[string]string{"main.hcl": root, "modules/svc/main.hcl": meetsModule})
	res, err := Compile(context.Background(), Input{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"one":    `{"size":"1Gi"}`,
		"caches": `{"a":{"size":"1Gi"},"b":{"size":"1Gi"}}`,
	}
	got := map[string]string{}
	for _, o := range res.Desired.Outputs {
		got[o.Name] = string(o.Value)
	}
	for name, w := range want {
		if got[name] != w {
			t.Errorf("output %s = %s, want %s", name, got[name], w)
		}
	}
}

// TestIssue12MeetsInstancePathsInModule: issue 12: for_each and count
// meet modules. The local paths of a repeated resource inside a module
// are relative to the module's directory, as a single resource's are.
func TestIssue12MeetsInstancePathsInModule(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"main.hcl":            "project = \"p\"\nmodule \"a\" { source = \"./modules/fn\" }\n",
		"modules/fn/app/h.py": "def h(): pass\n",
		"modules/fn/req.txt":  "requests\n",
		"modules/fn/main.hcl": `image "app" {
  count = 1
  from  = "python:3.12-slim"
  pip_requirements { file = "req.txt" }
  copy {
    src = "app"
    dst = "/app"
  }
}
function "h" {
  for_each = toset(["x"])
  image    = image.app[0]
  handler  = "app.h:h"
  source { paths = ["app"] }
}
`,
	})
	res, err := Compile(context.Background(), Input{Path: dir})
	if err != nil {
		t.Fatalf("Compile() = %v", err)
	}
	app := res.Desired.Lookup("module.a.image.app[0]")
	if app == nil {
		t.Fatalf("no module.a.image.app[0] in %v", res.Desired.Resources)
	}
	for _, want := range []string{`"src":"modules/fn/app"`, `"file":"modules/fn/req.txt"`} {
		if !strings.Contains(string(app.Spec), want) {
			t.Errorf("module.a.image.app[0] spec = %s, want %s", app.Spec, want)
		}
	}
	fn := res.Desired.Lookup(`module.a.function.h["x"]`)
	if fn == nil || !strings.Contains(string(fn.Spec), "modules/fn/app") {
		t.Errorf(`module.a.function.h["x"] = %v, want source paths modules/fn/app`, fn)
	}
}

// TestIssue12MeetsLifecycleModuleInstances: issue 12: moved, removed and
// import meet instances inside modules. They name an instance of a
// module's resource as module.api.volume.cache["b"], as Terraform does.
func TestIssue12MeetsLifecycleModuleInstances(t *testing.T) {
	root := `
project = "ml"
module "api" {
  source  = "./modules/svc"
  regions = ["a"]
}
moved {
  from = module.api.volume.cache["b"]
  to   = module.api.volume.cache["a"]
}
removed {
  from = module.api.volume.cache["c"]
}
import {
  to = module.api.sandbox.web[0]
  id = "web-0"
}
`
	dir := writeProject(t, map[string]string{"main.hcl": root, "modules/svc/main.hcl": meetsModule})
	res, err := Compile(context.Background(), Input{Path: dir})
	if err != nil {
		t.Fatalf("Compile() = %v", err)
	}
	d := res.Desired
	if len(d.Moves) != 1 || d.Moves[0].From != `module.api.volume.cache["b"]` || d.Moves[0].To != `module.api.volume.cache["a"]` {
		t.Errorf("moves = %+v", d.Moves)
	}
	if len(d.Removed) != 1 || d.Removed[0].Address != `module.api.volume.cache["c"]` {
		t.Errorf("removed = %+v", d.Removed)
	}
	if len(d.Imports) != 1 || d.Imports[0].To != `module.api.sandbox.web[0]` {
		t.Errorf("imports = %+v", d.Imports)
	}
}

// TestIssue12MeetsOutputAfterModuleError: issue 12: outputs meet
// modules. An error inside a module is reported once, at its place: a
// root output of that module's output gets no second, misleading "not
// known until apply".
func TestIssue12MeetsOutputAfterModuleError(t *testing.T) {
	mod := strings.Replace(meetsModule, `size     = "1Gi"`, `size     = nosuch.x`, 1)
	root := "project = \"me\"\nmodule \"api\" {\n  source  = \"./modules/svc\"\n  regions = [\"a\"]\n}\noutput \"n\" { value = module.api.caches }\n"
	dir := writeProject(t, map[string]string{"main.hcl": root, "modules/svc/main.hcl": mod})
	_, err := Compile(context.Background(), Input{Path: dir})
	if err == nil || !strings.Contains(err.Error(), "modules/svc/main.hcl:") {
		t.Fatalf("Compile() = %v, want the module's error", err)
	}
	if strings.Contains(err.Error(), "not known until apply") {
		t.Errorf("a second error for the output:\n%v", err)
	}
}
