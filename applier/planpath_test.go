package applier_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/planner"
	"cc.dev/cc/service"
)

// TestIssue16OnePlanningPath: Plan is the one planning path of cc plan and
// cc apply (issue 16 item 5). What cc plan used to read around it (the
// holder of the project's lock, the read's error) comes out of it, and
// the state a saved plan is checked against is read by the applier too.
func TestIssue16OnePlanningPath(t *testing.T) {
	ctx := context.Background()
	cl, calls := server(t)
	d := project(t, t.TempDir(), workload.Options{N: 8})
	a := newApplier(t, cl, d)
	if _, res := applyAll(t, a, d); res.Err() != nil {
		t.Fatal(res.Err())
	}

	lk, err := a.Lock(ctx, d.Project)
	if err != nil {
		t.Fatal(err)
	}
	p, st, err := a.Plan(ctx, d, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st.Lock == nil || !strings.Contains(st.Lock.Holder.String(), "cc apply") || p.Changed() {
		t.Errorf("Plan() under a lock: lock %+v, changed %v; want the holder and no change", st.Lock, p.Changed())
	}
	saved, err := a.State(ctx, d.Project)
	if err != nil || saved.Serial != st.Serial || len(saved.Resources) != len(st.Resources) || saved.Lock == nil {
		t.Errorf("State() = %+v, %v; want the state Plan read", saved, err)
	}
	lk.Release()
	if _, st, _ = a.Plan(ctx, d, planner.Options{}); st.Lock != nil {
		t.Errorf("Plan() after the release: lock %+v, want none", st.Lock)
	}

	calls.reset(func(method string, _ int) error {
		return status.Error(codes.PermissionDenied, "no")
	})
	_, _, err = a.Plan(ctx, d, planner.Options{})
	var re *applier.ReadError
	if !errors.As(err, &re) || re.Project != d.Project || !strings.HasPrefix(err.Error(), "read the state of project "+d.Project+": ") {
		t.Errorf("Plan() with the read refused = %v, want a *ReadError", err)
	}
}

// The service's client returns the state the planner plans against: one
// type, not two shapes converted into each other (issue 16 item 5).
var _ *planner.State = (*service.State)(nil)
