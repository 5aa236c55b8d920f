package planner_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"cc.dev/cc/diag"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// TestMovePlansNoDeleteCreate: issue 10: moves. A volume and a function
// renamed with moved blocks plan as moved, never a delete and a create:
// the volume's change only moves it, the function's moves it and makes a
// new version of its changed handler; the sandbox that mounts the volume
// is updated in place to name the new address (a reference that follows
// a move replaces nothing).
func TestMovePlansNoDeleteCreate(t *testing.T) {
	vol := res(t, "volume.cache", map[string]any{"size": "1Gi"})
	fn := res(t, "function.rank", map[string]any{"image": digest("i"), "handler": "m:run"})
	sb := res(t, "sandbox.dev", map[string]any{"image": digest("i"), "volume_mounts": []any{map[string]any{"volume": map[string]any{"ref": "volume.cache"}}}}, "volume.cache")
	st := applied(desired(vol, fn, sb), 7)
	vol2 := res(t, "volume.data", map[string]any{"size": "1Gi"})
	fn2 := res(t, "function.score", map[string]any{"image": digest("i"), "handler": "m:run2"})
	sb2 := res(t, "sandbox.dev", map[string]any{"image": digest("i"), "volume_mounts": []any{map[string]any{"volume": map[string]any{"ref": "volume.data"}}}}, "volume.data")
	d := desired(vol2, fn2, sb2)
	d.Moves = []schema.Moved{{From: "function.rank", To: "function.score"}, {From: "volume.cache", To: "volume.data"}}
	p := diff(t, d, st, planner.Options{})
	if got, want := strings.Join(addrs(p), " "), "function.score:update sandbox.dev:update volume.data:no-op"; got != want {
		t.Fatalf("changes = %s, want %s", got, want)
	}
	if sb := change(t, p, "sandbox.dev"); len(sb.ReplaceBecause) != 0 || len(sb.Fields) != 1 || sb.Fields[0].ForcesReplacement {
		t.Errorf("sandbox.dev: replace because %v, fields %+v; want the mount's ref renamed in place", sb.ReplaceBecause, sb.Fields)
	}
	v := change(t, p, "volume.data")
	if v.MovedFrom != "volume.cache" || reasons(v) != "volume.cache has moved to volume.data" || v.Symbol() != "->" {
		t.Errorf("volume.data: moved from %q, reasons %q", v.MovedFrom, reasons(v))
	}
	f := change(t, p, "function.score")
	if f.MovedFrom != "function.rank" || !strings.HasPrefix(reasons(f), "function.rank has moved to function.score\n") || f.Version == nil || f.Version.Number != 2 {
		t.Errorf("function.score: moved from %q, version %+v, reasons %q", f.MovedFrom, f.Version, reasons(f))
	}
	if p.Summary.Create != 0 || p.Summary.Delete != 0 || p.Summary.Moved != 2 || p.Summary.Unchanged != 0 {
		t.Errorf("summary %+v, want 2 moved and no create or delete", p.Summary)
	}
	if !strings.Contains(planner.SummaryLine(p), ", 2 to move") {
		t.Errorf("summary line %q does not count the moves", planner.SummaryLine(p))
	}
	// Applied: the state has the new addresses; the moved blocks left in
	// the configuration change nothing.
	after := applied(d, 9)
	if p := diff(t, d, after, planner.Options{}); p.Changed() {
		t.Errorf("after the moves: %v, want no changes", addrs(p))
	}
}

// TestMoveChain: issue 10: moves. a -> b -> c, compiled as a -> c and
// b -> c, moves the resource the state has at a to c.
func TestMoveChain(t *testing.T) {
	st := applied(desired(res(t, "volume.a", map[string]any{"size": "1Gi"})), 3)
	d := desired(res(t, "volume.c", map[string]any{"size": "1Gi"}))
	d.Moves = []schema.Moved{{From: "volume.a", To: "volume.c"}, {From: "volume.b", To: "volume.c"}}
	p := diff(t, d, st, planner.Options{})
	if got := strings.Join(addrs(p), " "); got != "volume.c:no-op" || p.Changes[0].MovedFrom != "volume.a" {
		t.Fatalf("changes = %s, want volume.c moved from volume.a", got)
	}
}

