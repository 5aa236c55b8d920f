package main

import (
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/internal/golden"
)

// TestSandboxFieldsGoldenPlans: issue 11 (sandbox fields, function
// classes). The text, JSON and Markdown plans of a sandbox using the new
// fields and a function class with two methods, each against its golden
// file: the first apply (one version of the class); max_timeout changed
// (in place); a port mapping changed (the sandbox is replaced, and the
// plan says ports forces it).
func TestSandboxFieldsGoldenPlans(t *testing.T) {
	goldens, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	fixture, err := filepath.Abs("testdata/plan/sandbox-fields")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, fixture, dir)
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	t.Setenv("TOKEN", "t0ken-golden")
	step := func(name string) {
		t.Helper()
		for _, f := range []struct{ ext, flag string }{{"txt", "--format=text"}, {"json", "--json"}, {"md", "--format=markdown"}} {
			out, errs := mustCC(t, 0, "plan", f.flag, "main.hcl")
			if errs != "" {
				t.Errorf("%s: cc plan %s wrote to stderr:\n%s", name, f.flag, errs)
			}
			if strings.Contains(out, "t0ken-golden") {
				t.Errorf("%s: cc plan %s shows a secret value", name, f.flag)
			}
			golden.Check(t, filepath.Join(goldens, "sandbox-fields-"+name+"."+f.ext), []byte(out))
		}
		if out, _ := mustCC(t, 0, "apply", "--auto-approve", "main.hcl"); !strings.Contains(out, "\nApply complete: ") {
			t.Fatalf("%s: apply:\n%s", name, out)
		}
	}
	step("first-apply")
	edit(t, "main.hcl", `max_timeout = "600s"`, `max_timeout = "20m"`)
	step("in-place")
	edit(t, "main.hcl", `host_port      = 80`, `host_port      = 81`)
	step("replace")
}
