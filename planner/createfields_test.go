package planner_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/planner"
)

// TestCreateFieldsOnEveryCoreSamePlan: issue 13: a plan whose creates'
// fields are computed on every core ahead of explaining is the plan
// computed in order, change for change and byte for byte, for a project
// of creates and for one of creates, updates and deletes.
func TestCreateFieldsOnEveryCoreSamePlan(t *testing.T) {
	old := compileWorkload(t, workload.Options{N: 600})
	cur := compileWorkload(t, workload.Options{N: 800, Seed: 1})
	for _, c := range []struct {
		name string
		st   *planner.State
	}{{"creates", nil}, {"mixed", applied(old, 4)}} {
		plan := func(threshold int) (*planner.Plan, []byte) {
			defer planner.SetParallelCreates(threshold)()
			p := diff(t, cur, c.st, planner.Options{})
			b, err := json.Marshal(p)
			if err != nil {
				t.Fatal(err)
			}
			return p, b
		}
		serial, sb := plan(1 << 30)
		parallel, pb := plan(1)
		creates := 0
		for _, ch := range parallel.Changes {
			if ch.Action == planner.Create && len(ch.Fields) > 0 {
				creates++
			}
		}
		if creates < 100 {
			t.Fatalf("%s: only %d creates with fields", c.name, creates)
		}
		if !reflect.DeepEqual(serial, parallel) || string(sb) != string(pb) {
			t.Errorf("%s: the plan differs when creates' fields are computed ahead", c.name)
		}
	}
}
