package planner_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/diag"
	"cc.dev/cc/internal/golden"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// withLifecycle is r with lc, declared at main.hcl:line:5.
func withLifecycle(r schema.Resource, lc schema.Lifecycle, line int) schema.Resource {
	rng := &diag.Range{File: "main.hcl", Start: diag.Pos{Line: line, Col: 5}, End: diag.Pos{Line: line, Col: 20}}
	lc.Range, lc.Declared = rng, rng.String()
	r.Lifecycle = &lc
	r.Range = &diag.Range{File: "main.hcl", Start: diag.Pos{Line: line - 2, Col: 1}}
	return r
}

func protectedErr(t *testing.T, d *schema.Desired, st *planner.State, o planner.Options) string {
	t.Helper()
	_, err := planner.Diff(d, st, o)
	var pe *planner.ProtectedError
	if !errors.As(err, &pe) {
		t.Fatalf("Diff() = %v, want a *ProtectedError", err)
	}
	return err.Error()
}

// TestPreventDestroyRefusesDestructivePlans: a removal, cc destroy, a
// replacing change and --replace of a protected resource each fail with
// file:line:col and what forces it; a removal is refused by the state's
// record, the declaration being gone (issue 10: lifecycle, acceptance 3).
func TestPreventDestroyRefusesDestructivePlans(t *testing.T) {
	vol := withLifecycle(res(t, "volume.data", map[string]any{"size": "2Gi"}), schema.Lifecycle{PreventDestroy: true}, 4)
	other := res(t, "volume.scratch", map[string]any{"size": "1Gi"})
	st := applied(desired(vol, other), 3)
	st.Resources[0].PreventDestroy, st.Resources[0].PreventDestroyAt = true, "main.hcl:4:5"

	for name, tc := range map[string]struct {
		d    *schema.Desired
		o    planner.Options
		want string
	}{
		"removed": {desired(other), planner.Options{}, "main.hcl:4:5: volume.data is protected by lifecycle.prevent_destroy, and this plan would delete it: it was removed from the configuration"},
		"destroy": {desired(vol, other), planner.Options{Destroy: true}, "main.hcl:4:5: volume.data is protected by lifecycle.prevent_destroy, and this plan would delete it: cc destroy deletes every resource of the project"},
		"replace": {desired(withLifecycle(res(t, "volume.data", map[string]any{"size": "1Gi"}), schema.Lifecycle{PreventDestroy: true}, 7), other), planner.Options{},
			"main.hcl:7:5: volume.data is protected by lifecycle.prevent_destroy, and this plan would replace it: a change of size forces replacement"},
		"--replace": {desired(vol, other), planner.Options{Replace: []string{"volume.data"}}, "main.hcl:4:5: volume.data is protected by lifecycle.prevent_destroy, and this plan would replace it: --replace volume.data was given"},
	} {
		t.Run(name, func(t *testing.T) {
			got := protectedErr(t, tc.d, st, tc.o)
			if !strings.Contains(got, tc.want) {
				t.Errorf("Diff() error =\n%s\nwant it to contain\n%s", got, tc.want)
			}
		})
	}
	// Left out by --target, the protected resource is not deleted: no error.
	if _, err := planner.Diff(desired(), st, planner.Options{Targets: []string{"volume.scratch"}}); err != nil {
		t.Errorf("Diff(--target volume.scratch) = %v, want no error", err)
	}
}

// TestProtectionIsAStateOnlyUpdate: protecting or unprotecting an
// unchanged resource is an update of the state only, with its reason
// (issue 10: lifecycle).
func TestProtectionIsAStateOnlyUpdate(t *testing.T) {
	plain := res(t, "volume.data", map[string]any{"size": "2Gi"})
	prot := withLifecycle(plain, schema.Lifecycle{PreventDestroy: true}, 4)
	st := applied(desired(plain), 3)
	c := change(t, diff(t, desired(prot), st, planner.Options{}), "volume.data")
	if c.Action != planner.Update || c.Lifecycle == nil || c.Lifecycle.Protection != "set" || c.Lifecycle.PreventDestroyAt != "main.hcl:4:5" ||
		c.Reasons[0].Code != planner.ReasonSetting || len(c.Fields) != 0 {
		t.Errorf("protect: change = %+v %+v, want a state-only update setting the protection", c, c.Lifecycle)
	}
	st.Resources[0].PreventDestroy = true
	c = change(t, diff(t, desired(plain), st, planner.Options{}), "volume.data")
	if c.Action != planner.Update || c.Lifecycle == nil || c.Lifecycle.Protection != "removed" || !strings.Contains(reasons(c), "prevent_destroy removed") {
		t.Errorf("unprotect: change = %+v, want a state-only update removing the protection", c)
	}
	if p := diff(t, desired(prot), st, planner.Options{}); p.Changed() {
		t.Errorf("protected as the state says: plan = %v, want no changes", addrs(p))
	}
}

