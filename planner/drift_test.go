package planner_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cc.dev/cc/internal/golden"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/state"
)

// driftAt is the fixed time of the drift of these tests: the service's
// clock when it recorded them.
var driftAt = time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

// drifted is a project whose state drifted from what cc applied: the tags
// of sandbox.dev changed through the API by token sdk-bot, sandbox.tmp's
// lifetime passed, sandbox.gone terminated by sdk-bot; volume.cache as
// applied.
func drifted(t testing.TB) (*schema.Desired, *planner.State) {
	t.Helper()
	img := digest("img")
	dev := res(t, "sandbox.dev", map[string]any{"image": img, "tags": []any{"team-a"}})
	d := desired(dev,
		res(t, "sandbox.tmp", map[string]any{"image": img, "lifetime": "1s"}),
		res(t, "sandbox.gone", map[string]any{"image": img}),
		res(t, "volume.cache", map[string]any{"size": "1Gi"}))
	st := applied(d, 7)
	now := res(t, "sandbox.dev", map[string]any{"image": img, "tags": []any{"team-b"}})
	for i := range st.Resources {
		r := &st.Resources[i]
		switch r.Address {
		case "sandbox.dev":
			r.Spec, r.Hash, r.Serial = now.Spec, now.Hash, 8
		case "sandbox.tmp":
			r.Status, r.ExpiredAt = state.StatusExpired, driftAt.Add(-time.Hour)
		case "sandbox.gone":
			r.Status, r.UpdatedAt, r.Serial = state.StatusTerminated, driftAt.Add(time.Minute), 9
		}
	}
	st.Serial = 9
	st.Drift = []state.Drift{
		{Address: "sandbox.dev", What: state.DriftChanged, Actor: "sdk-bot", At: driftAt, Serial: 8,
			Fields: []state.DriftField{{Pointer: "/tags", Before: []byte(`["team-a"]`), After: []byte(`["team-b"]`)}}},
		{Address: "sandbox.gone", What: state.DriftTerminated, Actor: "sdk-bot", At: driftAt.Add(time.Minute), Serial: 9},
		{Address: "sandbox.tmp", What: state.DriftExpired, At: driftAt.Add(-time.Hour)},
	}
	return d, st
}

