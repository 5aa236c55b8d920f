package planner_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// TestItem1DataLossNamedFirst is issue 8 item 1: a plan that deletes or
// replaces data-bearing resources (volumes, datasets, sandboxes with a
// snapshot mount) names them at the top of every view.
func TestItem1DataLossNamedFirst(t *testing.T) {
	img := digest("i")
	st := applied(desired(
		res(t, "volume.cache", map[string]any{"size": "1Gi"}),
		res(t, "dataset.goldens", map[string]any{"path": "g.jsonl", "digest": digest("g")}),
		res(t, "sandbox.snap", map[string]any{"image": img, "snapshot": map[string]any{"mount_path": "/work"}, "command": []any{"a"}}),
		res(t, "sandbox.plain", map[string]any{"image": img}),
		res(t, "volume.kept", map[string]any{"size": "1Gi"}),
	), 5)
	d := desired(
		// --replace of the snapshot sandbox destroys its snapshot.
		res(t, "sandbox.snap", map[string]any{"image": img, "snapshot": map[string]any{"mount_path": "/work"}, "command": []any{"a"}}),
		res(t, "volume.kept", map[string]any{"size": "1Gi"}),
	)
	p := diff(t, d, st, planner.Options{Replace: []string{"sandbox.snap"}})
	want := []string{"dataset.goldens", "sandbox.snap", "volume.cache"}
	if !cmp.Equal(p.DataLoss, want) {
		t.Fatalf("DataLoss = %v, want %v (plan %v)", p.DataLoss, want, addrs(p))
	}
	if p.DeletesAll {
		t.Error("DeletesAll of a plan that keeps volume.kept")
	}
	line := "Data loss: this plan destroys the data of 3 resources: dataset.goldens (delete), sandbox.snap (replace), volume.cache (delete). cc apply carries it out only with --allow-data-loss."
	var text, md, js bytes.Buffer
	planner.WriteText(&text, p, planner.TextOptions{})
	planner.WriteMarkdown(&md, p, planner.MarkdownOptions{})
	planner.WriteJSON(&js, p)
	if first, _, _ := strings.Cut(text.String(), "\n"); first != line {
		t.Errorf("text view starts with %q, want %q", first, line)
	}
	if first, _, _ := strings.Cut(md.String(), "\n"); first != "**"+line+"**" {
		t.Errorf("Markdown view starts with %q", first)
	}
	var doc struct {
		DataLoss   []string `json:"data_loss"`
		DeletesAll bool     `json:"deletes_all"`
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil || !cmp.Equal(doc.DataLoss, want) {
		t.Errorf("JSON data_loss = %v (%v), want %v", doc.DataLoss, err, want)
	}
	if i, j := strings.Index(js.String(), `"data_loss"`), strings.Index(js.String(), `"summary"`); i < 0 || i > j {
		t.Errorf("data_loss is not at the top of the JSON view:\n%s", js.String())
	}

	// Nothing of value: a sandbox without a snapshot, an image.
	p = diff(t, desired(res(t, "volume.cache", map[string]any{"size": "1Gi"}), res(t, "volume.kept", map[string]any{"size": "1Gi"}),
		res(t, "dataset.goldens", map[string]any{"path": "g.jsonl", "digest": digest("g")}),
		res(t, "sandbox.snap", map[string]any{"image": img, "snapshot": map[string]any{"mount_path": "/work"}, "command": []any{"a"}})), st, planner.Options{})
	if len(p.DataLoss) != 0 || p.DeletesAll || !p.Changed() {
		t.Errorf("deleting sandbox.plain: DataLoss %v, DeletesAll %t, changes %v", p.DataLoss, p.DeletesAll, addrs(p))
	}
	text.Reset()
	planner.WriteText(&text, p, planner.TextOptions{})
	if strings.Contains(text.String(), "Data loss") || strings.Contains(text.String(), "every resource") {
		t.Errorf("text view:\n%s", text.String())
	}
}

// TestItem1DeletesAllFirstLine is issue 8 item 1: a plan that deletes
// every resource of the project says so in the first line of every view,
// whether it is cc destroy or a configuration that compiles to nothing.
func TestItem1DeletesAllFirstLine(t *testing.T) {
	st := applied(desired(res(t, "volume.v", map[string]any{"size": "1Gi"}), res(t, "sandbox.s", map[string]any{"image": digest("i")})), 3)
	for _, o := range []planner.Options{{}, {Destroy: true}} {
		p := diff(t, desired(), st, o)
		if !p.DeletesAll {
			t.Fatalf("Destroy %t: DeletesAll false", o.Destroy)
		}
		line := "This plan deletes every resource of project p (2 resources)."
		var text, md, js bytes.Buffer
		planner.WriteText(&text, p, planner.TextOptions{})
		planner.WriteMarkdown(&md, p, planner.MarkdownOptions{})
		planner.WriteJSON(&js, p)
		if first, _, _ := strings.Cut(text.String(), "\n"); first != line {
			t.Errorf("text view starts with %q, want %q", first, line)
		}
		if first, _, _ := strings.Cut(md.String(), "\n"); first != "**"+line+"**" {
			t.Errorf("Markdown view starts with %q", first)
		}
		if !strings.Contains(js.String(), "\"deletes_all\": true,\n  \"data_loss\": [\n    \"volume.v\"\n  ],") {
			t.Errorf("JSON view:\n%s", js.String())
		}
	}
	// An empty project deletes nothing, and says nothing of it.
	if p := diff(t, desired(), applied(desired(), 0), planner.Options{Destroy: true}); p.DeletesAll {
		t.Error("DeletesAll of an empty state")
	}
	// With one resource kept, it is not everything.
	if p := diff(t, desired(res(t, "sandbox.s", map[string]any{"image": digest("i")})), st, planner.Options{}); p.DeletesAll {
		t.Error("DeletesAll of a plan that keeps sandbox.s")
	}
}

// TestItem2PlanFileCheck is issue 8 item 2: a plan file applies only to
// the state it was made against: the same lineage, the same serial, the
// same resources.
func TestItem2PlanFileCheck(t *testing.T) {
	v1 := res(t, "volume.v", map[string]any{"size": "1Gi"})
	v2 := res(t, "volume.v", map[string]any{"size": "2Gi"})
	sb := res(t, "sandbox.s", map[string]any{"image": digest("i")})
	made := applied(desired(v1), 4)
	made.Lineage = "lin-A"
	d := desired(v1, sb)
	f := planner.NewFile(diff(t, d, made, planner.Options{}), d, made, planner.Config{})
	if f.State.Lineage != "lin-A" {
		t.Fatalf("the file's lineage is %q", f.State.Lineage)
	}
	if err := f.Check(made); err != nil {
		t.Fatalf("Check(the same state) = %v", err)
	}
	other := applied(desired(v2), 4)
	other.Lineage = "lin-B"
	sameSerial := applied(desired(v2), 4)
	sameSerial.Lineage = "lin-A"
	moved := applied(desired(v2), 6)
	moved.Lineage = "lin-A"
	noLineage := applied(desired(v1), 4)
	for _, tt := range []struct {
		name string
		st   *planner.State
		want string
	}{
		{"another lineage", other, "the plan was made against project state with lineage lin-A; this service's state has lineage lin-B: it is another server or a recreated project"},
		{"no lineage", noLineage, "with lineage lin-A; this service's state has lineage none"},
		{"same serial, other resources", sameSerial, "project p is at serial 4 as when the plan was made, but its state is not the one the plan was made against (another server, or a rewritten state): volume.v changed"},
		{"serial moved", moved, "project p moved from serial 4 to 6 since the plan was made: volume.v changed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := f.Check(tt.st)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Check() = %v, want %q", err, tt.want)
			}
		})
	}

	// A first plan, against a state never written, applies to an empty
	// state only: never again once the project exists.
	empty := &planner.State{Project: "p"}
	first := planner.NewFile(diff(t, d, empty, planner.Options{}), d, empty, planner.Config{})
	if first.State.Lineage != "" {
		t.Fatalf("first plan's lineage %q", first.State.Lineage)
	}
	for _, st := range []*planner.State{empty, {Project: "p", Lineage: "lin-new"}} {
		if err := first.Check(st); err != nil {
			t.Errorf("Check(empty state, lineage %q) = %v", st.Lineage, err)
		}
	}
	created := applied(d, 2)
	created.Lineage = "lin-new"
	if err := first.Check(created); err == nil || !strings.Contains(err.Error(), "the plan was made against an empty state, before project p was written; its state has been created since (lineage lin-new, serial 2)") {
		t.Errorf("Check(created state) = %v", err)
	}
	created.Lineage = ""
	if err := first.Check(created); err == nil || !strings.Contains(err.Error(), "moved from serial 0 to 2") {
		t.Errorf("Check(created state without lineage) = %v", err)
	}
}

