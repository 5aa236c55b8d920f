package planner

import (
	"runtime"
	"sync"
	"sync/atomic"

	"cc.dev/cc/schema"
)

// A create's field changes are its spec's fields, each added: a pure
// function of the desired resource, and at 10,000 creates four fifths of
// what Diff does. A plan with many creates computes them on every core
// before it explains its changes in order (issue 13), and explain takes
// them from there; the plan is the same.

// parallelCreates is how many creates a plan has at least before their
// fields are computed on every core; createChunk how many a worker takes
// at a time.
var parallelCreates = 256

const createChunk = 64

// addedFields are the field changes of creating dr. They are listed in
// *scratch, kept from call to call, and copied out at their size: at
// 10,000 creates, growing each resource's list was a third of what a
// plan allocated (issue 13, aim 6: a plan comes just after the compile's
// peak). A create has no reasons, so their paths are not kept.
func addedFields(dr *schema.Resource, scratch *[]FieldChange) []FieldChange {
	d := &fieldDiffer{sens: newSensitivity(dr.Sensitive), out: (*scratch)[:0], noPaths: true}
	d.added(nil, decode(dr.Spec))
	*scratch = d.out
	if len(d.out) == 0 {
		return nil
	}
	out := make([]FieldChange, len(d.out))
	copy(out, d.out)
	clear(d.out) // the scratch holds no value it gave out
	return out
}

// createFields computes the field changes of the creates of order on
// every core, into pl.created, when there are parallelCreates or more.
func (pl *planning) createFields(order []*Change) {
	var cs []*Change
	var rs []*schema.Resource
	for _, c := range order {
		if dr := pl.want[c.Addr]; c.Action == Create && dr != nil {
			cs, rs = append(cs, c), append(rs, dr)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(cs) < parallelCreates || workers < 2 {
		return
	}
	out := make([][]FieldChange, len(cs))
	var next atomic.Int64
	var wg sync.WaitGroup
	var panicked atomic.Value
	for range workers {
		wg.Go(func() {
			var scratch []FieldChange
			defer func() {
				if r := recover(); r != nil {
					panicked.CompareAndSwap(nil, r) // raised on the caller's goroutine
				}
			}()
			for {
				i := int(next.Add(createChunk)) - createChunk
				if i >= len(cs) {
					return
				}
				for j := i; j < min(i+createChunk, len(cs)); j++ {
					out[j] = addedFields(rs[j], &scratch)
				}
			}
		})
	}
	wg.Wait()
	if r := panicked.Load(); r != nil {
		panic(r)
	}
	pl.created = make(map[*Change][]FieldChange, len(cs))
	for i, c := range cs {
		pl.created[c] = out[i]
	}
}
