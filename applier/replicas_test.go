package applier_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/internal/servicetest"
	"cc.dev/cc/service"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// replica is one server of several on one database, serving on loopback
// TCP, with the idempotency keys of the ApplyResource calls it answered,
// alone or in batches.
type replica struct {
	srv   *service.Server
	addr  string
	mu    sync.Mutex
	keys  map[string]bool
	calls int
	// crash, when set, is called by the interceptor after a mutation is
	// done, with its key and whether it came in a batch: true makes the
	// replica stop serving and the caller see Unavailable, as when it
	// dies before its answer is sent.
	crash func(key string, batched bool) bool
}

func (r *replica) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
	resp, err := next(ctx, req)
	var keys []string
	_, batched := req.(*ccv1.ApplyBatchRequest)
	switch req := req.(type) {
	case *ccv1.ApplyResourceRequest:
		keys = []string{req.GetIdempotencyKey()}
	case *ccv1.ApplyBatchRequest:
		for _, c := range req.GetCalls() {
			if a := c.GetApplyResource(); a != nil {
				keys = append(keys, a.GetIdempotencyKey())
			}
		}
	}
	if err != nil || len(keys) == 0 {
		return resp, err
	}
	r.mu.Lock()
	crash := false
	for _, k := range keys {
		r.keys[k] = true
		crash = r.crash != nil && r.crash(k, batched) || crash
	}
	r.mu.Unlock()
	if crash {
		go r.srv.Close()
		return nil, status.Error(codes.Unavailable, "replica went away")
	}
	return resp, nil
}

func (r *replica) answered(key string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.keys[key]
}

func startReplica(t *testing.T, db string) *replica {
	t.Helper()
	r := &replica{keys: map[string]bool{}}
	srv, err := service.Open(context.Background(), db, service.WithUnaryInterceptor(r.unary), service.WithSync(service.SyncNormal))
	if err != nil {
		t.Fatal(err)
	}
	r.srv, r.addr = srv, servicetest.ServeTCP(t, srv)
	return r
}

// TestRetryAfterReplicaDiesGoesToTheOther is issue 14 (several replicas):
// a client dialled to a list of two replicas on one database applies a
// project; one replica dies right after doing a mutation, before its
// answer reaches the client. The applier's retry of that call, with the
// same idempotency key, goes to the other replica, which answers it from
// the key rather than doing it again: the apply completes, and the state
// is the one a single server would have (same serial, one version each).
// With batches (issue 13), the replica dies after doing the batch holding
// the mutation, and the retry of the whole batch is answered from the keys.
func TestRetryAfterReplicaDiesGoesToTheOther(t *testing.T) {
	for _, batch := range []int{applier.DefaultBatchSize, 1} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) { testRetryAfterReplicaDies(t, batch) })
	}
}

func testRetryAfterReplicaDies(t *testing.T, batch int) {
	db := filepath.Join(t.TempDir(), "state.db")
	a, b := startReplica(t, db), startReplica(t, db)
	cl, err := service.Dial(a.addr + "," + b.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	waitBothServe(t, cl, a, b)

	// The third mutation done (with batches, the third in a batch), on
	// whichever replica it lands, kills it.
	var mu sync.Mutex
	var lost string
	var other *replica
	n := 0
	for _, r := range []*replica{a, b} {
		r.crash = func(key string, batched bool) bool {
			mu.Lock()
			defer mu.Unlock()
			if batch > 1 && !batched {
				return false
			}
			if n++; n == 3 {
				lost, other = key, a
				if r == a {
					other = b
				}
				return true
			}
			return false
		}
	}
	d := project(t, t.TempDir(), workload.Options{N: 40})
	ap := newApplier(t, cl, d, applier.WithParallelism(1), applier.WithBatchSize(batch))
	p, res := applyAll(t, ap, d)
	if err := res.Err(); err != nil {
		t.Fatalf("apply through two replicas, one dying: %v", err)
	}
	if len(res.Done) != len(p.Changes) {
		t.Fatalf("done %d of %d changes", len(res.Done), len(p.Changes))
	}
	if lost == "" || !other.answered(lost) {
		t.Fatalf("the call the dead replica did (key %q) was not retried on the other one", lost)
	}
	noChanges(t, ap, d)

	// The same project applied by one server: the same serial.
	one, _ := server(t)
	if _, r := applyAll(t, newApplier(t, one, d, applier.WithParallelism(1)), d); r.Err() != nil {
		t.Fatal(r.Err())
	}
	got, err := cl.GetState(context.Background(), d.Project)
	if err != nil {
		t.Fatal(err)
	}
	want, err := one.GetState(context.Background(), d.Project)
	if err != nil {
		t.Fatal(err)
	}
	if got.Serial != want.Serial || len(got.Resources) != len(want.Resources) {
		t.Errorf("after the retry: serial %d, %d resources; one server: serial %d, %d resources", got.Serial, len(got.Resources), want.Serial, len(want.Resources))
	}
	for _, r := range got.Resources {
		if r.Version > 1 {
			t.Errorf("%s is at version %d, want 1: a retried mutation was done twice", r.Address, r.Version)
		}
	}
}

// waitBothServe calls the list until each replica has answered a call, so
// that the round robin is known to reach both.
func waitBothServe(t *testing.T, cl *service.Client, rs ...*replica) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		all := true
		for _, r := range rs {
			r.mu.Lock()
			all = all && r.calls > 0
			r.mu.Unlock()
		}
		if all {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the calls did not reach every replica")
		}
		if err := cl.Ping(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
}
