package applier_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/service"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// stateRows is the state of project as "address hash version" lines,
// sorted: what two applies of one project must agree on.
func stateRows(t *testing.T, cl *service.Client, project string) []string {
	t.Helper()
	st, err := cl.GetState(context.Background(), project)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, r := range st.Resources {
		rows = append(rows, fmt.Sprintf("%s %s %d", r.Address, r.Hash, r.Version))
	}
	sort.Strings(rows)
	return rows
}

// TestApplyInBatches: issue 13, a batched apply. The changes ready
// together go in ApplyBatch calls of at most the batch size, so far fewer
// calls than changes are made; every change still has one start and one
// completion event, numbered once each, and the state is the one the same
// plan applied a change per call gives.
func TestApplyInBatches(t *testing.T) {
	const n = 250
	d := project(t, t.TempDir(), workload.Options{N: n})
	counts := workload.CountsFor(n)

	cl, calls := server(t)
	var mu sync.Mutex
	starts, completes := map[string]int{}, map[string]int{}
	seqs := map[int]bool{}
	a := newApplier(t, cl, d, applier.WithBatchSize(40), applier.WithEvents(func(ev applier.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch ev.Type {
		case applier.EventStart:
			starts[ev.Change.Addr]++
			seqs[ev.Seq] = true
		case applier.EventComplete:
			completes[ev.Change.Addr]++
		}
	}))
	p, res := applyAll(t, a, d)
	if err := res.Err(); err != nil || len(res.Done) != n {
		t.Fatalf("%d of %d done: %v", len(res.Done), n, err)
	}
	batches := calls.get("ApplyBatch")
	alone := calls.get("ApplyResource") + calls.get("EnsureImage")
	// Only the secrets' own Apply goes alone (after their value).
	t.Logf("%d ApplyBatch calls", batches)
	if alone != counts.Secrets || batches == 0 || (n-counts.Secrets)/batches < 10 {
		t.Errorf("%d ApplyBatch and %d single calls for %d changes (%d secrets), want the secrets alone and the rest in batches of 10 or more on average", batches, alone, n, counts.Secrets)
	}
	for _, c := range p.Changes {
		if starts[c.Addr] != 1 || completes[c.Addr] != 1 {
			t.Errorf("%s: %d starts and %d completions, want one each", c.Addr, starts[c.Addr], completes[c.Addr])
		}
	}
	for i := 1; i <= n; i++ {
		if !seqs[i] {
			t.Errorf("no change started as number %d of %d", i, n)
		}
	}
	noChanges(t, a, d)

	one, _ := server(t)
	if _, r := applyAll(t, newApplier(t, one, d, applier.WithBatchSize(1)), d); r.Err() != nil {
		t.Fatal(r.Err())
	}
	got, want := stateRows(t, cl, d.Project), stateRows(t, one, d.Project)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("state applied in batches differs from the state applied a change per call:\n%v\n%v", got, want)
	}
}

// TestApplyBatchUnimplementedFallsBack: a service without ApplyBatch (one
// from before issue 13) answers it Unimplemented; the apply makes every
// change alone and tries no other batch.
func TestApplyBatchUnimplementedFallsBack(t *testing.T) {
	const n = 60
	d := project(t, t.TempDir(), workload.Options{N: n})
	cl, calls := server(t)
	calls.reset(func(method string, _ int) error {
		if method == "ApplyBatch" {
			return status.Error(codes.Unimplemented, "unknown method ApplyBatch for service cc.v1.ResourceService")
		}
		return nil
	})
	a := newApplier(t, cl, d)
	_, res := applyAll(t, a, d)
	if err := res.Err(); err != nil || len(res.Done) != n {
		t.Fatalf("%d of %d done: %v", len(res.Done), n, err)
	}
	if got := calls.get("ApplyBatch"); got != 1 {
		t.Errorf("%d ApplyBatch calls, want the one that found it missing", got)
	}
	if got := calls.get("ApplyResource") + calls.get("EnsureImage"); got != n {
		t.Errorf("%d single calls, want one per change (%d)", got, n)
	}
	noChanges(t, a, d)
}

// TestApplyBatchCallUnavailableRetriedAlone: a call of a batch that the
// service answers Unavailable (and did not do) is made again alone, with
// its idempotency key and the applier's retries; the others of its batch
// are not made twice.
func TestApplyBatchCallUnavailableRetriedAlone(t *testing.T) {
	const n = 60
	d := project(t, t.TempDir(), workload.Options{N: n})
	cl, calls := server(t)
	var mu sync.Mutex
	seen := map[string]int{}
	var victim string
	calls.refusing(func(method string, req proto.Message) error {
		r, ok := req.(*ccv1.ApplyResourceRequest)
		if !ok || !strings.HasPrefix(r.GetAddress(), "sandbox.") {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if victim == "" {
			victim = r.GetAddress()
		}
		seen[r.GetAddress()]++
		if r.GetAddress() == victim && seen[victim] == 1 {
			return status.Error(codes.Unavailable, "the test's service is busy")
		}
		return nil
	})
	a := newApplier(t, cl, d)
	_, res := applyAll(t, a, d)
	if err := res.Err(); err != nil || len(res.Done) != n {
		t.Fatalf("%d of %d done: %v", len(res.Done), n, err)
	}
	if victim == "" || seen[victim] != 2 || calls.get("ApplyResource") != workload.CountsFor(n).Secrets+1 {
		t.Errorf("%s was asked %d times, %d single ApplyResource calls; want it twice, the second alone", victim, seen[victim], calls.get("ApplyResource"))
	}
	for addr, k := range seen {
		if addr != victim && k != 1 {
			t.Errorf("%s was asked %d times, want once", addr, k)
		}
	}
	st, err := cl.GetState(context.Background(), d.Project)
	if err != nil {
		t.Fatal(err)
	}
	if r := st.Lookup(victim); r == nil || r.Serial == 0 {
		t.Errorf("%s = %+v, want it made", victim, r)
	}
}
