package applier_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// issue 12: the library meets environments and outputs. A program that
// embeds cc, without cmd/cc, compiles for an environment (Input.Env, its
// env file), scopes the desired state with schema.Scope, and applies: the
// outputs are the environment's, stored in its scope only.
func TestIssue12MeetsLibraryEnvironmentOutputs(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("main.cc.hcl", `project = "lib"
variable "size" {
  type    = string
  default = "1Gi"
}
volume "cache" {
  size = var.size
}
output "where" {
  value = "${env.name}:${var.size}"
}
`)
	write("env/prod.ccvars.hcl", `size = "20Gi"`+"\n")
	res, err := compiler.Compile(ctx, compiler.Input{Path: dir, Env: "prod"})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Desired
	d.Project = schema.Scope(d.Project, "prod")
	client, closeService, err := service.OpenEmbedded(ctx, filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer closeService()
	a, err := applier.New(client)
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := a.Plan(ctx, d, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lk, err := a.Lock(ctx, d.Project)
	if err != nil {
		t.Fatal(err)
	}
	r := a.Apply(ctx, lk, p, d)
	if err := lk.Release(); err != nil {
		t.Fatal(err)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if len(r.Outputs) != 1 || string(r.Outputs[0].Value) != `"prod:20Gi"` {
		t.Fatalf("Apply outputs = %+v, want where = \"prod:20Gi\"", r.Outputs)
	}
	prod, err := client.GetState(ctx, "lib/prod")
	if err != nil || len(prod.Outputs) != 1 || string(prod.Outputs[0].Value) != `"prod:20Gi"` {
		t.Fatalf("GetState(lib/prod) outputs = %+v, %v", prod.Outputs, err)
	}
	def, err := client.GetState(ctx, "lib")
	if err != nil || len(def.Outputs) != 0 || len(def.Resources) != 0 {
		t.Fatalf("GetState(lib) = %+v, %v; want nothing in the default environment", def, err)
	}
}
