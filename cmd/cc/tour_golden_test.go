package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"cc.dev/cc/internal/golden"
)

// TestGoldenPlansPlatformTour is issue 11's acceptance 1 and 6: the text,
// JSON and Markdown plans of examples/platform-tour (every kind and field
// group of both SDK documents) against its golden files, from HCL and CUE
// alike; applied from one language, the other plans "No changes"; then a
// change of the scaling group plans its new revision and a change of an
// evaluation's title an update in place.
func TestGoldenPlansPlatformTour(t *testing.T) {
	goldens, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, "../../examples/platform-tour", dir)
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	const value = "sk-golden-tour-value"
	t.Setenv("OPENAI_API_KEY", value)
	plans := func(name string) {
		t.Helper()
		for _, f := range []struct{ ext, flag string }{{"txt", "--format=text"}, {"json", "--json"}, {"md", "--format=markdown"}} {
			out, _ := mustCC(t, 0, "plan", f.flag, "main.hcl")
			if strings.Contains(out, value) {
				t.Errorf("%s: cc plan %s shows a secret value", name, f.flag)
			}
			golden.Check(t, filepath.Join(goldens, "tour-"+name+"."+f.ext), []byte(out))
			// The same plan from CUE, but where each change is written
			// (which JSON gives as line, column and byte).
			if f.ext == "json" {
				continue
			}
			if cue, _ := mustCC(t, 0, "plan", f.flag, "main.cue"); position.ReplaceAllString(cue, "POS") != position.ReplaceAllString(out, "POS") {
				t.Errorf("%s: cc plan %s of main.cue differs from main.hcl's:\n%s", name, f.flag, cue)
			}
		}
	}
	plans("first-apply")
	if out, _ := mustCC(t, 0, "apply", "--auto-approve", "main.hcl"); !strings.Contains(out, "\nApply complete: 36 created") {
		t.Fatalf("apply:\n%s", out)
	}
	if out, _ := mustCC(t, 0, "plan", "--detailed-exitcode", "main.cue"); !strings.HasPrefix(out, "No changes.") {
		t.Fatalf("after apply, plan of main.cue:\n%s", out)
	}
	edit(t, "main.hcl", "target_concurrency = 20", "target_concurrency = 40")
	edit(t, "main.cue", "target_concurrency: 20}", "target_concurrency: 40}")
	edit(t, "main.hcl", `title    = "Customer Support Chatbot"`, `title    = "Customer Support Bot"`)
	edit(t, "main.cue", `title:   "Customer Support Chatbot"`, `title:   "Customer Support Bot"`)
	plans("changed")
}

// position is where a configuration says something, main.hcl:12:3.
var position = regexp.MustCompile(`main\.(hcl|cue):\d+:\d+`)
