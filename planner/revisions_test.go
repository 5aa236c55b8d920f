package planner_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/internal/golden"
	"cc.dev/cc/planner"
)

// sgSpec is a scaling group's spec with max replicas.
func sgSpec(max int) map[string]any {
	return map[string]any{"image": "sha256:" + strings.Repeat("a", 64), "replicas": map[string]any{"min": 1, "max": max}, "tags": []any{"web"}}
}

// revisionsState is scaling_group.api applied as revisions 1 (max 2) and
// 2 (max 4), with current the current one (a rollback makes it 1).
func revisionsState(t *testing.T, current int64) *planner.State {
	r1, r2 := res(t, "scaling_group.api", sgSpec(2)), res(t, "scaling_group.api", sgSpec(4))
	cur := r1
	if current == 2 {
		cur = r2
	}
	st := applied(desired(cur), 5)
	sr := &st.Resources[0]
	sr.Version = current
	sr.Versions = []planner.Version{{Version: 1, Hash: r1.Hash}, {Version: 2, Hash: r2.Hash}}
	return st
}

// issue 11: scaling groups. A change appends a revision numbered from the
// highest the state has, and the plan says why, with the fields; a change
// back to an earlier revision's content (after a rollback) appends a new
// one too, never reusing it.
func TestScalingGroupNewRevision(t *testing.T) {
	for _, tc := range []struct {
		name     string
		current  int64
		max      int
		number   int64
		phrase   string
		contains []string
	}{
		{"change", 2, 8, 3, "new revision 3 (now 2)", []string{"appends a revision: revision 3 (now 2), for replicas"}},
		{"after rollback", 1, 4, 3, "new revision 3 (now 1)", []string{"revision 2's content and revision 1 is current", "reuses no earlier revision, so this appends revision 3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := diff(t, desired(res(t, "scaling_group.api", sgSpec(tc.max))), revisionsState(t, tc.current), planner.Options{})
			c := change(t, p, "scaling_group.api")
			if c.Action != planner.Update || c.Version == nil || c.Version.Action != "new" || c.Version.Number != tc.number {
				t.Fatalf("change %v version %+v, want an update to new revision %d", c.Action, c.Version, tc.number)
			}
			if got := planner.ActionPhrase(c); got != tc.phrase {
				t.Errorf("ActionPhrase = %q, want %q", got, tc.phrase)
			}
			codes := map[string]bool{}
			for _, r := range c.Reasons {
				codes[r.Code] = true
			}
			if !codes[planner.ReasonNewRevision] {
				t.Errorf("no %s reason in %q", planner.ReasonNewRevision, reasons(c))
			}
			for _, want := range tc.contains {
				if !strings.Contains(reasons(c), want) {
					t.Errorf("reasons %q lack %q", reasons(c), want)
				}
			}
		})
	}
}

// issue 11: scaling groups. An unchanged scaling group plans no change and
// no revision, even with earlier revisions in the state.
func TestScalingGroupUnchangedNoRevision(t *testing.T) {
	p := diff(t, desired(res(t, "scaling_group.api", sgSpec(4))), revisionsState(t, 2), planner.Options{})
	if p.Changed() {
		t.Fatalf("an unchanged scaling group plans %v", addrs(p))
	}
}

// issue 11: scaling groups. --new-version is refused for a scaling group,
// saying every change appends a revision.
func TestScalingGroupNewVersionRefused(t *testing.T) {
	_, err := planner.Diff(desired(res(t, "scaling_group.api", sgSpec(4))), revisionsState(t, 2), planner.Options{NewVersion: []string{"scaling_group.api"}})
	if err == nil || !strings.Contains(err.Error(), "appends a revision for every change") {
		t.Fatalf("Diff(--new-version scaling_group.api) = %v", err)
	}
}

// issue 11: scaling groups. The golden plans of a change after a rollback
// and of a create, in text, JSON and Markdown (go test ./planner -run
// TestGoldenScalingGroupRevision -update rewrites them).
func TestGoldenScalingGroupRevision(t *testing.T) {
	p := diff(t, desired(res(t, "scaling_group.api", sgSpec(4)), res(t, "scaling_group.web", sgSpec(1))), revisionsState(t, 1), planner.Options{})
	out := renderAll(t, p)
	golden.Check(t, filepath.Join("testdata", "scaling-group-revision.txt"), []byte(out["text"]))
	golden.Check(t, filepath.Join("testdata", "scaling-group-revision.json"), []byte(out["json"]))
	golden.Check(t, filepath.Join("testdata", "scaling-group-revision.md"), []byte(out["markdown"]))
	if got := planner.ActionPhrase(change(t, p, "scaling_group.web")); got != "create, revision 1" {
		t.Errorf("create: %q, want create, revision 1", got)
	}
}

// issue 11: scaling groups. A scaling group using a secret kept outside cc
// is named in the plan's warning, with --replace to pick up a new value.
func TestScalingGroupExternalSecretWarned(t *testing.T) {
	vault := res(t, "secret.vault", map[string]any{"from_service": "vault-token"})
	spec := sgSpec(2)
	spec["env_from"] = []any{map[string]any{"ref": "secret.vault", "hash": vault.Hash}}
	d := desired(vault, res(t, "scaling_group.api", spec, "secret.vault"))
	p := diff(t, d, applied(d, 3), planner.Options{})
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "scaling_group.api uses them") ||
		!strings.Contains(p.Warnings[0], "replace a sandbox or a scaling group with --replace ADDR") {
		t.Errorf("warnings %q, want one naming scaling_group.api and --replace", p.Warnings)
	}
}

// issue 11: scaling groups. A plan file carries summary.new_revisions and
// reads back; one whose count is not its changes' is refused.
func TestPlanFileNewRevisions(t *testing.T) {
	d := desired(res(t, "scaling_group.api", sgSpec(8)))
	st := revisionsState(t, 2)
	p := diff(t, d, st, planner.Options{})
	for _, tc := range []struct {
		count int
		ok    bool
	}{{1, true}, {0, false}, {-1, false}, {2, false}} {
		plan := *p
		plan.Summary.NewRevisions = tc.count
		var b bytes.Buffer
		if err := planner.NewFile(&plan, d, st, planner.Config{Lang: "hcl"}).Write(&b); err != nil {
			t.Fatal(err)
		}
		_, err := planner.ReadFile(b.Bytes())
		if tc.ok != (err == nil) || err != nil && !strings.Contains(err.Error(), "summary.new_revisions") {
			t.Errorf("new_revisions %d: ReadFile() = %v", tc.count, err)
		}
	}
}