// writeViews renders a plan in every format, for goldens.
func writeViews(t *testing.T, dir string, p *planner.Plan) {
	t.Helper()
	var txt, js, md bytes.Buffer
	if err := planner.WriteText(&txt, p, planner.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := planner.WriteJSON(&js, p); err != nil {
		t.Fatal(err)
	}
	if err := planner.WriteMarkdown(&md, p, planner.MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join(dir, "plan.txt"), txt.Bytes())
	golden.Check(t, filepath.Join(dir, "plan.json"), js.Bytes())
	golden.Check(t, filepath.Join(dir, "plan.md"), md.Bytes())
}

// TestDriftPlan: issue 10, drift (acceptance 7, 8). The plan shows what
// changed outside cc, field by field with actor and time, before the plan;
// then it puts the configuration back (the tags), and creates again the
// sandboxes that expired or were terminated (reason "expired").
func TestDriftPlan(t *testing.T) {
	d, st := drifted(t)
	p := diff(t, d, st, planner.Options{})
	if got := strings.Join(addrs(p), " "); got != "sandbox.dev:update sandbox.gone:create sandbox.tmp:create" {
		t.Fatalf("changes = %s", got)
	}
	if c := change(t, p, "sandbox.dev"); c.Reasons[0].Code != planner.ReasonDrift || len(c.Fields) != 1 || c.Fields[0].Path != "tags" {
		t.Errorf("sandbox.dev: reasons %+v fields %+v", c.Reasons, c.Fields)
	}
	tmp := change(t, p, "sandbox.tmp")
	if tmp.Reasons[0] != (planner.Reason{Code: planner.ReasonExpired, Message: "expired at 2030-01-02T02:04:05Z, will be created again"}) || tmp.BeforeHash != "" {
		t.Errorf("sandbox.tmp: reasons %+v, before_hash %q", tmp.Reasons, tmp.BeforeHash)
	}
	if r := change(t, p, "sandbox.gone").Reasons[0]; r.Message != "terminated by sdk-bot at 2030-01-02T03:05:05Z, will be created again" {
		t.Errorf("sandbox.gone: reason %+v", r)
	}
	if len(p.Drift) != 3 || p.Drift[0].Actor != "sdk-bot" || !p.Drift[0].At.Equal(driftAt) {
		t.Errorf("drift = %+v", p.Drift)
	}
	writeViews(t, "testdata/drift/plan", p)
}

// TestDriftRefreshOnlyPlan: issue 10, drift. --refresh-only shows only the
// section, changes nothing; with no drift it says so.
func TestDriftRefreshOnlyPlan(t *testing.T) {
	d, st := drifted(t)
	p := diff(t, d, st, planner.Options{RefreshOnly: true})
	if p.Changed() || !p.Drifted() || !p.RefreshOnly {
		t.Fatalf("refresh-only plan: changed %v, drifted %v", p.Changed(), p.Drifted())
	}
	writeViews(t, "testdata/drift/refresh-only", p)
	st.Drift = nil
	var b bytes.Buffer
	planner.WriteText(&b, diff(t, d, st, planner.Options{RefreshOnly: true}), planner.TextOptions{})
	if !strings.HasPrefix(b.String(), "No changes outside cc.") {
		t.Errorf("refresh-only plan without drift:\n%s", b.String())
	}
}

// TestDriftSensitiveFieldHasNoValue: issue 10, drift. A field at a
// sensitive pointer of the resource is shown without values, even when a
// record holds them.
func TestDriftSensitiveFieldHasNoValue(t *testing.T) {
	d, st := drifted(t)
	st.Resources[0].Sensitive = []string{"/env/TOKEN"}
	st.Drift = []state.Drift{{Address: "sandbox.dev", What: state.DriftChanged, Actor: "x", At: driftAt, Serial: 8,
		Fields: []state.DriftField{{Pointer: "/env/TOKEN", Before: []byte(`"canary-a"`), After: []byte(`"canary-b"`)}}}}
	p := diff(t, d, st, planner.Options{})
	var b bytes.Buffer
	planner.WriteText(&b, p, planner.TextOptions{})
	planner.WriteJSON(&b, p)
	planner.WriteMarkdown(&b, p, planner.MarkdownOptions{})
	if strings.Contains(b.String(), "canary") || !p.Drift[0].Fields[0].Sensitive {
		t.Errorf("a sensitive drift value is shown:\n%s", b.String())
	}
}

// TestDriftPlanFile: issue 10, drift. A plan file carries its drift and
// is read back; a create of an expired sandbox fits the state it was
// planned against; a tampered record, and a refresh-only plan, are refused.
func TestDriftPlanFile(t *testing.T) {
	d, st := drifted(t)
	p := diff(t, d, st, planner.Options{})
	f := planner.NewFile(p, d, st, planner.Config{Lang: "hcl"})
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	got, err := planner.ReadFile(b.Bytes())
	if err != nil {
		t.Fatalf("ReadFile() = %v", err)
	}
	if len(got.Plan.Drift) != 3 {
		t.Errorf("drift read back = %+v", got.Plan.Drift)
	}
	if err := got.Check(st); err != nil {
		t.Errorf("Check(the state planned against) = %v", err)
	}
	// Expired since the plan: it no longer fits.
	later := *st
	later.Resources = append([]planner.Resource(nil), st.Resources...)
	later.Resources[0].Status = state.StatusExpired
	if err := got.Check(&later); err == nil || !strings.Contains(err.Error(), "sandbox.dev is expired") {
		t.Errorf("Check(after an expiry) = %v", err)
	}
	for name, edit := range map[string][3]string{
		"sensitive with a value": {`"path": "tags",`, `"path": "tags", "sensitive": true,`, "bad field"},
		"bad what":               {`"what": "expired"`, `"what": "exploded"`, "what"},
		"refresh-only":           {`"format_version": 1,`, `"format_version": 1, "refresh_only": true,`, "refresh-only plan is not applied"},
	} {
		// The drift comes after the changes: edit its last occurrence.
		i := strings.LastIndex(b.String(), edit[0])
		if name == "refresh-only" {
			// The plan's own field, not the file's.
			at := strings.Index(b.String(), `"plan": {`)
			i = at + strings.Index(b.String()[at:], edit[0])
		}
		if i < 0 {
			t.Fatalf("%s: no %q in the file", name, edit[0])
		}
		bad := b.String()[:i] + edit[1] + b.String()[i+len(edit[0]):]
		if bad == b.String() {
			t.Fatalf("%s: no %q in the file", name, edit[0])
		}
		if _, err := planner.ReadFile([]byte(bad)); err == nil || !strings.Contains(err.Error(), edit[2]) {
			t.Errorf("%s: ReadFile() = %v, want %q", name, err, edit[2])
		}
	}
}

// TestDriftWithoutChanges: issue 10, drift. Drift the configuration
// already agrees with (it was changed to match) is still shown, and the
// plan says it has no changes, not that it puts anything back.
func TestDriftWithoutChanges(t *testing.T) {
	_, st := drifted(t)
	st.Drift = st.Drift[:1]
	d := desired(res(t, "sandbox.dev", map[string]any{"image": digest("img"), "tags": []any{"team-b"}}))
	st.Resources = st.Resources[:1]
	p := diff(t, d, st, planner.Options{})
	var b bytes.Buffer
	planner.WriteText(&b, p, planner.TextOptions{})
	out := b.String()
	if p.Changed() || !strings.HasPrefix(out, planner.DriftHeading+":") || !strings.Contains(out, "\nNo changes.") || strings.Contains(out, "puts the configuration back") {
		t.Errorf("plan:\n%s", out)
	}
}

// TestDriftMarkdownBounded: issue 10, drift. However much changed outside
// cc, the Markdown stays under its limit and says what it left out.
func TestDriftMarkdownBounded(t *testing.T) {
	d, st := drifted(t)
	long := []byte(`"` + strings.Repeat("x", 5000) + `"`)
	st.Drift = nil
	for i := 0; i < 500; i++ {
		st.Drift = append(st.Drift, state.Drift{Address: "sandbox.dev", What: state.DriftChanged, Actor: "x", At: driftAt, Serial: int64(i + 1),
			Fields: []state.DriftField{{Pointer: "/annotations/note", Before: long, After: long[1:]}}})
	}
	var b bytes.Buffer
	if err := planner.WriteMarkdown(&b, diff(t, d, st, planner.Options{}), planner.MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	if b.Len() > planner.MaxMarkdown || !strings.Contains(b.String(), "more not shown here") {
		t.Errorf("Markdown of 500 drift records: %d bytes, note %v", b.Len(), strings.Contains(b.String(), "more not shown here"))
	}
}