// TestItem2ReadFileRefusesTampering is issue 8 items 1 and 2: what a plan
// file says it does must be what it does, and it must fit the snapshot it
// carries.
func TestItem2ReadFileRefusesTampering(t *testing.T) {
	good, f := samplePlanFile(t)
	if !cmp.Equal(f.Plan.DataLoss, []string{"volume.gone"}) {
		t.Fatalf("sample DataLoss = %v", f.Plan.DataLoss)
	}
	edit := func(fn func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		fn(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	plan := func(m map[string]any) map[string]any { return m["plan"].(map[string]any) }
	snapshot := func(m map[string]any) map[string]any {
		return m["state"].(map[string]any)["resources"].(map[string]any)
	}
	byAddr := func(m map[string]any, a string) map[string]any {
		for _, c := range plan(m)["changes"].([]any) {
			if c := c.(map[string]any); c["address"] == a {
				return c
			}
		}
		t.Fatalf("no change of %s", a)
		return nil
	}
	for _, tt := range []struct {
		name string
		b    []byte
		want string
	}{
		{"data loss hidden", edit(func(m map[string]any) { delete(plan(m), "data_loss") }), "the plan destroys the data of [volume.gone], but says []"},
		{"deletes all claimed", edit(func(m map[string]any) { plan(m)["deletes_all"] = true }), "deletes_all is true, but the plan deletes 1 of the 2 resources"},
		{"delete of nothing", edit(func(m map[string]any) { delete(snapshot(m), "volume.gone") }), "volume.gone: to delete, but the state it was planned against does not have it"},
		{"create of something", edit(func(m map[string]any) { snapshot(m)["volume.v"] = digest("v") }), "volume.v: created, but the state it was planned against has it"},
		{"other before hash", edit(func(m map[string]any) { byAddr(m, "sandbox.s")["before_hash"] = digest("z") }), "sandbox.s: planned from hash"},
		{"bad lineage", edit(func(m map[string]any) { m["state"].(map[string]any)["lineage"] = "a\nb" }), "bad lineage"},
		{"trailing data", append(append([]byte{}, good...), []byte(`{"kind":"cc-plan"}`)...), "after top-level value"},
		{"too large", oversize(good), "a plan file has at most"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := planner.ReadFile(tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ReadFile() = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

// TestItem1DataLossLineBounded: a plan deleting many volumes names the
// first 20 at the top of the text and Markdown views, and JSON all of them.
func TestItem1DataLossLineBounded(t *testing.T) {
	var rs []schema.Resource
	for i := 0; i < 30; i++ {
		rs = append(rs, res(t, fmt.Sprintf("volume.v%02d", i), map[string]any{"size": "1Gi"}))
	}
	p := diff(t, desired(), applied(desired(rs...), 1), planner.Options{})
	if len(p.DataLoss) != 30 {
		t.Fatalf("DataLoss has %d", len(p.DataLoss))
	}
	line := planner.DataLossLine(p)
	if !strings.Contains(line, "volume.v19 (delete) and 10 more (the JSON view lists them all)") || strings.Contains(line, "volume.v20") {
		t.Errorf("DataLossLine() = %q", line)
	}
}

// oversize is b followed by zeros to one byte over the limit: only the
// pages of b are touched.
func oversize(b []byte) []byte {
	big := make([]byte, planner.MaxFileSize+1)
	copy(big, b)
	return big
}
