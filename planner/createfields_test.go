package planner_test

import (
	"cmp"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"unsafe"

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

// TestCreateFieldsExactAndOwn: issue 13, aim 6: each create's field
// changes, computed in order or on every core, are held at their size
// (cap == len: no list grown by doubling is kept) and in an array of
// their own (none shares the scratch they were listed in).
func TestCreateFieldsExactAndOwn(t *testing.T) {
	d := compileWorkload(t, workload.Options{N: 400})
	for _, threshold := range []int{1 << 30, 1} {
		restore := planner.SetParallelCreates(threshold)
		p := diff(t, d, nil, planner.Options{})
		restore()
		type span struct{ start, end uintptr }
		var spans []span
		for _, c := range p.Changes {
			if c.Action != planner.Create || len(c.Fields) == 0 {
				continue
			}
			if cap(c.Fields) != len(c.Fields) {
				t.Fatalf("threshold %d: %s holds %d field changes in room for %d", threshold, c.Addr, len(c.Fields), cap(c.Fields))
			}
			size := unsafe.Sizeof(c.Fields[0])
			start := uintptr(unsafe.Pointer(&c.Fields[0]))
			spans = append(spans, span{start, start + uintptr(len(c.Fields))*size})
		}
		if len(spans) < 100 {
			t.Fatalf("threshold %d: %d creates with fields", threshold, len(spans))
		}
		slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
		for i := 1; i < len(spans); i++ {
			if spans[i].start < spans[i-1].end {
				t.Fatalf("threshold %d: two creates' field changes share an array", threshold)
			}
		}
	}
}
