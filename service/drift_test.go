package service_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"

	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

const (
	driftCCToken  = "cc-apply-token-0123456789"
	driftSDKToken = "platform-sdk-token-0123456789"
)

// driftServer serves a database on a unix socket with two tokens, "ci" (cc)
// and "sdk-bot" (a platform SDK), and a settable clock; it returns cc's
// client (autoLease) and the SDK's (no lease: it takes none).
func driftServer(t *testing.T) (cc, sdk *service.Client, clk *clock) {
	t.Helper()
	dir := t.TempDir()
	tokens, err := service.ParseTokens("tokens", []byte(driftCCToken+" drift ci\n"+driftSDKToken+" drift sdk-bot\n"))
	if err != nil {
		t.Fatal(err)
	}
	clk = newClock()
	sock := filepath.Join(dir, "s")
	serve(t, listenUnix(t, sock), testDB(t), service.WithTokens(tokens), service.WithClock(clk.Now))
	dial := func(token string, opts ...grpc.DialOption) *service.Client {
		c, err := service.Dial("unix://"+sock, service.WithToken(token), service.WithGRPCOptions(opts...))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	return dial(driftCCToken, grpc.WithUnaryInterceptor(autoLease())), dial(driftSDKToken), clk
}

// TestDriftPatchRecordsActorTimeAndFields: issue 10, drift. A tags change
// made through the API with another token changes the spec the service
// holds (hash made again), bumps the serial, and comes back in GetState
// as a record with the field, the token's name and the time; a cc apply
// planned before it is refused as stale; the apply after it clears it.
func TestDriftPatchRecordsActorTimeAndFields(t *testing.T) {
	ctx := context.Background()
	cc, sdk, clk := driftServer(t)
	sb := sandbox(map[string]any{"tags": []any{"team-a"}})
	first := mustApply(t, cc, applyReq(t, "drift", "sandbox.dev", service.ActionCreate, sb, 0))
	clk.Advance(time.Minute)
	res, err := sdk.PatchResource(ctx, service.PatchRequest{Project: "drift", Address: "sandbox.dev",
		Set: []service.FieldPatch{{Pointer: "/tags", Value: []byte(`["team-b"]`)}}})
	if err != nil {
		t.Fatalf("PatchResource() = %v", err)
	}
	if res.Serial != first.Serial+1 {
		t.Errorf("serial after the patch = %d, want %d", res.Serial, first.Serial+1)
	}
	wantSpec, wantHash := spec(t, sandbox(map[string]any{"tags": []any{"team-b"}}))
	if string(res.Resource.Spec) != string(wantSpec) || res.Resource.Hash != wantHash {
		t.Errorf("patched resource = %s %s, want %s %s", res.Resource.Spec, res.Resource.Hash, wantSpec, wantHash)
	}
	st, err := cc.GetState(ctx, "drift")
	if err != nil {
		t.Fatal(err)
	}
	want := []service.Drift{{Address: "sandbox.dev", What: service.DriftChanged, Actor: "sdk-bot", At: clk.Now(), Serial: res.Serial,
		Fields: []service.DriftField{{Pointer: "/tags", Before: []byte(`["team-a"]`), After: []byte(`["team-b"]`)}}}}
	if diff := cmp.Diff(want, st.Drift); diff != "" {
		t.Errorf("GetState().Drift (-want +got):\n%s", diff)
	}
	// cc planned at the first serial: its update is refused as stale.
	_, err = cc.Apply(ctx, applyReq(t, "drift", "sandbox.dev", service.ActionUpdate, sandbox(map[string]any{"tags": []any{"team-c"}}), first.Serial))
	if !errors.Is(err, service.ErrStale) {
		t.Errorf("Apply() planned before the patch = %v, want stale", err)
	}
	// Planned again, cc puts the configuration back and the record goes.
	mustApply(t, cc, applyReq(t, "drift", "sandbox.dev", service.ActionUpdate, sb, res.Serial))
	if st, err = cc.GetState(ctx, "drift"); err != nil || len(st.Drift) != 0 {
		t.Errorf("GetState() after the apply = %v, drift %+v, want none", err, st.Drift)
	}
}

// TestDriftPatchTakesNoLease: issue 10, drift. The platform does not honour
// cc's lock: a patch goes through while cc holds the lease.
func TestDriftPatchTakesNoLease(t *testing.T) {
	ctx := context.Background()
	cc, sdk, _ := driftServer(t)
	mustApply(t, cc, applyReq(t, "drift", "sandbox.dev", service.ActionCreate, sandbox(nil), 0))
	if _, err := sdk.PatchResource(ctx, service.PatchRequest{Project: "drift", Address: "sandbox.dev",
		Set: []service.FieldPatch{{Pointer: "/annotations", Value: []byte(`{"owner":"ops"}`)}}}); err != nil {
		t.Errorf("PatchResource() while cc holds the lock = %v", err)
	}
}

// TestDriftPatchValidated: issue 10, drift. A patch is untrusted input:
// checked against the kind's rules, never of an image, never inside a
// sensitive value; one at a sensitive pointer is recorded without values.
func TestDriftPatchValidated(t *testing.T) {
	ctx := context.Background()
	cc, sdk, _ := driftServer(t)
	mustApply(t, cc, applyReq(t, "drift", "sandbox.dev", service.ActionCreate, sandbox(map[string]any{"env": map[string]any{"TOKEN": "canary-secret-value"}}), 0))
	for _, tc := range []struct {
		name, addr string
		set        []service.FieldPatch
		want       string
	}{
		{"none", "sandbox.dev", nil, "1 to 100 fields"},
		{"not a pointer", "sandbox.dev", []service.FieldPatch{{Pointer: "tags", Value: []byte(`[]`)}}, "not a JSON pointer"},
		{"not JSON", "sandbox.dev", []service.FieldPatch{{Pointer: "/tags", Value: []byte(`[`)}}, "not JSON"},
		{"against the schema", "sandbox.dev", []service.FieldPatch{{Pointer: "/tags", Value: []byte(`42`)}}, "sandbox.dev"},
		{"unknown field", "sandbox.dev", []service.FieldPatch{{Pointer: "/nope", Value: []byte(`1`)}}, "sandbox.dev"},
		{"no parent", "sandbox.dev", []service.FieldPatch{{Pointer: "/a/b", Value: []byte(`1`)}}, "names no place"},
		{"image", "image.app", []service.FieldPatch{{Pointer: "/base", Value: []byte(`"x"`)}}, "never changed in place"},
		{"absent", "sandbox.nope", []service.FieldPatch{{Pointer: "/tags", Value: []byte(`[]`)}}, "has no sandbox.nope"},
	} {
		_, err := sdk.PatchResource(ctx, service.PatchRequest{Project: "drift", Address: tc.addr, Set: tc.set})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: PatchResource() = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestDriftSensitivePatchNeverShown: issue 10, drift. A value set at a
// sensitive pointer stays sensitive; its record has no value, and neither
// the old nor the new value is in the state.
func TestDriftSensitivePatchNeverShown(t *testing.T) {
	ctx := context.Background()
	cc, sdk, _ := driftServer(t)
	req := applyReq(t, "drift", "sandbox.dev", service.ActionCreate, sandbox(map[string]any{"env": map[string]any{"TOKEN": "canary-old-value"}}), 0)
	req.Sensitive = []string{"/env/TOKEN"}
	red, _ := spec(t, sandbox(map[string]any{"env": map[string]any{"TOKEN": "(sensitive)"}}))
	req.Hash = schema.Hash(red)
	mustApply(t, cc, req)
	if _, err := sdk.PatchResource(ctx, service.PatchRequest{Project: "drift", Address: "sandbox.dev",
		Set: []service.FieldPatch{{Pointer: "/env", Value: []byte(`{"TOKEN":"x"}`)}}}); err == nil || !strings.Contains(err.Error(), "overlaps a sensitive value") {
		t.Errorf("PatchResource() over a sensitive value = %v", err)
	}
	if _, err := sdk.PatchResource(ctx, service.PatchRequest{Project: "drift", Address: "sandbox.dev",
		Set: []service.FieldPatch{{Pointer: "/env/TOKEN", Value: []byte(`"canary-new-value"`)}}}); err != nil {
		t.Fatalf("PatchResource() at a sensitive pointer = %v", err)
	}
	st, err := cc.GetState(ctx, "drift")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Drift) != 1 || len(st.Drift[0].Fields) != 1 || !st.Drift[0].Fields[0].Sensitive || st.Drift[0].Fields[0].Before != nil || st.Drift[0].Fields[0].After != nil {
		t.Errorf("drift = %+v, want one sensitive field without values", st.Drift)
	}
	if s := string(st.Resources[0].Spec); strings.Contains(s, "canary") {
		t.Errorf("the state shows a sensitive value: %s", s)
	}
	if st.Resources[0].Hash != req.Hash {
		t.Errorf("hash = %s, want %s (made without sensitive values)", st.Resources[0].Hash, req.Hash)
	}
}

// TestDriftExpiry: issue 10, drift. A sandbox with a lifetime is reported
// expired once it passes, with no write in between, also to a read that
// knows the serial; cc may create it again at its address, not update it;
// AcceptDrift records the expiry, and then the shortcut answers unchanged.
func TestDriftExpiry(t *testing.T) {
	ctx := context.Background()
	cc, _, clk := driftServer(t)
	created := clk.Now()
	res := mustApply(t, cc, applyReq(t, "drift", "sandbox.dev", service.ActionCreate, sandbox(map[string]any{"lifetime": "1s"}), 0))
	st, _ := cc.GetState(ctx, "drift")
	if r := st.Resources[0]; r.Status != service.StatusReady || !r.ExpiredAt.Equal(created.Add(time.Second)) || len(st.Drift) != 0 {
		t.Fatalf("before its lifetime: status %v, expired_at %v, drift %+v", r.Status, r.ExpiredAt, st.Drift)
	}
	clk.Advance(2 * time.Second)
	got, changed, err := cc.GetStateIfChanged(ctx, "drift", res.Serial)
	if err != nil || !changed {
		t.Fatalf("GetStateIfChanged(known serial) after expiry = %v, changed %v: the expiry would be missed", err, changed)
	}
	want := []service.Drift{{Address: "sandbox.dev", What: service.DriftExpired, At: created.Add(time.Second)}}
	if diff := cmp.Diff(want, got.Drift); diff != "" || got.Resources[0].Status != service.StatusExpired {
		t.Errorf("after expiry: status %v, drift (-want +got):\n%s", got.Resources[0].Status, diff)
	}
	if _, err := cc.Apply(ctx, applyReq(t, "drift", "sandbox.dev", service.ActionUpdate, sandbox(map[string]any{"lifetime": "1h"}), res.Serial)); err == nil || !strings.Contains(err.Error(), "is expired") {
		t.Errorf("Apply(update) of an expired sandbox = %v", err)
	}
	serial, accepted, err := cc.AcceptDrift(ctx, service.AcceptDriftRequest{Project: "drift", ExpectedSerial: res.Serial})
	if err != nil || len(accepted) != 1 || serial != res.Serial+1 {
		t.Fatalf("AcceptDrift() = %d %+v %v", serial, accepted, err)
	}
	if _, changed, err := cc.GetStateIfChanged(ctx, "drift", serial); err != nil || changed {
		t.Errorf("GetStateIfChanged() after AcceptDrift = changed %v, %v; want unchanged", changed, err)
	}
	st, _ = cc.GetState(ctx, "drift")
	if st.Resources[0].Status != service.StatusExpired || len(st.Drift) != 0 {
		t.Errorf("after AcceptDrift: status %v, drift %+v", st.Resources[0].Status, st.Drift)
	}
	mustApply(t, cc, applyReq(t, "drift", "sandbox.dev", service.ActionCreate, sandbox(map[string]any{"lifetime": "1s"}), serial))
	st, _ = cc.GetState(ctx, "drift")
	if r := st.Resources[0]; r.Status != service.StatusReady || !r.ExpiredAt.Equal(clk.Now().Add(time.Second)) {
		t.Errorf("created again: status %v, expired_at %v", r.Status, r.ExpiredAt)
	}
}

// TestDriftTerminate: issue 10, drift. A sandbox terminated through the API
// is TERMINATED with a record naming who and when; AcceptDrift planned
// before a later record is refused as stale.
func TestDriftTerminate(t *testing.T) {
	ctx := context.Background()
	cc, sdk, clk := driftServer(t)
	mustApply(t, cc, applyReq(t, "drift", "sandbox.dev", service.ActionCreate, sandbox(nil), 0))
	if _, err := sdk.TerminateSandbox(ctx, "drift", "volume.x"); err == nil {
		t.Error("TerminateSandbox(volume) succeeded")
	}
	res, err := sdk.TerminateSandbox(ctx, "drift", "sandbox.dev")
	if err != nil || res.Drift == nil {
		t.Fatalf("TerminateSandbox() = %+v, %v", res, err)
	}
	again, err := sdk.TerminateSandbox(ctx, "drift", "sandbox.dev")
	if err != nil || again.Drift != nil || again.Serial != res.Serial {
		t.Errorf("TerminateSandbox() again = %+v, %v; want no change", again, err)
	}
	st, _ := cc.GetState(ctx, "drift")
	want := []service.Drift{{Address: "sandbox.dev", What: service.DriftTerminated, Actor: "sdk-bot", At: clk.Now(), Serial: res.Serial}}
	if diff := cmp.Diff(want, st.Drift); diff != "" || st.Resources[0].Status != service.StatusTerminated {
		t.Errorf("status %v, drift (-want +got):\n%s", st.Resources[0].Status, diff)
	}
	if _, _, err := cc.AcceptDrift(ctx, service.AcceptDriftRequest{Project: "drift", ExpectedSerial: res.Serial - 1}); !errors.Is(err, service.ErrStale) {
		t.Errorf("AcceptDrift() planned before the record = %v, want stale", err)
	}
	mustApply(t, cc, applyReq(t, "drift", "sandbox.dev", service.ActionCreate, sandbox(nil), res.Serial))
	if st, _ = cc.GetState(ctx, "drift"); st.Resources[0].Status != service.StatusReady || len(st.Drift) != 0 {
		t.Errorf("created again: status %v, drift %+v", st.Resources[0].Status, st.Drift)
	}
}

// TestDriftMigrationAddsExpiries: issue 10, drift. A database made before
// expiries were kept gets, on upgrade, the expiry of every sandbox with a
// lifetime, so that one already past is reported expired.
func TestDriftMigrationAddsExpiries(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "state.db")
	clk := newClock()
	c, closeFn, err := openEmbedded(ctx, db, service.WithClock(clk.Now))
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, c, applyReq(t, "p", "sandbox.s", service.ActionCreate, sandbox(map[string]any{"lifetime": "1m"}), 0))
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	downgrade(t, db, 4)
	clk.Advance(time.Hour)
	st, err := open(t, db, service.WithClock(clk.Now)).GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if r := st.Lookup("sandbox.s"); r == nil || r.Status != service.StatusExpired || len(st.Drift) != 1 {
		t.Errorf("after the upgrade: %+v, drift %+v; want it expired", r, st.Drift)
	}
}

// TestDriftPatchVersioned: issue 10, drift. A function changed outside cc
// gets a version of its new content, as an apply would make; cc putting
// the configuration back makes the first version current again.
func TestDriftPatchVersioned(t *testing.T) {
	ctx := context.Background()
	cc, sdk, _ := driftServer(t)
	mustApply(t, cc, applyReq(t, "drift", "function.f", service.ActionCreate, function("m.f"), 0))
	res, err := sdk.PatchResource(ctx, service.PatchRequest{Project: "drift", Address: "function.f",
		Set: []service.FieldPatch{{Pointer: "/timeout", Value: []byte(`"600s"`)}}})
	if err != nil || res.Resource.Version != 2 {
		t.Fatalf("PatchResource(function) = version %v, %v; want version 2", res, err)
	}
	back := mustApply(t, cc, applyReq(t, "drift", "function.f", service.ActionUpdate, function("m.f"), res.Serial))
	if back.Version != 1 || !back.Reused {
		t.Errorf("Apply() of the configuration = version %d reused %v, want version 1 reused", back.Version, back.Reused)
	}
}
