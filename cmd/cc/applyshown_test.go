package main

import (
	"strings"
	"testing"

	"cc.dev/cc/planner"
)

// TestApplyLetsShownFieldsGo: issue 13, aim 6: what apply carries out,
// as text, as --json and from a saved plan, no longer holds the
// field-level changes it showed, and the apply still does all it did
// (and says so) without them.
func TestApplyLetsShownFieldsGo(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/plan/project", dir)
	t.Chdir(dir)
	t.Setenv("CC_SERVER", "")
	t.Setenv("OPENAI_API_KEY", "sk-apply-shown")
	var applied, withFields int
	beforeApply = func(p *planner.Plan) {
		applied += len(p.Changes)
		for _, c := range p.Changes {
			if c.Fields != nil {
				withFields++
			}
		}
	}
	t.Cleanup(func() { beforeApply = nil })

	out, _ := mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	if !strings.Contains(out, "+ ") || !strings.Contains(out, "Apply complete: ") {
		t.Fatalf("the plan or the outcome is not shown:\n%s", out)
	}
	edit(t, "main.hcl", `lifetime = "2h"`, `lifetime = "3h"`)
	out, _ = mustCC(t, 0, "apply", "--json", "--auto-approve", "main.hcl")
	if !strings.Contains(out, "sandbox.dev: plan to update") || !strings.Contains(out, "1 updated") {
		t.Fatalf("--json does not show the update or its outcome:\n%s", out)
	}
	edit(t, "main.hcl", `lifetime = "3h"`, `lifetime = "4h"`)
	mustCC(t, 0, "plan", "--out", "p.plan", "main.hcl")
	out, _ = mustCC(t, 0, "apply", "p.plan")
	if !strings.Contains(out, "1 updated") {
		t.Fatalf("the saved plan's update is not applied:\n%s", out)
	}
	if applied < 3 {
		t.Fatalf("only %d changes were carried out", applied)
	}
	if withFields > 0 {
		t.Errorf("%d of %d changes carried out still held their field-level changes", withFields, applied)
	}
	mustCC(t, 0, "plan", "--detailed-exitcode", "main.hcl")
}