// TestIgnoreChangesKeepsTheServiceValues: the paths of ignore_changes
// take the state's values before diffing (the hash made again), so they
// show no change; a create uses the configuration's (issue 10: lifecycle).
func TestIgnoreChangesKeepsTheServiceValues(t *testing.T) {
	lc := schema.Lifecycle{IgnoreChanges: []string{"annotations", "env.LOG_LEVEL", "tags"}}
	old := res(t, "sandbox.dev", map[string]any{"image": "sha256:" + strings.Repeat("a", 64), "tags": []any{"x"},
		"env": map[string]any{"LOG_LEVEL": "info"}, "annotations": map[string]any{"team": "a"}})
	st := applied(desired(old), 2)

	same := withLifecycle(res(t, "sandbox.dev", map[string]any{"image": "sha256:" + strings.Repeat("a", 64), "tags": []any{"y"}, "lifetime": "1h"}), lc, 12)
	p := diff(t, desired(same), st, planner.Options{})
	c := change(t, p, "sandbox.dev")
	if c.Action != planner.Update || len(c.Fields) != 1 || c.Fields[0].Path != "lifetime" {
		t.Fatalf("change = %v %+v, want an update of lifetime only", c.Action, c.Fields)
	}
	if c.Lifecycle == nil || strings.Join(c.Lifecycle.Ignored, ",") != "annotations,env.LOG_LEVEL,tags" {
		t.Errorf("Lifecycle = %+v, want annotations, env.LOG_LEVEL and tags ignored", c.Lifecycle)
	}
	want, _, err := schema.HashOf(map[string]any{"image": "sha256:" + strings.Repeat("a", 64), "tags": []any{"x"},
		"env": map[string]any{"LOG_LEVEL": "info"}, "annotations": map[string]any{"team": "a"}, "lifetime": "1h"})
	if err != nil || c.AfterHash != want {
		t.Errorf("AfterHash = %s, want %s (the state's values at the ignored paths)", c.AfterHash, want)
	}
	// The applier makes the same resource from the plan.
	r, _, err := planner.IgnoreChanges(&same, c.Before, nil)
	if err != nil || r.Hash != c.AfterHash {
		t.Errorf("IgnoreChanges(from the plan) = %v, %v; want hash %s", r, err, c.AfterHash)
	}

	only := withLifecycle(res(t, "sandbox.dev", map[string]any{"image": "sha256:" + strings.Repeat("a", 64), "tags": []any{"z"}}), lc, 12)
	if p := diff(t, desired(only), st, planner.Options{}); p.Changed() {
		t.Errorf("only ignored fields differ: plan = %v, want no changes", addrs(p))
	}
	c = change(t, diff(t, desired(only), &planner.State{Project: "p"}, planner.Options{}), "sandbox.dev")
	if c.Action != planner.Create || c.AfterHash != only.Hash {
		t.Errorf("create: %v with hash %s, want a create with the configuration's hash %s", c.Action, c.AfterHash, only.Hash)
	}
	sens := only
	sens.Sensitive = []string{"/tags/0"}
	if _, err := planner.Diff(desired(sens), st, planner.Options{}); err == nil || !strings.Contains(err.Error(), "sensitive") {
		t.Errorf("Diff(ignoring a sensitive value) = %v, want it refused", err)
	}
}

