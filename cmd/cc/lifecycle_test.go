package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/internal/golden"
)

// TestLifecycleGoldenPlans: the text, JSON and Markdown plans of an
// ignore_changes change and of a create-before-destroy replace, and the
// error of a protected volume's removal, made by cc itself against its
// embedded server, each against its golden file in testdata/golden
// (issue 10: lifecycle).
func TestLifecycleGoldenPlans(t *testing.T) {
	goldens, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	fixture, err := filepath.Abs("testdata/plan/lifecycle")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, fixture, dir)
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	plans := func(name string) {
		t.Helper()
		for _, f := range []struct{ ext, flag string }{{"txt", "--format=text"}, {"json", "--json"}, {"md", "--format=markdown"}} {
			out, _ := mustCC(t, 0, "plan", f.flag, "main.hcl")
			golden.Check(t, filepath.Join(goldens, "lifecycle-"+name+"."+f.ext), []byte(out))
		}
		mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	}

	// The tags and LOG_LEVEL are ignored (LOG_LEVEL would force a
	// replacement); the new lifetime is not.
	edit(t, "main.hcl", `tags    = ["first"]`, `tags    = ["second"]`)
	edit(t, "main.hcl", `env     = { LOG_LEVEL = "info" }`, `env     = { LOG_LEVEL = "debug" }
  lifetime = "2h"`)
	plans("ignore-changes")

	edit(t, "main.hcl", `command = ["serve"]`, `command = ["serve", "--fast"]`)
	plans("create-before-destroy")

	src, err := os.ReadFile("main.hcl")
	if err != nil {
		t.Fatal(err)
	}
	s := string(src)
	s = s[:strings.Index(s, `volume "data"`)] + s[strings.Index(s, `sandbox "dev"`):]
	s = strings.Replace(s, "  volume_mount {\n    volume = volume.data\n    path   = \"/data\"\n  }\n", "", 1)
	if err := os.WriteFile("main.hcl", []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errs := mustCC(t, 1, "plan", "main.hcl")
	golden.Check(t, filepath.Join(goldens, "lifecycle-protected-removal.txt"), []byte(errs))
	_, errs = mustCC(t, 1, "destroy", "--auto-approve", "--allow-data-loss", "main.hcl")
	golden.Check(t, filepath.Join(goldens, "lifecycle-protected-destroy.txt"), []byte(errs))
}
