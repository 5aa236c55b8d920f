package service_test

import (
	"context"
	"path/filepath"
	"testing"

	"cc.dev/cc/compiler"
	gen "cc.dev/cc/compiler/workload"
	"cc.dev/cc/schema"
)

// TestCompiledSpecsValidate: every spec the compiler makes, of every
// example in both languages and of a generated project, passes the
// server's check (schema.ValidateSpec), so that the server refusing what
// fails it refuses nothing a real config compiles to (issue 8 item 5).
func TestCompiledSpecsValidate(t *testing.T) {
	var paths []string
	for _, lang := range []string{"cue", "hcl"} {
		m, err := filepath.Glob("../examples/*/main." + lang)
		if err != nil || len(m) == 0 {
			t.Fatalf("examples: %v %v", m, err)
		}
		paths = append(paths, m...)
	}
	dir := t.TempDir()
	if err := gen.Write(dir, gen.Options{N: 40}); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(dir, "main.hcl"))
	kinds := map[schema.Kind]int{}
	for _, p := range paths {
		res, err := compiler.Compile(context.Background(), compiler.Input{Path: p})
		if err != nil {
			t.Fatalf("compile %s: %v", p, err)
		}
		for _, r := range res.Desired.Resources {
			kinds[r.Kind]++
			if err := schema.ValidateSpec(r.Kind, r.Spec); err != nil {
				t.Errorf("%s: %s: %v\n%s", p, r.Address, err, r.Spec)
			}
		}
	}
	for _, k := range schema.Kinds {
		if kinds[k] == 0 {
			t.Errorf("no %s compiled: the test checks every kind", k)
		}
	}
}
