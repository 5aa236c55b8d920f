package cc_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirection keeps the architecture's arrows pointing one way
// (STYLE.md): each package may import only the project packages listed, and
// diag and schema nothing outside the standard library.
func TestDependencyDirection(t *testing.T) {
	const mod = "cc.dev/cc/"
	allowed := map[string][]string{
		"diag":     {},
		"schema":   {"diag"},
		"state":    {"schema", "diag"},
		"compiler": {"schema", "diag"},
		"planner":  {"schema", "diag", "state"},
		"buildkit": {"schema", "diag"},
		"service":  {"schema", "diag", "state"},
		"applier":  {"planner", "schema", "diag", "service", "state"},
	}
	stdOnly := map[string]bool{"diag": true, "schema": true}
	for pkg, ok := range allowed {
		out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "./"+pkg+"/...").CombinedOutput()
		if err != nil {
			if strings.Contains(string(out), "matched no packages") || strings.Contains(string(out), "no such file or directory") {
				continue // not written yet
			}
			t.Fatalf("go list %s: %v\n%s", pkg, err, out)
		}
		for _, dep := range strings.Fields(string(out)) {
			if !strings.HasPrefix(dep, mod) {
				if stdOnly[pkg] {
					t.Errorf("%s imports %s; it may use the standard library only", pkg, dep)
				}
				continue
			}
			rel := strings.TrimPrefix(dep, mod)
			top, _, _ := strings.Cut(rel, "/")
			if top == pkg {
				continue
			}
			if !contains(ok, top) {
				t.Errorf("%s imports %s; it may import only %v", pkg, dep, ok)
			}
		}
	}
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
