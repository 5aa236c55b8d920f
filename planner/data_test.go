package planner_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/diag"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/state"
)

// dataDesired is an evaluation on a data source: the dataset build-evals
// the service has, by name, pinned to a revision when pinned > 0.
func dataDesired(t testing.TB, pinned int64) *schema.Desired {
	t.Helper()
	ev := res(t, "evaluation.e", map[string]any{"dataset": map[string]any{"ref": "data.dataset.evals"}, "scorers": []any{}}, "data.dataset.evals")
	d := desired(ev)
	d.Data = []schema.DataSource{{Address: "data.dataset.evals", Kind: schema.KindDataset, Name: "build-evals", Version: pinned,
		Range: &diag.Range{File: "main.hcl", Start: diag.Pos{Line: 3, Col: 16}, End: diag.Pos{Line: 3, Col: 23}}}}
	return d
}

// resolved is st with the data source build-evals resolved to revision
// rev (0: absent).
func resolved(st *planner.State, pinned, rev int64) *planner.State {
	res := state.DataResult{}
	if rev > 0 {
		res = state.DataResult{Found: true, Address: "dataset.build-evals", Hash: digest("rev" + string(rune('0'+rev))), Version: rev}
	}
	st.Data = []state.DataResolved{{DataLookup: state.DataLookup{Kind: schema.KindDataset, Name: "build-evals", Version: pinned}, DataResult: res}}
	return st
}

// TestIssue10DataResolvedAndPinned: the plan lists each data source as
// the state read resolved it; an absent one is an error at its data block;
// a resource applied with another resolution is updated with reason data,
// and one applied with this one is unchanged (issue 10: data sources).
func TestIssue10DataResolvedAndPinned(t *testing.T) {
	d := dataDesired(t, 0)
	if _, err := planner.Diff(d, resolved(&planner.State{Project: "p"}, 0, 0), planner.Options{}); err == nil ||
		err.Error() != "main.hcl:3:16: data.dataset.evals: the service has no dataset build-evals that no project owns; a data source refers to a resource of project \"-\" by its name (dataset.build-evals); create it there, or declare the dataset in the configuration" {
		t.Fatalf("Diff() with the dataset absent = %v, want the error at the data block", err)
	}
	var ds diag.Diagnostics
	if _, err := planner.Diff(d, &planner.State{Project: "p"}, planner.Options{}); !errors.As(err, &ds) || !strings.Contains(err.Error(), "did not resolve") {
		t.Fatalf("Diff() with a state that did not resolve it = %v", err)
	}
	p := diff(t, d, resolved(&planner.State{Project: "p"}, 0, 3), planner.Options{})
	want := []planner.DataSource{{Address: "data.dataset.evals", Kind: schema.KindDataset, Name: "build-evals", Target: "dataset.build-evals", Version: 3, Hash: digest("rev3")}}
	if diff := cmp.Diff(want, p.Data); diff != "" {
		t.Fatalf("Plan.Data (-want +got):\n%s", diff)
	}
	if got := planner.DataPinsOf(p, d.Lookup("evaluation.e")); !cmp.Equal(got, []state.DataPin{{Address: "data.dataset.evals", Target: "dataset.build-evals", Version: 3, Hash: digest("rev3")}}) {
		t.Fatalf("DataPinsOf() = %v", got)
	}
	// Applied with revision 3: unchanged. With revision 2: an update.
	st := applied(d, 4)
	st.Resources[0].DataPins = planner.DataPinsOf(p, d.Lookup("evaluation.e"))
	if p := diff(t, d, resolved(st, 0, 3), planner.Options{}); p.Changed() {
		t.Fatalf("plan against the same resolution changes %v", addrs(p))
	}
	st.Resources[0].DataPins[0].Version, st.Resources[0].DataPins[0].Hash = 2, digest("rev2")
	p = diff(t, d, resolved(st, 0, 3), planner.Options{})
	c := change(t, p, "evaluation.e")
	if c.Action != planner.Update || len(c.Reasons) != 1 || c.Reasons[0] != (planner.Reason{Code: planner.ReasonData,
		Message: "data.dataset.evals is dataset build-evals, revision 3 now; this was applied with revision 2"}) {
		t.Fatalf("change = %s %+v, want an update with reason data", c.Action, c.Reasons)
	}
	// Applied with another dataset (the data block's name changed).
	st.Resources[0].DataPins[0].Target = "dataset.other"
	c = change(t, diff(t, d, resolved(st, 0, 3), planner.Options{}), "evaluation.e")
	if c.Action != planner.Update || c.Reasons[0].Message != "data.dataset.evals names dataset.build-evals now, not dataset.other" {
		t.Fatalf("change = %s %+v, want an update naming the other target", c.Action, c.Reasons)
	}
	st.Resources[0].DataPins[0].Target = "dataset.build-evals"
	// Pinned: the lookup asks for that revision, and the plan says so.
	pd := dataDesired(t, 2)
	p = diff(t, pd, resolved(st, 2, 2), planner.Options{})
	if len(p.Data) != 1 || !p.Data[0].Pinned || p.Data[0].Version != 2 || p.Changed() {
		t.Fatalf("pinned plan: data %+v, changes %v", p.Data, addrs(p))
	}
	if got := planner.DataLine(p.Data[0]); got != "data.dataset.evals: dataset build-evals, revision 2 (pinned)" {
		t.Errorf("DataLine() = %q", got)
	}
	if got := planner.DataLookups(pd); !cmp.Equal(got, []state.DataLookup{{Kind: schema.KindDataset, Name: "build-evals", Version: 2}}) {
		t.Errorf("DataLookups() = %v", got)
	}
	// A destroy needs no data source.
	if p, err := planner.Diff(d, &planner.State{Project: "p"}, planner.Options{Destroy: true}); err != nil || len(p.Data) != 0 {
		t.Errorf("destroy plan: %v, data %v", err, p.Data)
	}
}

