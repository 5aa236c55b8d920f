package compiler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIssue9ImageReferences: issue 9 item 5. References the registry
// grammar (github.com/distribution/reference) accepts compile, in both
// languages: before, a registry with a port was refused. Others get the
// grammar's own message, positioned.
func TestIssue9ImageReferences(t *testing.T) {
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, ref := range []string{
		"python:3.12-slim",
		"localhost:5000/team/app:1.0",
		"localhost:5000/team/app",
		"registry.example.com:8443/org/app:v2",
		"ghcr.io/org/app@" + digest,
		"localhost:5000/app:1.0@" + digest,
		"docker.io/library/python:3.12_rc1",
	} {
		for _, lang := range []string{"cue", "hcl"} {
			if _, err := Compile(context.Background(), Input{Path: imageRefProject(t, lang, ref)}); err != nil {
				t.Errorf("%s: from %q: %v", lang, ref, err)
			}
		}
	}
	for ref, want := range map[string]string{
		"Python:3.12":            "must be lowercase",
		"python:3.12:slim":       "invalid reference format",
		"localhost:5000/app@sha": "invalid reference format",
		"python::3":              "invalid reference format",
	} {
		for _, lang := range []string{"cue", "hcl"} {
			_, err := Compile(context.Background(), Input{Path: imageRefProject(t, lang, ref)})
			var cerr *Error
			if !errors.As(err, &cerr) || len(cerr.Diagnostics) != 1 {
				t.Errorf("%s: from %q: error = %v, want one diagnostic", lang, ref, err)
				continue
			}
			d := cerr.Diagnostics[0]
			if d.Subject == nil || d.Subject.Start.Line != 3 || !strings.Contains(d.Summary, want) || !strings.Contains(d.Summary, ref) {
				t.Errorf("%s: from %q: %s, want line 3 naming the reference and %q", lang, ref, d.Error(), want)
			}
		}
	}
}

func imageRefProject(t *testing.T, lang, ref string) string {
	t.Helper()
	dir := t.TempDir()
	src := "project: \"demo\"\nimages: app: {\n\tfrom: \"" + ref + "\"\n}\n"
	if lang == "hcl" {
		src = "project = \"demo\"\nimage \"app\" {\n  from = \"" + ref + "\"\n}\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "main."+lang), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}
