package compiler

import (
	"context"
	"path/filepath"
	"testing"

	"cc.dev/cc/compiler/workload"
)

// TestEvaluatedResourcesDropTheirSyntax checks that every resource's
// syntax tree is let go once it is evaluated, in the root configuration
// and in modules, and that the ranges recorded from it stay (issue 13:
// memory per resource).
func TestEvaluatedResourcesDropTheirSyntax(t *testing.T) {
	dir := t.TempDir()
	if err := workload.Write(dir, workload.Options{N: 40}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "main.hcl"), "../examples/modules/main.hcl", "../examples/platform-tour/main.hcl"} {
		seen := 0
		afterEvaluate = func(l *hclLoader) {
			for addr, r := range l.resources {
				if r.block == nil {
					continue // a built-in image (issue 11)
				}
				seen++
				if r.block.Body != nil {
					t.Errorf("%s: %s keeps its body after evaluation", path, addr)
				}
				if r.block.DefRange().Filename == "" {
					t.Errorf("%s: %s lost its range", path, addr)
				}
			}
		}
		res, err := Compile(context.Background(), Input{Path: path})
		afterEvaluate = nil
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if seen == 0 || len(res.Desired.Resources) == 0 {
			t.Errorf("%s: no resources evaluated", path)
		}
	}
}
