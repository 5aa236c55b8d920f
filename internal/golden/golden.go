// Package golden compares test output with golden files and rewrites them
// under -update (or CC_UPDATE=1), the one way every test of cc does it
// (STYLE.md, "Golden files"):
//
//	go test ./compiler -run TestExamples -update
//
// rewrites the files, and git diff shows what changed.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files (and testscript cmp files) with what the tests produce")

// Update reports whether the tests should rewrite their golden files
// instead of comparing with them: -update or CC_UPDATE=1. It is only
// meaningful once flags are parsed, inside a test.
func Update() bool {
	return *update || os.Getenv("CC_UPDATE") == "1"
}

// Check compares got with the file at path, or writes got there (making
// its directory) under Update. A difference fails t with a diff and the
// command that rewrites the file.
func Check(t testing.TB, path string, got []byte) {
	t.Helper()
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (%s writes it)", err, rerun(t))
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (-want +got; %s rewrites it if the change is intended):\n%s", path, rerun(t), cmp.Diff(lines(want), lines(got)))
	}
}

// lines splits b after each newline, so a diff names whole lines.
func lines(b []byte) []string {
	return strings.SplitAfter(string(b), "\n")
}

// rerun is the command that runs t's top-level test with -update, from
// the package's directory.
func rerun(t testing.TB) string {
	top, _, _ := strings.Cut(t.Name(), "/")
	return "go test -run '^" + top + "$' -update"
}
