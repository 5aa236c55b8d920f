package applier_test

import (
	"context"
	"testing"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// noComparisons is the real service as one that does not compare values
// in GetState answers it: without matches.
type noComparisons struct{ *service.Client }

func (n noComparisons) GetStateComparing(ctx context.Context, project string, vals []service.ValueToCompare, opts ...service.StateOption) (*service.State, []service.ValueMatch, error) {
	st, _, err := n.Client.GetStateComparing(ctx, project, nil, opts...)
	return st, nil, err
}

// TestItem8NoComparisonsTakesValuesAsChanged: issue 8 item 8. A service
// that answers GetState without comparing the local values it was given
// leaves nothing out of the plan: every local secret value is taken as
// changed, never as equal.
func TestItem8NoComparisonsTakesValuesAsChanged(t *testing.T) {
	cl, calls := server(t)
	d := project(t, t.TempDir(), workload.Options{N: 20})
	secrets := 0
	for _, r := range d.Resources {
		if r.Kind == schema.KindSecret {
			secrets++
		}
	}
	if secrets == 0 {
		t.Fatal("the workload has no secret")
	}
	if _, res := applyAll(t, newApplier(t, cl, d), d); res.Err() != nil {
		t.Fatal(res.Err())
	}
	calls.reset(nil)
	noChanges(t, newApplier(t, cl, d), d)
	if calls.total != 1 || calls.get("GetState") != 1 {
		t.Errorf("an unchanged plan made %d calls (%v), want one GetState", calls.total, calls.n)
	}
	p, _, err := newApplier(t, noComparisons{cl}, d).Plan(context.Background(), d, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	changed := 0
	for _, c := range p.Changes {
		if schema.KindOf(c.Addr) == schema.KindSecret {
			changed++
		}
	}
	if changed != secrets {
		t.Errorf("without comparisons, %d of %d secrets change, want all", changed, secrets)
	}
}

var _ applier.Service = noComparisons{}
