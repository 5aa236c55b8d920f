package cc_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDependencyDirection keeps the architecture's arrows pointing one way
// (STYLE.md): each package may import only the project packages listed, and
// diag and schema nothing outside the standard library (but for schema,
// CUE's parser and godotenv).
func TestDependencyDirection(t *testing.T) {
	const mod = "cc.dev/cc/"
	allowed := map[string][]string{
		"diag":     {},
		"schema":   {"diag"},
		"localfs":  {"schema", "diag"},
		"state":    {"schema", "diag"},
		"compiler": {"schema", "diag", "localfs"},
		"planner":  {"schema", "diag", "state", "internal/textdiff"},
		"buildkit": {"schema", "diag", "localfs"},
		"service":  {"schema", "diag", "state"},
		"applier":  {"planner", "schema", "diag", "service", "state", "localfs", "internal/textdiff"},
		// internal/textdiff is a leaf: the line diff of cc fmt --diff
		// and of plans (issue 12).
		"internal/textdiff": {},
		// internal/servicetest: the database of a test's service,
		// SQLite or PostgreSQL (issue 14), failures injected into its
		// calls, alone or batched, and serving it: it needs the service
		// and so what the service needs (issue 13).
		"internal/servicetest": {"service", "schema", "diag", "state"},
	}
	stdOnly := map[string]bool{"diag": true, "schema": true}
	// schema reads the facts in its CUE files' syntax (issue 16 item 1):
	// it may use CUE's parser and what that needs, never CUE's evaluator.
	syntaxOnly := map[string]bool{}
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", "cuelang.org/go/cue/parser").CombinedOutput()
	if err != nil {
		t.Fatalf("go list cuelang.org/go/cue/parser: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		syntaxOnly[dep] = true
	}
	// schema reads env files with godotenv (issue 9 item 12), a parser
	// that itself imports only the standard library, so that the compiler
	// (keys) and the applier (values) read one file one way.
	syntaxOnly["github.com/joho/godotenv"] = true
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
				if stdOnly[pkg] && !(pkg == "schema" && syntaxOnly[dep]) {
					t.Errorf("%s imports %s; it may use the standard library only", pkg, dep)
				}
				continue
			}
			rel := strings.TrimPrefix(dep, mod)
			top, _, _ := strings.Cut(rel, "/")
			if top == "internal" {
				top = rel // each internal package is its own leaf
			}
			if top == pkg || rel == pkg {
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
