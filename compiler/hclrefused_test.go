package compiler

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/diag"
)

// TestHCLErrorsLoadOnce checks that a configuration with an error loads
// once although the loader let go of values (hclrelease.go; issue 13: a
// typo in a large project cost a second evaluation): CUE judges only what
// the fast check did not accept, and those values are kept, by the
// collector (refused) or by the loader (past an evaluation error). Its
// diagnostics are those of a compile keeping every value. A load that
// needs a value neither kept (the fast way stopped: a default set that
// does not exist) still runs again, with the same diagnostics.
func TestHCLErrorsLoadOnce(t *testing.T) {
	defer func(c bool) { crossCheck = c }(crossCheck)
	crossCheck = false
	for _, tc := range []struct {
		name  string
		src   string
		loads int
	}{
		{"a misspelt attribute after dropped values", `project = "typo"
volume "a" { size = "1Gi" }
sandbox "one" {
  image   = { from = "python:3.12-slim" }
  command = ["sleep", "infinity"]
}
sandbox "two" {
  image  = { from = "python:3.12-slim" }
  comand = ["sleep", "infinity"]
}
sandbox "three" {
  image   = { from = "python:3.12-slim" }
  command = ["sleep", "infinity"]
}
`, 1},
		{"a value of the wrong type after dropped values", `project = "types"
volume "a" { size = "1Gi" }
volume "b" { size = 7 }
volume "c" { size = "2Gi" }
sandbox "one" {
  image   = { from = "python:3.12-slim" }
  command = ["sleep", "infinity"]
}
`, 1},
		{"two refused resources among dropped values", `project = "two"
sandbox "one" {
  image   = { from = "python:3.12-slim" }
  command = "sleep"
}
sandbox "two" {
  image   = { from = "python:3.12-slim" }
  command = ["sleep", "infinity"]
}
volume "b" { size = true }
`, 1},
		{"a default set that does not exist stops the fast way", `project = "sets"
defaults "gpu" {
  sandbox {
    image = { from = "python:3.12-slim" }
  }
}
sandbox "one" {
  image   = { from = "python:3.12-slim" }
  command = ["sleep", "infinity"]
}
sandbox "two" {
  use_defaults = ["gpx"]
}
`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.cc.hcl": tc.src})
			kept := keptDiagnostics(t, dir)
			loads, dropped := 0, 0
			afterEvaluate = func(l *hclLoader) {
				if l.scope == nil {
					loads++
					dropped += l.dropped
				}
			}
			defer func() { afterEvaluate = nil }()
			_, err := Compile(context.Background(), Input{Path: dir})
			sameAsKept(t, kept, err)
			if dropped == 0 {
				t.Fatalf("no value was dropped: the case tests nothing")
			}
			if loads != tc.loads {
				t.Errorf("%d loads; want %d (%v)", loads, tc.loads, err)
			}
		})
	}
}

// TestHCLFastCheckPastAnError checks that past an evaluation error the
// resources whose own evaluation is clean still go to the fast check, so
// that CUE judges only the others: a misspelt field in a defaults block,
// evaluated before every resource, sent all of them to CUE (8 s for the
// 10,000-resource project). The diagnostics are those of a compile
// keeping every value.
func TestHCLFastCheckPastAnError(t *testing.T) {
	defer func(c bool) { crossCheck = c }(crossCheck)
	crossCheck = false
	dir := writeProject(t, map[string]string{"main.cc.hcl": `project = "past"
defaults {
  sandbox {
    timeout = "1h"
  }
}
volume "a" { size = "1Gi" }
volume "b" { size = 7 }
sandbox "one" {
  image   = { from = "python:3.12-slim" }
  command = ["sleep", "infinity"]
}
sandbox "two" {
  image  = { from = "python:3.12-slim" }
  comand = ["sleep", "infinity"]
}
`})
	kept := keptDiagnostics(t, dir)
	var refused []string
	afterFastCheck = func(l *hclLoader) {
		for _, n := range []string{"a", "b"} {
			if l.refused("volumes", n) {
				refused = append(refused, "volume."+n)
			}
		}
		for _, n := range []string{"one", "two"} {
			if l.refused("sandboxes", n) {
				refused = append(refused, "sandbox."+n)
			}
		}
	}
	defer func() { afterFastCheck = nil }()
	_, err := Compile(context.Background(), Input{Path: dir})
	sameAsKept(t, kept, err)
	// volume.a is the fast check's; volume.b is of the wrong type, and
	// the sandboxes take the misspelt default (field not allowed).
	if want := []string{"volume.b", "sandbox.one", "sandbox.two"}; !slices.Equal(refused, want) {
		t.Errorf("left to CUE: %v; want %v (%v)", refused, want, err)
	}
	for _, w := range []string{`unknown field "timeout" in sandbox defaults`, `size: wrong type`, `unknown attribute "comand"`} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %v; want %q", err, w)
		}
	}
}

// keptDiagnostics compiles dir keeping every body and value
// (keepEverything), which must fail, and returns its diagnostics.
func keptDiagnostics(t *testing.T, dir string) diag.Diagnostics {
	t.Helper()
	keepEverything = true
	defer func() { keepEverything = false }()
	_, err := Compile(context.Background(), Input{Path: dir})
	var ke *Error
	if !errors.As(err, &ke) {
		t.Fatalf("kept everything: %v; want diagnostics", err)
	}
	return ke.Diagnostics
}

// sameAsKept checks that err, of a compile letting go, has the
// diagnostics kept of a compile keeping everything.
func sameAsKept(t *testing.T, kept diag.Diagnostics, err error) {
	t.Helper()
	var ge *Error
	if !errors.As(err, &ge) {
		t.Fatalf("let go: %v; want diagnostics", err)
	}
	if d := cmp.Diff(kept, ge.Diagnostics); d != "" {
		t.Errorf("diagnostics differ from a compile keeping every value:\n%s", d)
	}
}
