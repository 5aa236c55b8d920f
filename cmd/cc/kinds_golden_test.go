package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/internal/golden"
)

// TestGoldenPlansContainerTraining: the golden plans, in text, JSON and
// Markdown, of examples/train-and-serve: its first apply (a container and
// a training created), then a change that updates the container in place
// (health check, restart policy) and one that replaces both (a port, and
// a new revision of the dataset the training mounts) (issue 11:
// container, training). go test ./cmd/cc -run TestGoldenPlansContainerTraining
// -update rewrites them.
func TestGoldenPlansContainerTraining(t *testing.T) {
	goldens, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, "../../examples/train-and-serve", dir)
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	const value = "sk-golden-kinds-value"
	t.Setenv("OPENAI_API_KEY", value)
	step := func(name string) {
		t.Helper()
		for _, f := range []struct{ ext, flag string }{{"txt", "--format=text"}, {"json", "--json"}, {"md", "--format=markdown"}} {
			out, _ := mustCC(t, 0, "plan", f.flag, "main.hcl")
			if strings.Contains(out, value) {
				t.Errorf("%s: cc plan %s shows a secret value", name, f.flag)
			}
			golden.Check(t, filepath.Join(goldens, "kinds-"+name+"."+f.ext), []byte(out))
		}
		if out, _ := mustCC(t, 0, "apply", "--auto-approve", "main.hcl"); !strings.Contains(out, "\nApply complete: ") {
			t.Fatalf("%s: apply:\n%s", name, out)
		}
		if out, _ := mustCC(t, 0, "plan", "--detailed-exitcode", "main.hcl"); !strings.HasPrefix(out, "No changes.") {
			t.Fatalf("%s: after apply, plan:\n%s", name, out)
		}
	}
	step("first-apply")
	edit(t, "main.hcl", `interval  = "15s"`, `interval  = "30s"`)
	edit(t, "main.hcl", `restart_policy = "always"`, `restart_policy = "on_failure"`)
	step("in-place")
	edit(t, "main.hcl", `port { port = 8080 }`, "port { port = 8080 }\n  port {\n    port     = 5353\n    protocol = \"udp\"\n  }")
	csv, err := os.ReadFile("data/goldens.csv")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("data/goldens.csv", append(csv, "Do you ship abroad?,We ship to 40 countries.\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	step("replaced")
}