// TestMoveErrors: issue 10: moves. A move onto an address the state has,
// and one from an address that neither the state has nor a chain passes
// through, are errors at the moved block.
func TestMoveErrors(t *testing.T) {
	rng := &diag.Range{File: "main.hcl", Start: diag.Pos{Line: 4, Col: 1}}
	st := applied(desired(res(t, "volume.a", map[string]any{"size": "1Gi"}), res(t, "volume.b", map[string]any{"size": "2Gi"})), 3)
	for _, tc := range []struct {
		name string
		move schema.Moved
		want string
	}{
		{"onto", schema.Moved{From: "volume.a", To: "volume.b", Range: rng}, "main.hcl:4:1: moved volume.a to volume.b: the state has both"},
		{"never", schema.Moved{From: "volume.x", To: "volume.y", Range: rng}, "main.hcl:4:1: moved from volume.x, which the state of project p does not have"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := desired(res(t, "volume.b", map[string]any{"size": "2Gi"}), res(t, "volume.y", map[string]any{"size": "1Gi"}))
			d.Moves = []schema.Moved{tc.move}
			_, err := planner.Diff(d, st, planner.Options{})
			var ds diag.Diagnostics
			if !errors.As(err, &ds) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Diff() = %v, want diagnostics with %q", err, tc.want)
			}
		})
	}
}

// TestForgetNotDelete: issue 10: forgetting. A removed resource plans as
// forgotten, not deleted, and destroys no data.
func TestForgetNotDelete(t *testing.T) {
	st := applied(desired(res(t, "volume.cache", map[string]any{"size": "1Gi"})), 3)
	d := desired()
	d.Removed = []schema.Removed{{Address: "volume.cache"}}
	p := diff(t, d, st, planner.Options{})
	c := change(t, p, "volume.cache")
	if c.Action != planner.Forget || reasons(c) != "volume.cache will be forgotten by the project, not destroyed: the service keeps it, unowned" {
		t.Fatalf("volume.cache: %v, %q", c.Action, reasons(c))
	}
	if len(p.DataLoss) != 0 || p.Summary.Delete != 0 || p.Summary.Forget != 1 || p.DeletesAll {
		t.Errorf("plan: data loss %v, summary %+v, deletes all %v", p.DataLoss, p.Summary, p.DeletesAll)
	}
}

// TestImportPlans: issue 10: adoption. An import plans as Import with the
// fields in which the configuration differs from the unowned resource;
// one the service does not have is an error at the import; one the
// configuration does not declare is an error unless undeclared imports
// are allowed (--generate-config-out).
func TestImportPlans(t *testing.T) {
	rng := &diag.Range{File: "main.hcl", Start: diag.Pos{Line: 9, Col: 1}}
	unowned := applied(desired(res(t, "volume.build-cache", map[string]any{"size": "1Gi"})), 1).Resources
	st := &planner.State{Project: "p", Serial: 2, Unowned: unowned}
	d := desired(res(t, "volume.cache", map[string]any{"size": "1Gi"}))
	d.Imports = []schema.Imported{{To: "volume.cache", ID: "build-cache", Range: rng}}
	p := diff(t, d, st, planner.Options{})
	c := change(t, p, "volume.cache")
	if c.Action != planner.Import || len(c.Fields) != 0 || !strings.HasPrefix(reasons(c), "volume.cache will be imported") || planner.ActionPhrase(c) != "import" {
		t.Fatalf("volume.cache: %v %q fields %v", c.Action, reasons(c), c.Fields)
	}
	d2 := desired(res(t, "volume.cache", map[string]any{"size": "2Gi"}))
	d2.Imports = d.Imports
	c = change(t, diff(t, d2, st, planner.Options{}), "volume.cache")
	if c.Action != planner.Import || len(c.Fields) != 1 || c.Fields[0].Path != "size" || planner.ActionPhrase(c) != "import, then update in place" {
		t.Errorf("volume.cache with another size: %v %+v", c.Action, c.Fields)
	}
	d3 := desired()
	d3.Imports = d.Imports
	if _, err := planner.Diff(d3, st, planner.Options{}); err == nil || !strings.Contains(err.Error(), "main.hcl:9:1: import volume.cache: the configuration does not declare volume.cache") {
		t.Errorf("undeclared import: Diff() = %v", err)
	}
	if p := diff(t, d3, st, planner.Options{UndeclaredImports: true}); len(p.Changes) != 1 || p.Changes[0].Action != planner.Import {
		t.Errorf("undeclared import with UndeclaredImports: %v", addrs(p))
	}
	if _, err := planner.Diff(d, &planner.State{Project: "p"}, planner.Options{}); err == nil || !strings.Contains(err.Error(), `main.hcl:9:1: import volume.cache: the service has no unowned volume with id "build-cache"`) {
		t.Errorf("import of nothing: Diff() = %v", err)
	}
}

