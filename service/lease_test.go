package service_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cc.dev/cc/service"
)

// TestItem4ReleasedLeaseRefused: issue 8 item 4. After force-unlock, the
// apply that had the lock can no longer write: every mutation must carry a
// live lease of the project's lock, checked in the mutation's transaction,
// and a refusal names the lock's state.
func TestItem4ReleasedLeaseRefused(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	c := openRaw(t, "", service.WithClock(clk.Now))
	alice := service.Holder{User: "alice", Host: "laptop", Command: "cc apply", PID: 41}
	bob := service.Holder{User: "bob", Host: "ci", Command: "cc apply", PID: 7}

	refused := func(what string, err error, reason string) *service.LeaseError {
		t.Helper()
		var le *service.LeaseError
		if !errors.As(err, &le) || !errors.Is(err, service.ErrLeaseRefused) || le.Reason != reason || le.Project != "p" {
			t.Fatalf("%s = %v (%T), want a *LeaseError for project p with reason %q", what, err, err, reason)
		}
		return le
	}
	serial := func() int64 {
		t.Helper()
		st, err := c.GetState(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		return st.Serial
	}

	// Without a lease, even when nobody holds the lock.
	_, err := c.Apply(ctx, applyReq(t, "p", "volume.v", service.ActionCreate, volume("1Gi"), 0))
	refused("Apply() without a lease", err, service.LeaseNone)

	la, _, err := c.Lock(ctx, "p", alice, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	req := applyReq(t, "p", "volume.v", service.ActionCreate, volume("1Gi"), 0)
	req.LeaseID = la.ID
	mustApply(t, c, req)

	// Force-unlock: alice's next mutation is refused, and writes nothing.
	if _, err := c.ForceUnlock(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	req = applyReq(t, "p", "volume.w", service.ActionCreate, volume("1Gi"), 1)
	req.LeaseID = la.ID
	_, err = c.Apply(ctx, req)
	le := refused("Apply() with a force-released lease", err, service.LeaseReleased)
	if !strings.Contains(le.Error(), "released") {
		t.Errorf("error %q does not say the lease was released", le)
	}
	if s := serial(); s != 1 {
		t.Fatalf("serial after a refused apply = %d, want 1", s)
	}

	// Bob takes the lock: alice is refused naming bob, but not bob's lease id.
	lb, _, err := c.Lock(ctx, "p", bob, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Apply(ctx, req)
	le = refused("Apply() while bob holds the lock", err, service.LeaseHeld)
	if le.Holder != bob || !errors.Is(err, service.ErrLocked) {
		t.Fatalf("LeaseError holder = %+v, want bob", le.Holder)
	}
	if strings.Contains(err.Error(), lb.ID) {
		t.Fatalf("refusal %q shows bob's lease id", err)
	}
	// Every kind of mutation is refused without bob's lease.
	img, imgHash := spec(t, map[string]any{"from": "busybox"})
	for name, call := range map[string]func() error{
		"EnsureImage": func() error {
			_, err := c.EnsureImage(ctx, service.ImageRequest{Project: "p", Address: "image.i", Spec: img, Hash: imgHash, ExpectedSerial: 1, LeaseID: la.ID})
			return err
		},
		"DeleteResource": func() error {
			_, err := c.Delete(ctx, service.DeleteRequest{Project: "p", Address: "volume.v", ExpectedSerial: 1, LeaseID: la.ID})
			return err
		},
		"Rollback": func() error {
			_, err := c.Rollback(ctx, service.RollbackRequest{Project: "p", Address: "function.f", Version: 1, ExpectedSerial: 1})
			return err
		},
		"PutSecretValue": func() error {
			_, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.s", Value: []byte("v"), ExpectedSerial: 1})
			return err
		},
	} {
		refused(name, call(), service.LeaseHeld)
	}
	if s := serial(); s != 1 {
		t.Fatalf("serial after refused mutations = %d, want 1", s)
	}

	// Bob's lease expires without renewal: his mutation is refused too.
	clk.Advance(time.Minute + time.Second)
	req = applyReq(t, "p", "volume.w", service.ActionCreate, volume("1Gi"), 1)
	req.LeaseID = lb.ID
	_, err = c.Apply(ctx, req)
	refused("Apply() with an expired lease", err, service.LeaseExpired)
	// Renewed, it writes again.
	if _, err := c.RenewLock(ctx, "p", lb.ID, time.Minute); err != nil {
		t.Fatal(err)
	}
	if r := mustApply(t, c, req); r.Serial != 2 {
		t.Fatalf("apply with the renewed lease at serial %d, want 2", r.Serial)
	}
}

// TestItem2Lineage: issue 8 item 2 (the server's side). Two servers with
// the same project at the same serial have different lineages; a project's
// lineage stays the same across mutations and restarts; a project never
// written has none; Acquire returns it.
func TestItem2Lineage(t *testing.T) {
	ctx := context.Background()
	lineage := func(c *service.Client) string {
		t.Helper()
		st, err := c.GetState(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		return st.Lineage
	}
	dbA, dbB := testDB(t), testDB(t)
	a, closeA, err := openEmbedded(ctx, dbA)
	if err != nil {
		t.Fatal(err)
	}
	b := open(t, dbB)
	if l := lineage(a); l != "" {
		t.Fatalf("lineage of a project never written = %q, want none", l)
	}
	mustApply(t, a, applyReq(t, "p", "volume.v", service.ActionCreate, volume("1Gi"), 0))
	mustApply(t, b, applyReq(t, "p", "volume.v", service.ActionCreate, volume("2Gi"), 0))
	la, lb := lineage(a), lineage(b)
	if len(la) != 32 || len(lb) != 32 || la == lb {
		t.Fatalf("lineages = %q and %q, want two different 32-digit ids", la, lb)
	}
	mustApply(t, a, applyReq(t, "p", "volume.v", service.ActionUpdate, volume("3Gi"), 1))
	if _, err := a.Delete(ctx, service.DeleteRequest{Project: "p", Address: "volume.v", ExpectedSerial: 2}); err != nil {
		t.Fatal(err)
	}
	if l := lineage(a); l != la {
		t.Fatalf("lineage after mutations = %q, want %q", l, la)
	}
	if err := closeA(); err != nil {
		t.Fatal(err)
	}
	a = open(t, dbA)
	if l := lineage(a); l != la {
		t.Fatalf("lineage after a restart = %q, want %q", l, la)
	}
	if _, err := a.ForceUnlock(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	lk, err := a.Acquire(ctx, "p", service.Holder{User: "u", Host: "h"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if lk.Lineage != la || lk.Serial != 3 || lk.Lease.ID == "" {
		t.Fatalf("Acquire() = %+v, want lineage %s at serial 3", lk, la)
	}
	fresh, err := a.Acquire(ctx, "q", service.Holder{User: "u", Host: "h"}, 0)
	if err != nil || fresh.Lineage != "" {
		t.Fatalf("Acquire(never written) = %+v, %v; want no lineage", fresh, err)
	}
}

// volume is a volume's spec.
func volume(size string) map[string]any { return map[string]any{"size": size} }
