package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/internal/golden"
)

// TestIssue11BuildPrintBuiltinSandbox: issue 11: image shorthands
// (acceptance 6b). cc build --print of the built-in sandbox image, which a
// sandbox without an image runs, prints the same Dockerfile from CUE and
// HCL (golden build-print-sandbox.Dockerfile): git, ca-certificates and
// OpenSSH installed on python:3.14-slim-trixie, WORKDIR /workspace.
func TestIssue11BuildPrintBuiltinSandbox(t *testing.T) {
	var outs []string
	for file, src := range map[string]string{
		"main.cue": "project: \"p\"\nsandboxes: dev: {}\n",
		"main.hcl": "project = \"p\"\nsandbox \"dev\" {}\n",
	} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, file), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := mustCC(t, exitOK, "build", "--print", dir, "image.sandbox")
		outs = append(outs, out)
	}
	if outs[0] != outs[1] {
		t.Fatalf("CUE and HCL print differently:\n%s\n%s", outs[0], outs[1])
	}
	golden.Check(t, filepath.Join("testdata", "golden", "build-print-sandbox.Dockerfile"), []byte(outs[0]))
	for _, want := range []string{
		"FROM --platform=$CC_PLATFORM python:3.14-slim-trixie\n",
		"apt-get install -y --no-install-recommends git ca-certificates openssh-client ",
		"\nWORKDIR /workspace\n",
	} {
		if !strings.Contains(outs[0], want) {
			t.Errorf("cc build --print lacks %q:\n%s", want, outs[0])
		}
	}
}
