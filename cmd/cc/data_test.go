package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/internal/golden"
)

// dataFixture copies testdata/plan/data, a project that uses a data
// source of every kind, into a temporary directory, works there, and
// makes the unowned resources its data sources name, as a platform SDK
// would (applyUnowned).
func dataFixture(t *testing.T) {
	t.Helper()
	src, err := filepath.Abs("testdata/plan/data")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, src, dir)
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	for _, u := range [][2]string{
		{"volume.build-cache", `{"size":"10Gi"}`},
		{"dataset.build-evals", datasetSpec("1")},
		{"function.ranker", `{"image":"sha256:` + strings.Repeat("2", 64) + `","source":{"paths":["src"],"digest":"sha256:` + strings.Repeat("3", 64) + `"},"handler":"rank:run","timeout":"5m","retries":0}`},
		{"secret.openai", "value=sk-golden-data-secret"},
	} {
		unowned(t, u[0], u[1])
	}
}

func datasetSpec(digit string) string {
	return `{"files":[{"path":"evals.csv","digest":"sha256:` + strings.Repeat(digit, 64) + `"}],"format":"csv"}`
}

func unowned(t *testing.T, addr, spec string) {
	t.Helper()
	if err := applyUnowned(context.Background(), filepath.Join(stateDir, "state.db"), addr, spec); err != nil {
		t.Fatalf("unowned %s: %v", addr, err)
	}
}

// TestIssue10DataGoldenPlans: the text, JSON and Markdown plans of a
// project with data sources (issue 10, acceptance 8 for data): its first
// apply, and the plan after the dataset got a new revision on the
// service, which updates the evaluation with reason data. The CUE form of
// the project plans the same, but for the configuration positions.
func TestIssue10DataGoldenPlans(t *testing.T) {
	goldens, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	dataFixture(t)
	step := func(name string) {
		t.Helper()
		for _, f := range []struct{ ext, flag string }{{"txt", "--format=text"}, {"json", "--json"}, {"md", "--format=markdown"}} {
			out, _ := mustCC(t, 0, "plan", f.flag, "main.hcl")
			if strings.Contains(out, "sk-golden-data-secret") {
				t.Errorf("%s: cc plan %s shows the secret's value", name, f.flag)
			}
			golden.Check(t, filepath.Join(goldens, name+"."+f.ext), []byte(out))
		}
		h, _ := mustCC(t, 0, "plan", "--json", "main.hcl")
		c, _ := mustCC(t, 0, "plan", "--json", "main.cue")
		if diff := cmp.Diff(withoutRanges(t, h), withoutRanges(t, c)); diff != "" {
			t.Errorf("%s: the HCL and CUE plans differ (-HCL +CUE):\n%s", name, diff)
		}
		mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	}
	step("data-first-apply")
	unowned(t, "dataset.build-evals", datasetSpec("4"))
	step("data-new-revision")
}

// withoutRanges is a JSON plan without its changes' ranges.
func withoutRanges(t *testing.T, plan string) any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(plan), &v); err != nil {
		t.Fatal(err)
	}
	for _, c := range v["changes"].([]any) {
		delete(c.(map[string]any), "range")
	}
	return v
}

// TestIssue10DataNoOpOneRead: a no-op plan of a project with data sources
// resolves them in its one state read (issue 10, acceptance 9 for data),
// in either language.
func TestIssue10DataNoOpOneRead(t *testing.T) {
	dataFixture(t)
	c := &counter{}
	withServerOptions(t, c.options()...)
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	c.take()
	for _, args := range [][]string{{"plan", "main.hcl"}, {"plan", "main.cue"}, {"apply", "--auto-approve", "main.cue"}} {
		out, _ := mustCC(t, 0, args...)
		if calls := c.take(); !cmp.Equal(calls, []string{"GetState"}) {
			t.Errorf("cc %s made the calls %v, want [GetState]", strings.Join(args, " "), calls)
		}
		if !strings.Contains(out, "No changes.") || !strings.Contains(out, "  data.dataset.evals: dataset build-evals, revision 1\n") {
			t.Errorf("cc %s:\n%s", strings.Join(args, " "), out)
		}
	}
}