// TestLifecycleGoldenPlans: the text, JSON and Markdown of an
// ignore_changes plan and of a create-before-destroy replace, and the
// error of a protected resource's removal (issue 10: lifecycle).
func TestLifecycleGoldenPlans(t *testing.T) {
	img := "sha256:" + strings.Repeat("a", 64)
	old := res(t, "sandbox.dev", map[string]any{"image": img, "tags": []any{"x"}, "command": []any{"serve"}})
	vol := res(t, "volume.data", map[string]any{"size": "2Gi"})
	st := applied(desired(old, vol), 5)
	st.Resources[1].PreventDestroy, st.Resources[1].PreventDestroyAt = true, "main.hcl:4:5"

	ignoring := withLifecycle(res(t, "sandbox.dev", map[string]any{"image": img, "tags": []any{"y"}, "command": []any{"serve"}, "lifetime": "2h"}),
		schema.Lifecycle{IgnoreChanges: []string{"tags"}}, 12)
	volProt := withLifecycle(vol, schema.Lifecycle{PreventDestroy: true}, 4)
	cbd := withLifecycle(res(t, "sandbox.dev", map[string]any{"image": img, "tags": []any{"x"}, "command": []any{"serve", "--fast"}}),
		schema.Lifecycle{CreateBeforeDestroy: true}, 12)
	for name, d := range map[string]*schema.Desired{
		"ignore-changes":        desired(ignoring, volProt),
		"create-before-destroy": desired(cbd, volProt),
	} {
		for format, out := range renderAll(t, diff(t, d, st, planner.Options{})) {
			if format == "color" {
				continue
			}
			ext := map[string]string{"text": "txt", "json": "json", "markdown": "md"}[format]
			golden.Check(t, filepath.Join("testdata", "lifecycle", name+"."+ext), []byte(out))
		}
	}
	golden.Check(t, filepath.Join("testdata", "lifecycle", "protected-removal.txt"), []byte(protectedErr(t, desired(old), st, planner.Options{})+"\n"))
}

// lifecyclePlanFile is a plan file with a protected volume's create and
// an update of a sandbox that ignores changes of its tags.
func lifecyclePlanFile(t testing.TB) []byte {
	vol := withLifecycle(res(t, "volume.v", map[string]any{"size": "1Gi"}), schema.Lifecycle{PreventDestroy: true}, 4)
	img := "sha256:" + strings.Repeat("a", 64)
	old := res(t, "sandbox.s", map[string]any{"image": img, "tags": []any{"x"}})
	sb := withLifecycle(res(t, "sandbox.s", map[string]any{"image": img, "tags": []any{"y"}, "lifetime": "1h"}), schema.Lifecycle{IgnoreChanges: []string{"tags"}}, 9)
	st := applied(desired(old), 3)
	d := desired(vol, sb)
	f := planner.NewFile(diff(t, d, st, planner.Options{}), d, st, planner.Config{Lang: "hcl"})
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestPlanFileLifecycleChecked: a plan file's lifecycles are untrusted
// input, checked when it is read: the desired state's against the schema,
// each change's against its resource's (issue 10: lifecycle).
func TestPlanFileLifecycleChecked(t *testing.T) {
	good := bytes.NewBuffer(lifecyclePlanFile(t))
	if _, err := planner.ReadFile(good.Bytes()); err != nil {
		t.Fatalf("ReadFile(good) = %v", err)
	}
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, _ := json.Marshal(m)
		return b
	}
	lcOf := func(m map[string]any, i int) map[string]any {
		return m["desired"].(map[string]any)["resources"].([]any)[i].(map[string]any)["lifecycle"].(map[string]any)
	}
	change := func(m map[string]any, addr string) map[string]any {
		for _, c := range m["plan"].(map[string]any)["changes"].([]any) {
			if c := c.(map[string]any); c["address"] == addr {
				return c
			}
		}
		t.Fatalf("no change of %s", addr)
		return nil
	}
	for name, tc := range map[string]struct {
		b    []byte
		want string
	}{
		"unknown path":     {edit(func(m map[string]any) { lcOf(m, 0)["ignore_changes"] = []any{"tagz"} }), `a sandbox has no field "tagz"`},
		"cbd on a volume":  {edit(func(m map[string]any) { lcOf(m, 1)["create_before_destroy"] = true }), "create_before_destroy on a volume"},
		"unprotected plan": {edit(func(m map[string]any) { delete(change(m, "volume.v"), "lifecycle") }), "the desired state protects it"},
		"bad position": {edit(func(m map[string]any) {
			change(m, "volume.v")["lifecycle"].(map[string]any)["prevent_destroy_at"] = "x\ny:1:1"
		}), "bad prevent_destroy_at"},
		"ignored unknown": {edit(func(m map[string]any) {
			change(m, "sandbox.s")["lifecycle"].(map[string]any)["ignored"] = []any{"lifetime"}
		}), `ignored "lifetime" is not in its lifecycle.ignore_changes`},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := planner.ReadFile(tc.b); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ReadFile() = %v, want an error with %q", err, tc.want)
			}
		})
	}
}
