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
	if !strings.Contains(st.LockedBy, "cc apply") || p.Changed() {
		t.Errorf("Plan() under a lock: LockedBy %q, changed %v; want the holder and no change", st.LockedBy, p.Changed())
	}
	saved, err := a.State(ctx, d.Project)
	if err != nil || saved.Serial != st.Serial || len(saved.Resources) != len(st.Resources) || saved.LockedBy != st.LockedBy {
		t.Errorf("State() = %+v, %v; want the state Plan read", saved, err)
	}
	lk.Release()
	if _, st, _ = a.Plan(ctx, d, planner.Options{}); st.LockedBy != "" {
		t.Errorf("Plan() after the release: LockedBy %q, want none", st.LockedBy)
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