// dataPlanFile is a saved plan of dataDesired, resolved to revision 3.
func dataPlanFile(t testing.TB) ([]byte, *planner.File) {
	t.Helper()
	d := dataDesired(t, 0)
	st := resolved(&planner.State{Project: "p", Lineage: "l1", Serial: 2}, 0, 3)
	p := diff(t, d, st, planner.Options{})
	f := planner.NewFile(p, d, st, planner.Config{File: "main.hcl", Lang: "hcl"})
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), f
}

// TestIssue10PlanFileData: a plan file keeps the data sources and what
// they resolved to; one that says otherwise than its desired state is
// refused when read; cc apply PLANFILE's check refuses it once a data
// source resolves to something else (a new revision), naming it.
func TestIssue10PlanFileData(t *testing.T) {
	good, f := dataPlanFile(t)
	got, err := planner.ReadFile(good)
	if err != nil {
		t.Fatalf("ReadFile() = %v", err)
	}
	if len(got.Desired.Data) != 1 || len(got.Plan.Data) != 1 || got.Config.Fingerprint != f.Config.Fingerprint {
		t.Fatalf("read back: desired data %v, plan data %v", got.Desired.Data, got.Plan.Data)
	}
	if err := got.Check(resolved(&planner.State{Project: "p", Lineage: "l1", Serial: 2}, 0, 3)); err != nil {
		t.Fatalf("Check() against the same resolution = %v", err)
	}
	err = got.Check(resolved(&planner.State{Project: "p", Lineage: "l1", Serial: 2}, 0, 4))
	var me *planner.MismatchError
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "data.dataset.evals is dataset build-evals, revision 4 now; the plan was made with dataset build-evals, revision 3") {
		t.Fatalf("Check() after a new revision = %v, want a mismatch naming data.dataset.evals", err)
	}
	if err := got.Check(resolved(&planner.State{Project: "p", Lineage: "l1", Serial: 2}, 0, 0)); err == nil || !strings.Contains(err.Error(), "no longer has dataset.build-evals") {
		t.Fatalf("Check() with the dataset gone = %v", err)
	}
	if err := got.Check(&planner.State{Project: "p", Lineage: "l1", Serial: 2}); err == nil || !strings.Contains(err.Error(), "not resolved again") {
		t.Fatalf("Check() of a state that did not resolve it = %v", err)
	}
	d2 := dataDesired(t, 2)
	if planner.Fingerprint(d2) == planner.Fingerprint(dataDesired(t, 0)) {
		t.Errorf("the fingerprint does not depend on the data sources")
	}

	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	planData := func(m map[string]any) map[string]any {
		return m["plan"].(map[string]any)["data"].([]any)[0].(map[string]any)
	}
	desiredData := func(m map[string]any) map[string]any {
		return m["desired"].(map[string]any)["data"].([]any)[0].(map[string]any)
	}
	for _, tt := range []struct {
		name string
		b    []byte
		want string
	}{
		{"bad data address", edit(func(m map[string]any) { desiredData(m)["address"] = "data.bucket.x" }), "bad address"},
		{"version of a volume", edit(func(m map[string]any) {
			desiredData(m)["kind"], desiredData(m)["address"], desiredData(m)["version"] = "volume", "data.volume.evals", 2
		}), "version 2"},
		{"other target", edit(func(m map[string]any) { planData(m)["target"] = "dataset.other" }), "the plan resolves"},
		{"pinned but not declared so", edit(func(m map[string]any) { planData(m)["pinned"] = true }), "pinned true"},
		{"bad hash", edit(func(m map[string]any) { planData(m)["hash"] = "md5:1" }), "bad hash"},
		{"missing resolution", edit(func(m map[string]any) { delete(m["plan"].(map[string]any), "data") }), "resolves 0 data sources of the 1"},
		{"undeclared dependency", edit(func(m map[string]any) {
			delete(m["desired"].(map[string]any), "data")
			delete(m["plan"].(map[string]any), "data")
		}), "which the desired state does not declare"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := planner.ReadFile(tt.b); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ReadFile() = %v, want an error with %q", err, tt.want)
			}
		})
	}
}