// TestMovesPlanFileRoundTrip: issue 10. A plan file with a move, a
// forget and an import reads back; one whose move its desired state does
// not declare is refused.
func TestMovesPlanFileRoundTrip(t *testing.T) {
	st := applied(desired(res(t, "volume.a", map[string]any{"size": "1Gi"}), res(t, "volume.old", map[string]any{"size": "1Gi"})), 3)
	st.Lineage = "0123456789abcdef0123456789abcdef"
	st.Unowned = applied(desired(res(t, "volume.shared", map[string]any{"size": "1Gi"})), 1).Resources
	d := desired(res(t, "volume.b", map[string]any{"size": "1Gi"}), res(t, "volume.in", map[string]any{"size": "1Gi"}))
	d.Moves = []schema.Moved{{From: "volume.a", To: "volume.b"}}
	d.Removed = []schema.Removed{{Address: "volume.old"}}
	d.Imports = []schema.Imported{{To: "volume.in", ID: "shared"}}
	p := diff(t, d, st, planner.Options{})
	if got := strings.Join(addrs(p), " "); got != "volume.b:no-op volume.in:import volume.old:forget" {
		t.Fatalf("changes = %s", got)
	}
	var b bytes.Buffer
	if err := planner.NewFile(p, d, st, planner.Config{File: "main.hcl", Lang: "hcl"}).Write(&b); err != nil {
		t.Fatal(err)
	}
	if _, err := planner.ReadFile(b.Bytes()); err != nil {
		t.Fatalf("ReadFile() = %v", err)
	}
	bad := bytes.Replace(b.Bytes(), []byte(`"moved_from": "volume.a"`), []byte(`"moved_from": "volume.zz"`), 1)
	if _, err := planner.ReadFile(bad); err == nil || !strings.Contains(err.Error(), "which the desired state does not move") {
		t.Errorf("ReadFile(tampered move) = %v", err)
	}
	for name, out := range renderAll(t, p) {
		if !strings.Contains(out, "volume.a has moved to volume.b") || !strings.Contains(out, "volume.old will be forgotten by the project, not destroyed") ||
			!strings.Contains(out, "volume.in will be imported") {
			t.Errorf("%s view lacks a lifecycle reason:\n%s", name, out)
		}
	}
}

// TestImportSecretValueNotClaimed: issue 10: adoption. An imported secret
// whose local value the project cannot have compared yet (the unowned
// secret's revisions come with it) claims no value change; the plan says
// the next plan compares it.
func TestImportSecretValueNotClaimed(t *testing.T) {
	unowned := applied(desired(res(t, "secret.token", map[string]any{"from_env": "OLD"})), 1).Resources
	st := &planner.State{Project: "p", Serial: 2, Unowned: unowned}
	d := desired(res(t, "secret.key", map[string]any{"from_env": "NEW"}))
	d.Imports = []schema.Imported{{To: "secret.key", ID: "token"}}
	p := diff(t, d, st, planner.Options{Secrets: map[string]planner.LocalSecret{"secret.key": {Source: "NEW", Fingerprint: "value 1"}}})
	c := change(t, p, "secret.key")
	if c.Action != planner.Import || c.SecretValue != "" || !strings.Contains(reasons(c), "the next plan compares the local value with it") {
		t.Fatalf("secret.key: %v secret value %q, reasons %q", c.Action, c.SecretValue, reasons(c))
	}
	for _, f := range c.Fields {
		if f.Path == "value" {
			t.Errorf("field %+v: the value is not compared yet", f)
		}
	}
}
