package applier_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"cc.dev/cc/applier"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// Where the constructs of issue 10 meet (issue 10: parity): moves with
// protection, drift with ignore_changes, moves with data sources, moves
// with forced versions, each end to end through the real embedded server
// and in both languages.

// pinnedBase is an image reference with a digest: nothing is built.
const pinnedBase = "python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"

// pick is hcl in HCL and cue in CUE.
func (l language) pick(hcl, cue string) string {
	if l.name == "hcl" {
		return hcl
	}
	return cue
}

// planWith plans d with o.
func planWith(t testing.TB, a *applier.Applier, d *schema.Desired, o planner.Options) *planner.Plan {
	t.Helper()
	p, _, err := a.Plan(context.Background(), d, o)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// protectedVolume declares a volume with lifecycle.prevent_destroy: the
// flag is at line 4 col 5 (HCL) or line 3 col 13 (CUE) of what it returns.
func (l language) protectedVolume(name string) string {
	return l.pick(`volume "`+name+`" {
  size = "1Gi"
  lifecycle {
    prevent_destroy = true
  }
}
`, `volumes: `+name+`: {
	size: "1Gi"
	lifecycle: prevent_destroy: true
}
`)
}

// TestMovedProtectedVolume: a moved volume with prevent_destroy plans and
// applies as a move (no error, nothing deleted or created), and is
// protected at its new address afterwards: removing it then fails at
// file:line:col.
func TestMovedProtectedVolume(t *testing.T) {
	inLanguages(t, func(t *testing.T, l language) {
		act := &actions{applies: map[ccv1.Action]int{}}
		cl, _ := server(t, service.WithUnaryInterceptor(act.unary))
		ctx := context.Background()
		dir := t.TempDir()
		at := l.pick("main.hcl:5:5", "main.cue:4:13")
		movedAt := l.pick("main.hcl:9:5", "main.cue:7:13") // after the moved declaration
		d := compileIn(t, l, dir, l.project("guard")+l.protectedVolume("cache"))
		if _, res := applyAll(t, newApplier(t, cl, d), d); res.Err() != nil {
			t.Fatal(res.Err())
		}
		if st, err := cl.GetState(ctx, "guard"); err != nil || !strings.HasSuffix(st.Lookup("volume.cache").PreventDestroyAt, at) {
			t.Fatalf("state %+v, %v; want volume.cache protected at %s", st, err, at)
		}
		act.applies, act.deletes = map[ccv1.Action]int{}, 0

		d = compileIn(t, l, dir, l.project("guard")+l.moved("volume.cache", "volume.data")+l.protectedVolume("data"))
		a := newApplier(t, cl, d)
		p, res := applyAll(t, a, d)
		if err := res.Err(); err != nil {
			t.Fatalf("Apply(move of a protected volume) = %v, want the move", err)
		}
		if len(p.Changes) != 1 || p.Changes[0].MovedFrom != "volume.cache" || p.Summary.Delete+p.Summary.Create+p.Summary.Replace != 0 {
			t.Fatalf("plan %+v (summary %+v), want one move of volume.cache", p.Changes, p.Summary)
		}
		if act.deletes != 0 || act.applies[ccv1.Action_ACTION_CREATE] != 0 || act.applies[ccv1.Action_ACTION_REPLACE] != 0 {
			t.Errorf("the move made %d deletes, %d creates, %d replaces; want none", act.deletes, act.applies[ccv1.Action_ACTION_CREATE], act.applies[ccv1.Action_ACTION_REPLACE])
		}
		st, err := cl.GetState(ctx, "guard")
		if err != nil {
			t.Fatal(err)
		}
		if r := st.Lookup("volume.data"); r == nil || !r.PreventDestroy || !strings.HasSuffix(r.PreventDestroyAt, movedAt) || st.Lookup("volume.cache") != nil {
			t.Fatalf("volume.data in the state = %+v, want it protected at %s (and no volume.cache)", r, movedAt)
		}
		noChanges(t, a, d)

		// The volume and its moved declaration removed (a moved
		// declaration to an address the configuration lacks is an error
		// of its own, at the declaration).
		gone := compileIn(t, l, dir, l.project("guard"))
		_, _, err = a.Plan(ctx, gone, planner.Options{})
		var pe *planner.ProtectedError
		if !errors.As(err, &pe) || !strings.Contains(err.Error(), movedAt+": volume.data is protected") || !strings.Contains(err.Error(), "removed from the configuration") {
			t.Fatalf("Plan(moved volume removed) = %v, want a ProtectedError at %s naming volume.data", err, movedAt)
		}
	})
}

// driftProject has two sandboxes with tags ["team-a"]; sandbox.ign
// ignores changes of its tags, sandbox.plain does not.
func driftProject(l language) string {
	return l.project("drift") + l.pick(`sandbox "ign" {
  image { from = "`+pinnedBase+`" }
  tags = ["team-a"]
  lifecycle { ignore_changes = [tags] }
}
sandbox "plain" {
  image { from = "`+pinnedBase+`" }
  tags = ["team-a"]
}
`, `sandboxes: ign: {
	image: from: "`+pinnedBase+`"
	tags: ["team-a"]
	lifecycle: ignore_changes: ["tags"]
}
sandboxes: plain: {
	image: from: "`+pinnedBase+`"
	tags: ["team-a"]
}
`)
}

// TestDriftIgnoredChanges: a tags change made outside cc (PatchResource)
// shows in the "changed outside cc" section whether or not the sandbox
// ignores its tags; only the sandbox that does not is planned back.
func TestDriftIgnoredChanges(t *testing.T) {
	inLanguages(t, func(t *testing.T, l language) {
		cl, _ := server(t)
		ctx := context.Background()
		d := compileIn(t, l, t.TempDir(), driftProject(l))
		a := newApplier(t, cl, d)
		if _, res := applyAll(t, a, d); res.Err() != nil {
			t.Fatal(res.Err())
		}
		for _, addr := range []string{"sandbox.ign", "sandbox.plain"} {
			if _, err := cl.PatchResource(ctx, service.PatchRequest{Project: "drift", Address: addr,
				Set: []service.FieldPatch{{Pointer: "/tags", Value: []byte(`["team-b"]`)}}}); err != nil {
				t.Fatal(err)
			}
		}
		p, _, err := a.Plan(ctx, d, planner.Options{})
		if err != nil {
			t.Fatal(err)
		}
		var drifted []string
		for _, dc := range p.Drift {
			if len(dc.Fields) == 1 && dc.Fields[0].Path == "tags" && string(dc.Fields[0].After) == `["team-b"]` {
				drifted = append(drifted, dc.Address)
			}
		}
		if strings.Join(drifted, " ") != "sandbox.ign sandbox.plain" {
			t.Errorf("drift %+v, want the tags change of sandbox.ign and sandbox.plain", p.Drift)
		}
		if len(p.Changes) != 1 || p.Changes[0].Addr != "sandbox.plain" || p.Changes[0].Action != planner.Update {
			t.Fatalf("changes %+v, want only sandbox.plain updated (sandbox.ign ignores its tags)", p.Changes)
		}
		if f := p.Changes[0].Fields; len(f) != 1 || f[0].Path != "tags" || string(f[0].After) != `["team-a"]` {
			t.Errorf("sandbox.plain's fields %+v, want tags back to [\"team-a\"]", f)
		}
	})
}

// unownedVolume makes the volume volume.NAME in the unowned project, as
// a platform SDK would through the raw API.
func unownedVolume(t *testing.T, cl *service.Client, name string) {
	t.Helper()
	ctx := context.Background()
	lease, _, err := cl.Lock(ctx, service.Unowned, service.CurrentHolder("platform sdk"), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Unlock(ctx, service.Unowned, lease.ID)
	st, err := cl.GetState(ctx, service.Unowned)
	if err != nil {
		t.Fatal(err)
	}
	hash, canon, err := schema.HashOf(json.RawMessage(`{"size":"10Gi"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Apply(ctx, service.ApplyRequest{Project: service.Unowned, Address: "volume." + name, Action: service.ActionCreate,
		Spec: canon, Hash: hash, ExpectedSerial: st.Serial, LeaseID: lease.ID}); err != nil {
		t.Fatal(err)
	}
}

// dataMountProject has a sandbox NAME that mounts the data source
// data.volume.cache, the unowned volume build-cache.
func dataMountProject(l language, name, extra string) string {
	return l.project("pin") + l.pick(`data "volume" "cache" {
  name = "build-cache"
}
sandbox "`+name+`" {
  image { from = "`+pinnedBase+`" }
  volume_mount {
    volume = data.volume.cache
    path   = "/cache"
  }
}
`, `data: volumes: cache: name: "build-cache"
sandboxes: `+name+`: {
	image: from: "`+pinnedBase+`"
	volume_mounts: [{volume: data.volumes.cache, path: "/cache"}]
}
`) + extra
}

// TestMovedSandboxKeepsDataPin: a sandbox that mounts a data source
// volume, moved, keeps its mount: the move changes nothing else, and the
// next plan has no changes.
func TestMovedSandboxKeepsDataPin(t *testing.T) {
	inLanguages(t, func(t *testing.T, l language) {
		act := &actions{applies: map[ccv1.Action]int{}}
		cl, _ := server(t, service.WithUnaryInterceptor(act.unary))
		unownedVolume(t, cl, "build-cache")
		dir := t.TempDir()
		d := compileIn(t, l, dir, dataMountProject(l, "dev", ""))
		if _, res := applyAll(t, newApplier(t, cl, d), d); res.Err() != nil {
			t.Fatal(res.Err())
		}
		act.applies, act.deletes = map[ccv1.Action]int{}, 0

		d = compileIn(t, l, dir, dataMountProject(l, "dev2", l.moved("sandbox.dev", "sandbox.dev2")))
		a := newApplier(t, cl, d)
		p, res := applyAll(t, a, d)
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		if len(p.Changes) != 1 || p.Changes[0].MovedFrom != "sandbox.dev" || len(p.Changes[0].Fields) != 0 {
			t.Fatalf("plan %+v, want only the move of sandbox.dev", p.Changes)
		}
		if len(p.Data) != 1 || p.Data[0].Target != "volume.build-cache" {
			t.Errorf("data %+v, want data.volume.cache resolved to volume.build-cache", p.Data)
		}
		if act.deletes != 0 || act.applies[ccv1.Action_ACTION_CREATE] != 0 || act.applies[ccv1.Action_ACTION_REPLACE] != 0 {
			t.Errorf("the move made %d deletes, %d creates, %d replaces; want none", act.deletes, act.applies[ccv1.Action_ACTION_CREATE], act.applies[ccv1.Action_ACTION_REPLACE])
		}
		noChanges(t, a, d)
	})
}

// TestNewVersionOfMovedFunction: --new-version of a function moved in the
// same plan makes version N+1 at the new address, with the old versions
// kept there; --new-version of the old address says where it moved.
func TestNewVersionOfMovedFunction(t *testing.T) {
	inLanguages(t, func(t *testing.T, l language) {
		cl, _ := server(t)
		ctx := context.Background()
		dir := t.TempDir()
		writeSource(t, dir)
		d := compileIn(t, l, dir, movesProject(l, "cache", "rank", "m:run", ""))
		if _, res := applyAll(t, newApplier(t, cl, d), d); res.Err() != nil {
			t.Fatal(res.Err())
		}

		d = compileIn(t, l, dir, movesProject(l, "cache", "score", "m:run", l.moved("function.rank", "function.score")))
		a := newApplier(t, cl, d)
		_, _, err := a.Plan(ctx, d, planner.Options{NewVersion: []string{"function.rank"}})
		if err == nil || !strings.Contains(err.Error(), "this plan moves function.rank to function.score; name function.score") {
			t.Errorf("Plan(--new-version function.rank, moved to function.score) = %v, want an error naming function.score", err)
		}
		p := planWith(t, a, d, planner.Options{NewVersion: []string{"function.score"}})
		if len(p.Changes) != 1 || p.Changes[0].MovedFrom != "function.rank" || p.Changes[0].Version == nil || p.Changes[0].Version.Number != 2 || !p.Changes[0].Version.Forced {
			t.Fatalf("plan %+v, want function.score moved from function.rank with a forced version 2", p.Changes)
		}
		lk, err := a.Lock(ctx, "life")
		if err != nil {
			t.Fatal(err)
		}
		res := a.Apply(ctx, lk, p, d)
		lk.Release()
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		vs, err := cl.Versions(ctx, "life", "function.score")
		if err != nil || len(vs) != 2 {
			t.Fatalf("Versions(function.score) = %+v, %v; want versions 1 and 2", vs, err)
		}
		noChanges(t, a, d)
	})
}

// ignoringSandbox is a project with a sandbox NAME whose tags are TAGS
// and ignored.
func ignoringSandbox(l language, name, tags, extra string) string {
	return l.project("pm") + l.pick(`sandbox "`+name+`" {
  image { from = "`+pinnedBase+`" }
  tags = ["`+tags+`"]
  lifecycle { ignore_changes = [tags] }
}
`, `sandboxes: `+name+`: {
	image: from: "`+pinnedBase+`"
	tags: ["`+tags+`"]
	lifecycle: ignore_changes: ["tags"]
}
`) + extra
}

// TestMovedSandboxIgnoresChanges: a sandbox that ignores its tags, changed
// outside cc and then moved while the configuration's tags differ, moves
// (only): the tags stay as the service has them, the drift record follows
// it to the new address, and the next plan has no changes.
func TestMovedSandboxIgnoresChanges(t *testing.T) {
	inLanguages(t, func(t *testing.T, l language) {
		cl, _ := server(t)
		ctx := context.Background()
		dir := t.TempDir()
		d := compileIn(t, l, dir, ignoringSandbox(l, "dev", "a", ""))
		a := newApplier(t, cl, d)
		if _, res := applyAll(t, a, d); res.Err() != nil {
			t.Fatal(res.Err())
		}
		if _, err := cl.PatchResource(ctx, service.PatchRequest{Project: "pm", Address: "sandbox.dev",
			Set: []service.FieldPatch{{Pointer: "/tags", Value: []byte(`["b"]`)}}}); err != nil {
			t.Fatal(err)
		}
		d = compileIn(t, l, dir, ignoringSandbox(l, "dev2", "c", l.moved("sandbox.dev", "sandbox.dev2")))
		p, res := applyAll(t, a, d)
		if err := res.Err(); err != nil {
			t.Fatalf("Apply(move of a sandbox with ignored tags) = %v", err)
		}
		if len(p.Changes) != 1 || p.Changes[0].Action != planner.NoOp || p.Changes[0].MovedFrom != "sandbox.dev" {
			t.Fatalf("plan %+v, want only the move", p.Changes)
		}
		st, err := cl.GetState(ctx, "pm")
		if err != nil {
			t.Fatal(err)
		}
		if r := st.Lookup("sandbox.dev2"); r == nil || !strings.Contains(string(r.Spec), `"tags":["b"]`) {
			t.Fatalf("sandbox.dev2 = %+v, want it moved with the service's tags", r)
		}
		p = planWith(t, a, d, planner.Options{})
		if p.Changed() {
			t.Errorf("after the move: %+v, want no changes", p.Changes)
		}
		if len(p.Drift) != 1 || p.Drift[0].Address != "sandbox.dev2" {
			t.Errorf("drift after the move %+v, want the tags change at sandbox.dev2", p.Drift)
		}
	})
}

// TestImportProtected: importing a resource whose declaration has
// prevent_destroy protects it in the same apply, at the declaration: the
// next plan has no changes, and removing it fails at file:line:col.
func TestImportProtected(t *testing.T) {
	inLanguages(t, func(t *testing.T, l language) {
		cl, _ := server(t)
		ctx := context.Background()
		unownedVolume(t, cl, "build-cache")
		dir := t.TempDir()
		at := l.pick("main.hcl:9:5", "main.cue:5:13")
		d := compileIn(t, l, dir, l.project("imp")+l.imported("volume.data", "build-cache")+l.pick(`volume "data" {
  size = "10Gi"
  lifecycle {
    prevent_destroy = true
  }
}
`, `volumes: data: {
	size: "10Gi"
	lifecycle: prevent_destroy: true
}
`))
		a := newApplier(t, cl, d)
		p, res := applyAll(t, a, d)
		if err := res.Err(); err != nil {
			t.Fatal(err)
		}
		if len(p.Changes) != 1 || p.Changes[0].Action != planner.Import {
			t.Fatalf("plan %+v, want one import", p.Changes)
		}
		st, err := cl.GetState(ctx, "imp")
		if err != nil {
			t.Fatal(err)
		}
		if r := st.Lookup("volume.data"); r == nil || !r.PreventDestroy || !strings.HasSuffix(r.PreventDestroyAt, at) {
			t.Fatalf("volume.data after the import = %+v, want it protected at %s", r, at)
		}
		noChanges(t, a, d)
		_, _, err = a.Plan(ctx, compileIn(t, l, dir, l.project("imp")), planner.Options{})
		if !strings.Contains(fmt.Sprint(err), at+": volume.data is protected") {
			t.Errorf("Plan(imported volume removed) = %v, want it protected at %s", err, at)
		}
	})
}
