package applier_test

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/service"
)

// replica is one server of several on one database, serving on loopback
// TCP, with the idempotency keys of the ApplyResource calls it answered.
type replica struct {
	srv   *service.Server
	addr  string
	mu    sync.Mutex
	keys  map[string]bool
	calls int
	// crash, when set, is called by the interceptor after a mutation is
	// done, with its key: true makes the replica stop serving and the caller see
	// Unavailable, as when it dies before its answer is sent.
	crash func(key string) bool
}

func (r *replica) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
	r.mu.Lock()
	r.calls++
	r.mu.Unlock()
	resp, err := next(ctx, req)
	k, ok := req.(interface{ GetIdempotencyKey() string })
	if !ok || err != nil || !strings.HasSuffix(info.FullMethod, "/ApplyResource") {
		return resp, err
	}
	r.mu.Lock()
	r.keys[k.GetIdempotencyKey()] = true
	crash := r.crash != nil && r.crash(k.GetIdempotencyKey())
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
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(func() { srv.Close() })
	r.srv, r.addr = srv, lis.Addr().String()
	return r
}

// TestRetryAfterReplicaDiesGoesToTheOther is issue 14 (several replicas):
// a client dialled to a list of two replicas on one database applies a
// project; one replica dies right after doing a mutation, before its
// answer reaches the client. The applier's retry of that call, with the
// same idempotency key, goes to the other replica, which answers it from
// the key rather than doing it again: the apply completes, and the state
// is the one a single server would have (same serial, one version each).
func TestRetryAfterReplicaDiesGoesToTheOther(t *testing.T) {
	db := filepath.Join(t.TempDir(), "state.db")
	a, b := startReplica(t, db), startReplica(t, db)
	cl, err := service.Dial(a.addr + "," + b.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cl.Close() })
	waitBothServe(t, cl, a, b)

	var lost string
	n := 0
	a.crash = func(key string) bool {
		if n++; n == 3 {
			lost = key
			return true
		}
		return false
	}
	d := project(t, t.TempDir(), workload.Options{N: 40})
	ap := newApplier(t, cl, d, applier.WithParallelism(1))
	p, res := applyAll(t, ap, d)
	if err := res.Err(); err != nil {
		t.Fatalf("apply through two replicas, one dying: %v", err)
	}
	if len(res.Done) != len(p.Changes) {
		t.Fatalf("done %d of %d changes", len(res.Done), len(p.Changes))
	}
	if lost == "" || !b.answered(lost) {
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
