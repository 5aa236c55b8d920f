package applier_test

import (
	"testing"

	"cc.dev/cc/compiler/workload"
)

// TestNoopPlanOfTenThousandOneStateRead: issue 10 acceptance 9. With
// everything the lifecycle constructs read from the service (moves,
// imports, data sources, drift) folded into the state read, the no-op plan
// of 10,000 resources still makes exactly one call: GetState.
func TestNoopPlanOfTenThousandOneStateRead(t *testing.T) {
	if testing.Short() {
		t.Skip("applies 10,000 resources")
	}
	cl, calls := server(t)
	d := project(t, t.TempDir(), workload.Options{N: 10000})
	a := newApplier(t, cl, d)
	if _, res := applyAll(t, a, d); res.Err() != nil {
		t.Fatal(res.Err())
	}
	calls.reset(nil)
	noChanges(t, a, d)
	if calls.total != 1 || calls.get("GetState") != 1 {
		t.Errorf("the no-op plan of 10,000 resources made %d calls (%v), want one GetState", calls.total, calls.n)
	}
}
