package service_test

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/service"
)

// issue 10: forced versions. new_version makes version N+1 of a function
// with the key of version N; a later request with that key reuses the
// newest of them, and an idempotency key replayed without new_version is
// refused (the field is in the request's MAC).
func TestNewVersionBypassesReuse(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	h1 := function("main.run", source("1111"))
	h2 := function("main.run", source("2222"))
	r := mustApply(t, c, applyReq(t, "p", "function.f", service.ActionCreate, h1, 0))
	type got struct {
		Version int64
		Reused  bool
	}
	var gots []got
	step := func(v any, action service.Action, force bool, key string) {
		t.Helper()
		req := applyReq(t, "p", "function.f", action, v, r.Serial)
		req.NewVersion, req.IdempotencyKey = force, key
		r = mustApply(t, c, req)
		gots = append(gots, got{r.Version, r.Reused})
	}
	step(h1, service.ActionUpdate, false, "") // same key: reused, no change
	step(h1, service.ActionUpdate, true, "force-1")
	step(h2, service.ActionUpdate, false, "")
	step(h1, service.ActionUpdate, false, "") // back: the newest with the key, 2
	step(h1, service.ActionReplace, true, "")
	if diff := cmp.Diff([]got{{1, true}, {2, false}, {3, false}, {2, true}, {4, false}}, gots); diff != "" {
		t.Fatalf("versions (-want +got):\n%s", diff)
	}
	vs, err := c.Versions(ctx, "p", "function.f")
	if err != nil || len(vs) != 4 {
		t.Fatalf("Versions() = %d versions, %v; want 4", len(vs), err)
	}
	if vs[0].Key != vs[1].Key || vs[1].Key != vs[3].Key || vs[1].Key == vs[2].Key {
		t.Fatalf("keys %q %q %q %q: want 1, 2 and 4 equal, 3 another", vs[0].Key, vs[1].Key, vs[2].Key, vs[3].Key)
	}
	// The replay of force-1 without new_version is another request.
	req := applyReq(t, "p", "function.f", service.ActionUpdate, h1, r.Serial)
	req.IdempotencyKey = "force-1"
	if _, err := c.Apply(ctx, req); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("Apply(force-1 without new_version) = %v, want invalid argument", err)
	}
}

// issue 10: forced versions. The service validates new_version: functions
// only, and not on a create.
func TestNewVersionRefused(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	ds := mustApply(t, c, applyReq(t, "p", "dataset.d", service.ActionCreate, dataset("a,b\n"), 0))
	for _, tc := range []struct {
		name string
		req  service.ApplyRequest
	}{
		{"create", applyReq(t, "p", "function.f", service.ActionCreate, function("main.run"), ds.Serial)},
		{"dataset", applyReq(t, "p", "dataset.d", service.ActionUpdate, dataset("a,b\n"), ds.Serial)},
		{"volume", applyReq(t, "p", "volume.v", service.ActionCreate, map[string]any{"size": "1Gi"}, ds.Serial)},
	} {
		tc.req.NewVersion = true
		if _, err := c.Apply(ctx, tc.req); !errors.Is(err, service.ErrInvalid) {
			t.Errorf("%s: Apply(new_version) = %v, want invalid argument", tc.name, err)
		}
	}
}
