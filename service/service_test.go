package service_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// clock is a settable clock for lease expiry.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// open runs an embedded server on a database in a temporary directory (or
// dbPath); its client takes the lease of each project's lock for every
// mutation that has none (autoLease).
func open(t testing.TB, dbPath string, opts ...service.Option) *service.Client {
	t.Helper()
	return openWith(t, dbPath, autoLeasing(), opts...)
}

// testImage is the image hash of the specs that name one.
var testImage = "sha256:" + strings.Repeat("1", 64)

// sum is "sha256:" + the hex sha256 of s.
func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256:" + hex.EncodeToString(h[:])
}

// function is a valid function spec (schema.ValidateSpec) with handler
// and the fields of extra.
func function(handler string, extra ...map[string]any) map[string]any {
	m := map[string]any{"image": testImage, "source": map[string]any{"paths": []string{"src"}, "digest": sum("src")},
		"handler": handler, "timeout": "300s", "retries": 0}
	for _, e := range extra {
		for k, v := range e {
			m[k] = v
		}
	}
	return m
}

// source is a function's source with the digest of content.
func source(content string) map[string]any {
	return map[string]any{"source": map[string]any{"paths": []string{"src"}, "digest": sum(content)}}
}

// sandbox is a valid sandbox spec with the fields of extra.
func sandbox(extra map[string]any) map[string]any {
	m := map[string]any{"image": testImage}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// dataset is a valid dataset spec of one file with content.
func dataset(content string) map[string]any {
	return map[string]any{"files": []any{map[string]any{"path": "data.csv", "digest": sum(content)}}, "format": "csv"}
}

// spec makes a canonical spec and its hash.
func spec(t testing.TB, v any) (json.RawMessage, string) {
	t.Helper()
	h, b, err := schema.HashOf(v)
	if err != nil {
		t.Fatal(err)
	}
	return b, h
}

func applyReq(t testing.TB, project, addr string, action service.Action, v any, expected int64) service.ApplyRequest {
	s, h := spec(t, v)
	return service.ApplyRequest{Project: project, Address: addr, Action: action, Spec: s, Hash: h, ExpectedSerial: expected}
}

func mustApply(t testing.TB, c *service.Client, req service.ApplyRequest) *service.ApplyResult {
	t.Helper()
	res, err := c.Apply(context.Background(), req)
	if err != nil {
		t.Fatalf("Apply(%s %s) = %v", req.Action, req.Address, err)
	}
	return res
}

func TestEmptyProject(t *testing.T) {
	c := open(t, "")
	st, err := c.GetState(context.Background(), "fresh")
	if err != nil {
		t.Fatal(err)
	}
	if st.Serial != 0 || len(st.Resources) != 0 || st.Lock != nil {
		t.Fatalf("GetState(fresh) = %+v, want an empty state at serial 0", st)
	}
	if err := c.Ping(context.Background()); err != nil {
		t.Fatalf("Ping() = %v", err)
	}
}

func TestApplyAndState(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	r1 := mustApply(t, c, applyReq(t, "p", "volume.data", service.ActionCreate, map[string]any{"size": "1Gi"}, 0))
	if !r1.Changed || r1.Serial != 1 || r1.Resource.Serial != 1 {
		t.Fatalf("create = %+v, want changed at serial 1", r1)
	}
	r2 := mustApply(t, c, applyReq(t, "p", "sandbox.dev", service.ActionCreate, sandbox(map[string]any{"command": []string{"sleep"}}), 1))
	if r2.Serial != 2 {
		t.Fatalf("second create serial = %d, want 2", r2.Serial)
	}
	// The same spec again changes nothing, not even the serial.
	same := mustApply(t, c, applyReq(t, "p", "volume.data", service.ActionUpdate, map[string]any{"size": "1Gi"}, 2))
	if same.Changed || same.Serial != 2 {
		t.Fatalf("unchanged update = %+v, want unchanged at serial 2", same)
	}
	upd := mustApply(t, c, applyReq(t, "p", "volume.data", service.ActionUpdate, map[string]any{"size": "2Gi"}, 2))
	if !upd.Changed || upd.Serial != 3 || !upd.Resource.CreatedAt.Equal(r1.Resource.CreatedAt) {
		t.Fatalf("update = %+v, want changed at serial 3 keeping its creation time", upd)
	}

	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if st.Serial != 3 {
		t.Fatalf("serial = %d, want 3", st.Serial)
	}
	var addrs []string
	for _, r := range st.Resources {
		addrs = append(addrs, r.Address)
		if r.Status != service.StatusReady {
			t.Errorf("%s status = %v, want ready", r.Address, r.Status)
		}
	}
	if diff := cmp.Diff([]string{"sandbox.dev", "volume.data"}, addrs); diff != "" {
		t.Fatalf("addresses (-want +got):\n%s", diff)
	}
	v := st.Lookup("volume.data")
	wantSpec, wantHash := spec(t, map[string]any{"size": "2Gi"})
	if v == nil || v.Hash != wantHash || !bytes.Equal(v.Spec, wantSpec) || v.Kind != schema.KindVolume || v.Name != "data" || v.Serial != 3 {
		t.Fatalf("Lookup(volume.data) = %+v, want spec %s at serial 3", v, wantSpec)
	}

	// An unchanged project answers a known serial with nothing but that.
	if _, changed, err := c.GetStateIfChanged(ctx, "p", 3); err != nil || changed {
		t.Fatalf("GetStateIfChanged(3) changed = %v, %v; want false", changed, err)
	}
	if st, changed, err := c.GetStateIfChanged(ctx, "p", 2); err != nil || !changed || len(st.Resources) != 2 {
		t.Fatalf("GetStateIfChanged(2) = %v, %v, %v; want the state", st, changed, err)
	}
}

func TestApplyRefusals(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	mustApply(t, c, applyReq(t, "p", "volume.a", service.ActionCreate, map[string]any{"size": "1Gi"}, 0))

	s, h := spec(t, map[string]any{"size": "1Gi"})
	tests := []struct {
		name string
		req  service.ApplyRequest
		want error
	}{
		{"create existing", applyReq(t, "p", "volume.a", service.ActionCreate, map[string]any{"size": "3Gi"}, 1), service.ErrAlreadyExists},
		{"update missing", applyReq(t, "p", "volume.b", service.ActionUpdate, map[string]any{"size": "3Gi"}, 1), service.ErrNotFound},
		{"replace missing", applyReq(t, "p", "volume.b", service.ActionReplace, map[string]any{"size": "3Gi"}, 1), service.ErrNotFound},
		{"hash mismatch", service.ApplyRequest{Project: "p", Address: "volume.c", Action: service.ActionCreate, Spec: s, Hash: "sha256:" + hex.EncodeToString(make([]byte, 32))}, service.ErrInvalid},
		{"not canonical", service.ApplyRequest{Project: "p", Address: "volume.c", Action: service.ActionCreate, Spec: json.RawMessage(`{ "size":"1Gi"}`), Hash: h}, service.ErrInvalid},
		{"not JSON", service.ApplyRequest{Project: "p", Address: "volume.c", Action: service.ActionCreate, Spec: json.RawMessage(`{`), Hash: h}, service.ErrInvalid},
		{"bad address", service.ApplyRequest{Project: "p", Address: "volume", Action: service.ActionCreate, Spec: s, Hash: h}, service.ErrInvalid},
		{"unknown kind", service.ApplyRequest{Project: "p", Address: "cluster.x", Action: service.ActionCreate, Spec: s, Hash: h}, service.ErrInvalid},
		{"image via apply", service.ApplyRequest{Project: "p", Address: "image.x", Action: service.ActionCreate, Spec: s, Hash: h}, service.ErrInvalid},
		{"bad project", service.ApplyRequest{Project: "P!", Address: "volume.c", Action: service.ActionCreate, Spec: s, Hash: h}, service.ErrInvalid},
		{"no action", service.ApplyRequest{Project: "p", Address: "volume.c", Spec: s, Hash: h}, service.ErrInvalid},
		{"serial from the future", applyReq(t, "p", "volume.c", service.ActionCreate, map[string]any{"size": "3Gi"}, 99), service.ErrInvalid},
		{"depends on itself", service.ApplyRequest{Project: "p", Address: "volume.c", Action: service.ActionCreate, Spec: s, Hash: h, DependsOn: []string{"volume.c"}}, service.ErrInvalid},
		{"missing versioned dependency", service.ApplyRequest{Project: "p", Address: "evaluation.e", Action: service.ActionCreate, Spec: s, Hash: h, DependsOn: []string{"dataset.none"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := c.Apply(ctx, tt.req)
			if err == nil {
				t.Fatalf("Apply() = nil error, want one")
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("Apply() = %v (%T), want %v", err, err, tt.want)
			}
		})
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if st.Serial != 1 || len(st.Resources) != 1 {
		t.Fatalf("after refusals: serial %d, %d resources; want 1 and 1", st.Serial, len(st.Resources))
	}
}

func TestStaleSerial(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	mustApply(t, c, applyReq(t, "p", "volume.a", service.ActionCreate, map[string]any{"size": "1Gi"}, 0))
	mustApply(t, c, applyReq(t, "p", "volume.b", service.ActionCreate, map[string]any{"size": "1Gi"}, 1))
	// Someone else changes volume.a at serial 3 ...
	mustApply(t, c, applyReq(t, "p", "volume.a", service.ActionUpdate, map[string]any{"size": "2Gi"}, 2))

	// ... so a plan made at serial 2 may not change it again.
	_, err := c.Apply(ctx, applyReq(t, "p", "volume.a", service.ActionUpdate, map[string]any{"size": "5Gi"}, 2))
	var stale *service.StaleError
	if !errors.As(err, &stale) || !errors.Is(err, service.ErrStale) {
		t.Fatalf("Apply(old serial) = %v (%T), want a *StaleError", err, err)
	}
	want := service.StaleError{Project: "p", Address: "volume.a", ExpectedSerial: 2, ResourceSerial: 3, ProjectSerial: 3}
	if diff := cmp.Diff(want, *stale); diff != "" {
		t.Fatalf("StaleError (-want +got):\n%s", diff)
	}
	// A delete planned before the change is stale too, and so is a
	// re-create of something deleted after the plan.
	if _, err := c.Delete(ctx, service.DeleteRequest{Project: "p", Address: "volume.a", ExpectedSerial: 2}); !errors.Is(err, service.ErrStale) {
		t.Fatalf("Delete(old serial) = %v, want stale", err)
	}
	if _, err := c.Delete(ctx, service.DeleteRequest{Project: "p", Address: "volume.b", ExpectedSerial: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(ctx, applyReq(t, "p", "volume.b", service.ActionUpdate, map[string]any{"size": "5Gi"}, 3)); !errors.Is(err, service.ErrStale) {
		t.Fatalf("Apply(update of an address deleted after the plan) = %v, want stale", err)
	}
	// Other resources are not held back by a change elsewhere.
	mustApply(t, c, applyReq(t, "p", "volume.c", service.ActionCreate, map[string]any{"size": "1Gi"}, 2))
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Lookup("volume.a"); got == nil || got.Serial != 3 {
		t.Fatalf("volume.a = %+v, want untouched since serial 3", got)
	}
}

func TestIdempotencyKey(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	req := applyReq(t, "p", "function.f", service.ActionCreate, function("main.run"), 0)
	req.IdempotencyKey = "apply-1/function.f"
	first := mustApply(t, c, req)
	// Another change in between moves the serial on.
	mustApply(t, c, applyReq(t, "p", "volume.v", service.ActionCreate, map[string]any{"size": "1Gi"}, 1))
	second := mustApply(t, c, req)
	if diff := cmp.Diff(first, second); diff != "" {
		t.Fatalf("retry answer differs (-first +second):\n%s", diff)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if st.Serial != 2 || len(st.Resources) != 2 {
		t.Fatalf("after a retried create: serial %d, %d resources; want 2 and 2", st.Serial, len(st.Resources))
	}
	vs, err := c.Versions(ctx, "p", "function.f")
	if err != nil || len(vs) != 1 {
		t.Fatalf("Versions() = %v, %v; want one version", vs, err)
	}
	// The same key for another request is refused.
	other := applyReq(t, "p", "function.f", service.ActionUpdate, function("main.other"), 2)
	other.IdempotencyKey = req.IdempotencyKey
	if _, err := c.Apply(ctx, other); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("Apply(reused key, other request) = %v, want invalid argument", err)
	}
}

func TestVersionReuse(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	h1 := function("main.run", source("1111"))
	h2 := function("main.run", source("2222"))
	type got struct {
		Version int64
		Reused  bool
	}
	var gots []got
	serial := int64(0)
	for i, v := range []any{h1, h2, h1} {
		action := service.ActionUpdate
		if i == 0 {
			action = service.ActionCreate
		}
		r := mustApply(t, c, applyReq(t, "p", "function.rank", action, v, serial))
		serial = r.Serial
		gots = append(gots, got{r.Version, r.Reused})
	}
	if diff := cmp.Diff([]got{{1, false}, {2, false}, {1, true}}, gots); diff != "" {
		t.Fatalf("versions (-want +got):\n%s", diff)
	}
	vs, err := c.Versions(ctx, "p", "function.rank")
	if err != nil {
		t.Fatal(err)
	}
	_, hash1 := spec(t, h1)
	_, hash2 := spec(t, h2)
	var summary []string
	for _, v := range vs {
		summary = append(summary, fmt.Sprintf("v%d %s current=%v", v.Version, v.Hash, v.Current))
	}
	want := []string{"v1 " + hash1 + " current=true", "v2 " + hash2 + " current=false"}
	if diff := cmp.Diff(want, summary); diff != "" {
		t.Fatalf("Versions() (-want +got):\n%s", diff)
	}

	// The state carries the version history, so a plan can tell "reuse
	// version V" from "new version" with no other call.
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	r := st.Lookup("function.rank")
	if r.Version != 1 || len(r.Versions) != 2 || r.VersionWithHash(hash1) != 1 || r.VersionWithHash(hash2) != 2 ||
		r.VersionWithHash("sha256:0") != 0 || r.Versions[0].Spec != nil || !r.Versions[0].Current || r.Versions[1].Current {
		t.Fatalf("state of function.rank = version %d, versions %+v", r.Version, r.Versions)
	}

	// Roll back to v2, then to v2 again (no change).
	rb, err := c.Rollback(ctx, service.RollbackRequest{Project: "p", Address: "function.rank", Version: 2, ExpectedSerial: serial})
	if err != nil {
		t.Fatal(err)
	}
	if !rb.Changed || rb.Resource.Version != 2 || rb.Resource.Hash != hash2 {
		t.Fatalf("Rollback(2) = %+v, want version 2 with hash %s", rb, hash2)
	}
	again, err := c.Rollback(ctx, service.RollbackRequest{Project: "p", Address: "function.rank", Version: 2, ExpectedSerial: rb.Serial})
	if err != nil || again.Changed || again.Serial != rb.Serial {
		t.Fatalf("Rollback(2) again = %+v, %v; want unchanged", again, err)
	}
	if _, err := c.Rollback(ctx, service.RollbackRequest{Project: "p", Address: "function.rank", Version: 7, ExpectedSerial: rb.Serial}); !errors.Is(err, service.ErrNotFound) {
		t.Fatalf("Rollback(7) = %v, want not found", err)
	}
	if _, err := c.Rollback(ctx, service.RollbackRequest{Project: "p", Address: "volume.x", Version: 1}); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("Rollback(volume) = %v, want invalid", err)
	}
	if _, err := c.Versions(ctx, "p", "function.none"); !errors.Is(err, service.ErrNotFound) {
		t.Fatalf("Versions(function.none) = %v, want not found", err)
	}
}

func TestEvaluationPinsDatasetRevision(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	d1 := mustApply(t, c, applyReq(t, "p", "dataset.qa", service.ActionCreate, dataset("aa"), 0))
	ev := applyReq(t, "p", "evaluation.e", service.ActionCreate, map[string]any{"dataset": map[string]any{"ref": "dataset.qa", "hash": d1.Resource.Hash}, "scorers": []any{}}, d1.Serial)
	ev.DependsOn = []string{"dataset.qa"}
	e := mustApply(t, c, ev)
	if diff := cmp.Diff([]service.Pin{{Address: "dataset.qa", Version: 1}}, e.Resource.Pins); diff != "" {
		t.Fatalf("pins (-want +got):\n%s", diff)
	}
	d2 := mustApply(t, c, applyReq(t, "p", "dataset.qa", service.ActionUpdate, dataset("bb"), e.Serial))
	if d2.Version != 2 {
		t.Fatalf("dataset revision = %d, want 2", d2.Version)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Lookup("evaluation.e").Pins; !cmp.Equal(got, []service.Pin{{Address: "dataset.qa", Version: 1}}) {
		t.Fatalf("evaluation pins after a new dataset revision = %v, want still revision 1", got)
	}
}

func TestDelete(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	r := mustApply(t, c, applyReq(t, "p", "function.f", service.ActionCreate, function("a1"), 0))
	d, err := c.Delete(ctx, service.DeleteRequest{Project: "p", Address: "function.f", ExpectedSerial: r.Serial})
	if err != nil {
		t.Fatal(err)
	}
	if d.Deleted == nil || d.Deleted.Hash != r.Resource.Hash || d.Serial != 2 {
		t.Fatalf("Delete() = %+v, want the deleted resource at serial 2", d)
	}
	if _, err := c.Delete(ctx, service.DeleteRequest{Project: "p", Address: "function.f", ExpectedSerial: 2}); !errors.Is(err, service.ErrNotFound) {
		t.Fatalf("Delete() again = %v, want not found", err)
	}
	var nf *service.NotFoundError
	if _, err := c.Versions(ctx, "p", "function.f"); !errors.As(err, &nf) {
		t.Fatalf("Versions() after delete = %v, want a *NotFoundError", err)
	}
	// Created again, it starts from version 1.
	again := mustApply(t, c, applyReq(t, "p", "function.f", service.ActionCreate, function("a2"), 2))
	if again.Version != 1 || again.Reused {
		t.Fatalf("re-create = version %d reused %v, want 1 and false", again.Version, again.Reused)
	}
}

func TestReplace(t *testing.T) {
	clk := newClock()
	c := open(t, "", service.WithClock(clk.Now))
	r := mustApply(t, c, applyReq(t, "p", "sandbox.s", service.ActionCreate, sandbox(map[string]any{"profiles": []any{"gpu0"}}), 0))
	clk.Advance(time.Minute)
	rep := mustApply(t, c, applyReq(t, "p", "sandbox.s", service.ActionReplace, sandbox(map[string]any{"profiles": []any{"gpu1"}}), r.Serial))
	if !rep.Changed || rep.Serial != 2 || !rep.Resource.CreatedAt.Equal(clk.Now()) || !r.Resource.CreatedAt.Equal(clk.Now().Add(-time.Minute)) {
		t.Fatalf("replace = %+v, want a change at serial 2 with a new creation time", rep)
	}
	// A replace with the same spec is still a replace.
	rep2 := mustApply(t, c, applyReq(t, "p", "sandbox.s", service.ActionReplace, sandbox(map[string]any{"profiles": []any{"gpu1"}}), rep.Serial))
	if !rep2.Changed || rep2.Serial != 3 {
		t.Fatalf("replace with the same spec = %+v, want a change at serial 3", rep2)
	}
}

func TestEnsureImage(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	s, h := spec(t, map[string]any{"from": "python:3.12-slim@sha256:abc", "steps": []any{}})
	req := service.ImageRequest{Project: "p", Address: "image.base", Hash: h, Spec: s}
	first, err := c.EnsureImage(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if !first.Created || !first.Changed || first.Serial != 1 || first.Image.Hash != h || first.Resource.Address != "image.base" {
		t.Fatalf("EnsureImage() = %+v, want a new image at serial 1", first)
	}
	req.ExpectedSerial = 1
	second, err := c.EnsureImage(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if second.Created || second.Changed || second.Serial != 1 || !second.Image.CreatedAt.Equal(first.Image.CreatedAt) {
		t.Fatalf("EnsureImage() again = %+v, want the same image, nothing changed", second)
	}
	// The same image under a second name is the same value.
	alias, err := c.EnsureImage(ctx, service.ImageRequest{Project: "p", Address: "image.other", Hash: h, Spec: s, ExpectedSerial: 1})
	if err != nil {
		t.Fatal(err)
	}
	if alias.Created || !alias.Changed || alias.Serial != 2 {
		t.Fatalf("EnsureImage(alias) = %+v, want an existing value under a new address", alias)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Images) != 1 || st.Images[0].Hash != h || len(st.Resources) != 2 {
		t.Fatalf("state = %d images, %d resources; want 1 image under 2 addresses", len(st.Images), len(st.Resources))
	}
	if _, err := c.EnsureImage(ctx, service.ImageRequest{Project: "p", Address: "volume.x", Hash: h, Spec: s}); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("EnsureImage(volume address) = %v, want invalid", err)
	}
}

func TestLocks(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	c := openRaw(t, "", service.WithClock(clk.Now))
	alice := service.Holder{User: "alice", Host: "laptop", Command: "cc apply", PID: 41}
	bob := service.Holder{User: "bob", Host: "ci", Command: "cc apply -auto-approve", PID: 7}

	la, serial, err := c.Lock(ctx, "p", alice, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if serial != 0 || la.Holder != alice || !la.ExpiresAt.Equal(clk.Now().Add(30*time.Second)) {
		t.Fatalf("Lock(alice) = %+v, %d", la, serial)
	}
	_, _, err = c.Lock(ctx, "p", bob, time.Minute)
	var locked *service.LockedError
	if !errors.As(err, &locked) || !errors.Is(err, service.ErrLocked) {
		t.Fatalf("Lock(bob) = %v (%T), want a *LockedError", err, err)
	}
	// issue 8 item 12: the refusal names alice's lease, but not its id,
	// which would let bob write as alice.
	if locked.Lease.Holder != alice || locked.Lease.ID != "" || !locked.Lease.AcquiredAt.Equal(la.AcquiredAt) {
		t.Fatalf("LockedError names %+v, want alice's lease without its id", locked.Lease)
	}
	if strings.Contains(err.Error(), la.ID) {
		t.Fatalf("LockedError %q shows alice's lease id", err)
	}
	for _, want := range []string{"alice@laptop", "cc apply", "pid 41"} {
		if !bytes.Contains([]byte(err.Error()), []byte(want)) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	// Mutations without alice's lease are refused; with it they go on.
	if _, err := c.Apply(ctx, applyReq(t, "p", "volume.v", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)); !errors.Is(err, service.ErrLocked) {
		t.Fatalf("Apply() without the lease = %v, want locked", err)
	}
	req := applyReq(t, "p", "volume.v", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)
	req.LeaseID = la.ID
	mustApply(t, c, req)
	st, err := c.GetState(ctx, "p")
	if err != nil || st.Lock == nil || st.Lock.Holder != alice {
		t.Fatalf("GetState().Lock = %+v, %v; want alice's lease", st.Lock, err)
	}

	// Renewing moves the expiry; bob is still refused after the first TTL.
	clk.Advance(20 * time.Second)
	renewed, err := c.RenewLock(ctx, "p", la.ID, 30*time.Second)
	if err != nil || !renewed.ExpiresAt.Equal(clk.Now().Add(30*time.Second)) {
		t.Fatalf("RenewLock() = %+v, %v", renewed, err)
	}
	clk.Advance(20 * time.Second)
	if _, _, err := c.Lock(ctx, "p", bob, time.Minute); !errors.Is(err, service.ErrLocked) {
		t.Fatalf("Lock(bob) within the renewed lease = %v, want locked", err)
	}
	if err := c.Unlock(ctx, "p", "not-the-lease"); !errors.Is(err, service.ErrLocked) {
		t.Fatalf("Unlock(wrong lease) = %v, want locked", err)
	}

	// After the lease expires, bob takes it; alice can no longer renew.
	clk.Advance(11 * time.Second)
	lb, _, err := c.Lock(ctx, "p", bob, time.Minute)
	if err != nil {
		t.Fatalf("Lock(bob) after expiry = %v", err)
	}
	if _, err := c.RenewLock(ctx, "p", la.ID, time.Minute); !errors.Is(err, service.ErrLocked) {
		t.Fatalf("RenewLock(alice) after bob took over = %v, want locked", err)
	}
	// Force unlock releases bob's lease whoever asks.
	released, err := c.ForceUnlock(ctx, "p")
	if err != nil || released == nil || released.ID != lb.ID {
		t.Fatalf("ForceUnlock() = %+v, %v; want bob's lease", released, err)
	}
	lc, _, err := c.Lock(ctx, "p", alice, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Unlock(ctx, "p", lc.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := c.RenewLock(ctx, "p", lc.ID, 0); !errors.Is(err, service.ErrNotFound) {
		t.Fatalf("RenewLock() after Unlock = %v, want not found", err)
	}
	if _, _, err := c.Lock(ctx, "p", service.Holder{}, 0); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("Lock(no holder) = %v, want invalid", err)
	}
	if _, _, err := c.Lock(ctx, "p", alice, 2*time.Hour); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("Lock(2h) = %v, want invalid", err)
	}
}

func TestSecrets(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	put := func(value string, expected int64) *service.SecretResult {
		t.Helper()
		r, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.openai", Value: []byte(value), ExpectedSerial: expected})
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r1 := put("one", 0)
	r2 := put("one", r1.Serial)
	r3 := put("two", r2.Serial)
	if r1.SecretValue.Revision != 1 || !r1.Changed || r2.SecretValue.Revision != 1 || r2.Changed || r3.SecretValue.Revision != 2 || r3.Serial != 2 {
		t.Fatalf("revisions = %+v, %+v, %+v; want 1, 1 (unchanged), 2", r1, r2, r3)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	sv := st.SecretValue("secret.openai")
	if sv == nil || sv.Revision != 2 {
		t.Fatalf("state secret value = %+v, want revision 2", sv)
	}
	// The state has nothing derived from the value (issue 8 item 8); the
	// service compares a local value with its own.
	if sv.SameValueAs != 2 {
		t.Errorf("revision 2 same_value_as %d, want 2", sv.SameValueAs)
	}
	got, err := c.CompareValues(ctx, "p", []service.ValueToCompare{
		{Address: "secret.openai", Value: []byte("two")},
		{Address: "secret.openai", Value: []byte("one")},
		{Address: "secret.openai", Value: []byte("one"), Revision: 1},
		{Address: "secret.none", Value: []byte("one")},
	})
	if want := []service.Comparison{service.Equal, service.Different, service.Equal, service.Absent}; err != nil || !cmp.Equal(got, want) {
		t.Fatalf("CompareValues = %v, %v; want %v", got, err, want)
	}
	vs, err := c.Versions(ctx, "p", "secret.openai")
	if err != nil || len(vs) != 2 || !vs[1].Current || vs[0].Current {
		t.Fatalf("Versions(secret) = %+v, %v; want two revisions, the second current", vs, err)
	}
	if _, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "volume.x", Value: []byte("v")}); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("PutSecretValue(volume) = %v, want invalid", err)
	}
	// Applying the secret's spec at the same address does not make a
	// later value put stale.
	mustApply(t, c, applyReq(t, "p", "secret.openai", service.ActionCreate, map[string]any{"from_env": "OPENAI_API_KEY"}, r3.Serial))
	put("three", r3.Serial)
}

func TestBlobs(t *testing.T) {
	ctx := context.Background()
	c := open(t, "", service.WithMaxBlobSize(8<<20))
	small := []byte("print('hello')\n")
	big := bytes.Repeat([]byte("0123456789abcdef"), (3<<20)/16+5) // several chunks
	digest := func(b []byte) string {
		s := sha256.Sum256(b)
		return "sha256:" + hex.EncodeToString(s[:])
	}
	ds, db := digest(small), digest(big)
	missing, err := c.MissingBlobs(ctx, "p", []string{db, ds, ds})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{ds, db}
	if ds > db {
		want = []string{db, ds}
	}
	if diff := cmp.Diff(want, missing); diff != "" {
		t.Fatalf("MissingBlobs() (-want +got):\n%s", diff)
	}
	// An apply needing a blob that is not there is refused, naming it.
	req := applyReq(t, "p", "function.f", service.ActionCreate, function("main.run", map[string]any{"source": map[string]any{"paths": []string{"src"}, "digest": ds}}), 0)
	req.Blobs = []string{ds}
	_, err = c.Apply(ctx, req)
	var mb *service.MissingBlobsError
	if !errors.As(err, &mb) || !cmp.Equal(mb.Digests, []string{ds}) {
		t.Fatalf("Apply() before upload = %v, want a *MissingBlobsError for %s", err, ds)
	}

	// A blob whose content does not match its digest is refused and not
	// stored.
	if _, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: ds, Size: int64(len(small))}, bytes.NewReader([]byte("print('HELLO')\n"))); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("UploadBlob(wrong content) = %v, want invalid", err)
	}
	if _, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: ds, Size: int64(len(small)) + 1}, bytes.NewReader(small)); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("UploadBlob(wrong size) = %v, want invalid", err)
	}
	for _, b := range [][]byte{small, big} {
		existed, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: digest(b), Size: int64(len(b))}, bytes.NewReader(b))
		if err != nil || existed {
			t.Fatalf("UploadBlob() = %v, %v; want stored", existed, err)
		}
	}
	existed, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: db, Size: int64(len(big))}, bytes.NewReader(big))
	if err != nil || !existed {
		t.Fatalf("UploadBlob() again = %v, %v; want existed", existed, err)
	}
	if missing, err := c.MissingBlobs(ctx, "p", []string{ds, db}); err != nil || len(missing) != 0 {
		t.Fatalf("MissingBlobs() after upload = %v, %v; want none", missing, err)
	}
	// Blobs belong to their project.
	if missing, err := c.MissingBlobs(ctx, "q", []string{ds}); err != nil || len(missing) != 1 {
		t.Fatalf("MissingBlobs(other project) = %v, %v; want the blob missing", missing, err)
	}
	mustApply(t, c, req)
	if _, err := c.MissingBlobs(ctx, "p", []string{"md5:abc"}); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("MissingBlobs(bad digest) = %v, want invalid", err)
	}
	tooBig := int64(9 << 20)
	if _, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: ds, Size: tooBig}, bytes.NewReader(small)); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("UploadBlob(over the limit) = %v, want invalid", err)
	}
}

// TestIssue9VersionsOfUnversionedKindWords: issue 9 item 18. The service
// names an unversioned kind's plural as a word ("sandboxes"), not by
// adding an s ("sandboxs").
func TestIssue9VersionsOfUnversionedKindWords(t *testing.T) {
	c := open(t, "")
	_, err := c.Versions(context.Background(), "p", "sandbox.dev")
	if err == nil || !strings.Contains(err.Error(), "sandbox.dev: sandboxes have no versions") {
		t.Fatalf("Versions(sandbox.dev) error = %v, want it to say sandboxes have no versions", err)
	}
}
