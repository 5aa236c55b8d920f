package applier

import (
	"math/rand"
	"sort"
	"testing"

	"cc.dev/cc/planner"
)

// TestReadyQueueStartsByAddress: issue 13, apply. The ready changes start
// by address, whatever the order they became ready in, as when they were
// all sorted before each start.
func TestReadyQueueStartsByAddress(t *testing.T) {
	var addrs []string
	for i := range 500 {
		addrs = append(addrs, "function.f-"+string(rune('a'+i%26))+string(rune('a'+i/26)))
	}
	rand.New(rand.NewSource(1)).Shuffle(len(addrs), func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })
	var q readyQueue
	var got []string
	for i, a := range addrs {
		q.add(&node{c: &planner.Change{Addr: a}})
		if i%3 == 2 { // some start while others become ready
			got = append(got, q.next().c.Addr)
		}
	}
	for q.Len() > 0 {
		got = append(got, q.next().c.Addr)
	}
	// The reference: a sort of the ready ones before each start.
	var want, ready []string
	for i, a := range addrs {
		ready = append(ready, a)
		if i%3 == 2 {
			sort.Strings(ready)
			want, ready = append(want, ready[0]), ready[1:]
		}
	}
	sort.Strings(ready)
	want = append(want, ready...)
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("start %d = %s, want %s", i, got[i], want[i])
		}
	}
}
