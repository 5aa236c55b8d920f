package applier_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/internal/servicetest"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// calls counts and shapes the calls of the real server, by method;
// refuse, when set, is asked of each EnsureImage and ApplyResource call,
// alone or in a batch (servicetest.RefuseCalls).
type calls struct {
	mu        sync.Mutex
	n         map[string]int
	total     int
	intercept func(method string, n int) error
	refuse    func(method string, req proto.Message) error
}

func (c *calls) refuseCall(method string, req proto.Message) error {
	c.mu.Lock()
	f := c.refuse
	c.mu.Unlock()
	if f == nil {
		return nil
	}
	return f(method[strings.LastIndexByte(method, '/')+1:], req)
}

func (c *calls) refusing(f func(method string, req proto.Message) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.refuse = f
}

func (c *calls) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
	if err := c.count(info.FullMethod); err != nil {
		return nil, err
	}
	return next(ctx, req)
}

func (c *calls) stream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, next grpc.StreamHandler) error {
	if err := c.count(info.FullMethod); err != nil {
		return err
	}
	return next(srv, ss)
}

func (c *calls) count(method string) error {
	c.mu.Lock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	method = method[strings.LastIndexByte(method, '/')+1:]
	c.n[method]++
	c.total++
	n, f := c.total, c.intercept
	c.mu.Unlock()
	if f != nil {
		return f(method, n)
	}
	return nil
}

func (c *calls) get(method string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[method]
}

func (c *calls) reset(f func(string, int) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n, c.total, c.intercept = nil, 0, f
}

// server runs the real embedded server with call counting.
func server(t testing.TB, opts ...service.Option) (*service.Client, *calls) {
	t.Helper()
	c := &calls{}
	opts = append([]service.Option{service.WithUnaryInterceptor(c.unary), service.WithUnaryInterceptor(servicetest.RefuseCalls(c.refuseCall)),
		service.WithStreamInterceptor(c.stream)}, opts...)
	// issue 14: PostgreSQL with CC_TEST_POSTGRES, else SQLite.
	db := servicetest.DB(t)
	if k := servicetest.KeyFile(db); k != "" {
		opts = append([]service.Option{service.WithSecretKeyFile(k)}, opts...)
	}
	cl, closeFn, err := service.OpenEmbedded(context.Background(), db, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closeFn() })
	return cl, c
}

// project writes a generated project of n resources and compiles it.
func project(t testing.TB, dir string, o workload.Options) *schema.Desired {
	t.Helper()
	if err := workload.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{Path: filepath.Join(dir, "main.hcl")})
	if err != nil {
		t.Fatal(err)
	}
	return res.Desired
}

// env gives every KEY_i the workload's secrets read.
func env(name string) (string, bool) {
	if strings.HasPrefix(name, "KEY_") {
		return "value-of-" + name, true
	}
	return "", false
}

func newApplier(t testing.TB, cl applier.Service, d *schema.Desired, opts ...applier.Option) *applier.Applier {
	t.Helper()
	opts = append([]applier.Option{applier.WithSecrets(applier.LocalSecrets{Root: d.Root, LookupEnv: env})}, opts...)
	a, err := applier.New(cl, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// applyAll plans and applies under a lock.
func applyAll(t testing.TB, a *applier.Applier, d *schema.Desired) (*planner.Plan, *applier.Result) {
	t.Helper()
	ctx := context.Background()
	p, _, err := a.Plan(ctx, d, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lk, err := a.Lock(ctx, d.Project)
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Release()
	return p, a.Apply(ctx, lk, p, d)
}

func noChanges(t testing.TB, a *applier.Applier, d *schema.Desired) {
	t.Helper()
	p, _, err := a.Plan(context.Background(), d, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Changed() {
		var s []string
		for _, c := range p.Changes {
			s = append(s, c.Addr+" "+c.Action.String())
		}
		t.Fatalf("after apply, the plan still changes %v", s)
	}
}

func TestApplyThenNoChanges(t *testing.T) {
	cl, calls := server(t)
	d := project(t, t.TempDir(), workload.Options{N: 60})
	a := newApplier(t, cl, d, applier.WithParallelism(4))
	p, res := applyAll(t, a, d)
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if len(res.Done) != len(p.Changes) || len(p.Changes) != 60 {
		t.Fatalf("done %d of %d changes, want 60", len(res.Done), len(p.Changes))
	}
	// Only the files the service lacked were uploaded, once each: the
	// workload shares 4 copied files and 3 source trees among everything.
	if n := calls.get("FindMissingBlobs"); n != 1 {
		t.Errorf("FindMissingBlobs called %d times, want 1", n)
	}
	uploads := calls.get("UploadBlob")
	if uploads == 0 || uploads > 20 {
		t.Errorf("%d uploads, want a few shared files", uploads)
	}
	calls.reset(nil)
	noChanges(t, a, d)
	if calls.total != 1 || calls.get("GetState") != 1 {
		t.Errorf("an unchanged plan made %d calls (%v), want one GetState", calls.total, calls.n)
	}
}

// TestOnlyMissingBlobs: after one source file changes, only it and the
// listings of the trees it is in are uploaded.
func TestOnlyMissingBlobs(t *testing.T) {
	cl, calls := server(t)
	dir := t.TempDir()
	d := project(t, dir, workload.Options{N: 40})
	a := newApplier(t, cl, d)
	if _, res := applyAll(t, a, d); res.Err() != nil {
		t.Fatal(res.Err())
	}
	if err := os.WriteFile(filepath.Join(dir, "src/svc0/handler.py"), []byte("def handle(x):\n    return -x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{Path: filepath.Join(dir, "main.hcl")})
	if err != nil {
		t.Fatal(err)
	}
	d = res.Desired
	calls.reset(nil)
	p, r := applyAll(t, a, d)
	if r.Err() != nil {
		t.Fatal(r.Err())
	}
	// One new file and one new listing of the svc0 tree.
	if n := calls.get("UploadBlob"); n != 2 {
		t.Errorf("%d uploads after one file changed, want 2 (the file, the tree's listing)", n)
	}
	var reasons []string
	for _, c := range p.Changes {
		for _, r := range c.Reasons {
			reasons = append(reasons, r.Message)
		}
	}
	if !strings.Contains(strings.Join(reasons, "\n"), "source changed: src/svc0/handler.py") {
		t.Errorf("reasons:\n%s", strings.Join(reasons, "\n"))
	}
	noChanges(t, a, d)
}

// TestFailureStopsDependants: a failed change stops what needs it, not the
// rest; the error names the address and the configuration position.
func TestFailureStopsDependants(t *testing.T) {
	for _, batch := range []int{applier.DefaultBatchSize, 1} {
		t.Run(fmt.Sprintf("batch=%d", batch), func(t *testing.T) { testFailureStopsDependants(t, batch) })
	}
}

func testFailureStopsDependants(t *testing.T, batch int) {
	cl, calls := server(t)
	d := project(t, t.TempDir(), workload.Options{N: 40})
	a := newApplier(t, cl, d, applier.WithBatchSize(batch))
	calls.refusing(func(method string, _ proto.Message) error {
		if method == "EnsureImage" {
			return status.Error(codes.Internal, "injected fault")
		}
		return nil
	})
	p, res := applyAll(t, a, d)
	c := workload.CountsFor(40)
	if len(res.Errors) != c.Images {
		t.Fatalf("%d errors, want one per image (%d): %v", len(res.Errors), c.Images, res.Err())
	}
	for _, e := range res.Errors {
		if !strings.HasPrefix(e.Addr, "image.") || e.Range == nil || !strings.Contains(e.Error(), "main.hcl:") || !strings.Contains(e.Error(), "injected fault") {
			t.Errorf("error %q, want an image's address, position and the fault", e.Error())
		}
	}
	if len(res.NotStarted) != c.Functions+c.Sandboxes {
		t.Errorf("%d not started, want every function and sandbox (%d)", len(res.NotStarted), c.Functions+c.Sandboxes)
	}
	for _, ns := range res.NotStarted {
		if !strings.Contains(ns.Because, "needs image.") {
			t.Errorf("%s not started because %q", ns.Addr, ns.Because)
		}
	}
	if len(res.Done) != c.Secrets || len(p.Changes) != 40 {
		t.Errorf("%d done, want the %d secrets", len(res.Done), c.Secrets)
	}
	if got := calls.get("ApplyBatch"); (got > 0) != (batch > 1) {
		t.Errorf("%d ApplyBatch calls with batches of at most %d", got, batch)
	}
	calls.refusing(nil)
	if _, res := applyAll(t, a, d); res.Err() != nil {
		t.Fatalf("second apply: %v", res.Err())
	}
	noChanges(t, a, d)
}

// TestRetriesUnavailable: a call that fails as unavailable is retried with
// the same idempotency key, so nothing is done twice.
func TestRetriesUnavailable(t *testing.T) {
	cl, _ := server(t)
	d := project(t, t.TempDir(), workload.Options{N: 30})
	var failed atomic.Int64
	seen := map[string]bool{}
	var mu sync.Mutex
	// The first ApplyResource of each function is applied, then reported
	// as lost: the retry must get the first answer back.
	cl2 := &lossy{Service: cl, lose: func(addr string) bool {
		mu.Lock()
		defer mu.Unlock()
		if strings.HasPrefix(addr, "function.") && !seen[addr] {
			seen[addr] = true
			failed.Add(1)
			return true
		}
		return false
	}}
	a := newApplier(t, cl2, d, applier.WithParallelism(3))
	_, res := applyAll(t, a, d)
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if failed.Load() == 0 {
		t.Fatal("no answer was lost")
	}
	st, err := cl.GetState(context.Background(), d.Project)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range st.Resources {
		if r.Kind == schema.KindFunction && (len(r.Versions) != 1 || r.Version != 1) {
			t.Errorf("%s has versions %v, want exactly one", r.Address, r.Versions)
		}
	}
	for _, o := range res.Done {
		if strings.HasPrefix(o.Addr, "function.") && (o.Version != 1 || o.Reused) {
			t.Errorf("%s: version %d reused %v; the retry must answer as the first call did", o.Addr, o.Version, o.Reused)
		}
	}
}

// lossy applies a resource and then loses the answer, as a network might.
type lossy struct {
	applier.Service
	lose func(addr string) bool
}

func (l *lossy) Apply(ctx context.Context, req service.ApplyRequest) (*service.ApplyResult, error) {
	res, err := l.Service.Apply(ctx, req)
	if err == nil && l.lose(req.Address) {
		return nil, &service.Error{Code: codes.Unavailable, Msg: "connection reset"}
	}
	return res, err
}

// TestLockWaitsThenFails: a lock another holder has is waited for up to the
// timeout, then refused naming the holder; once released it is taken.
// The test drives the applier's clock instead of sleeping (issue 16 item 6).
func TestLockWaitsThenFails(t *testing.T) {
	ctx := context.Background()
	cl, _ := server(t)
	other := service.Holder{User: "alice", Host: "build-7", Command: "cc apply", PID: 4242}
	lease, _, err := cl.Lock(ctx, "p", other, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	clk := newFakeClock()
	var progress strings.Builder
	a, err := applier.New(cl, append(clk.options(), applier.WithLockTimeout(300*time.Millisecond), applier.WithProgress(&progress))...)
	if err != nil {
		t.Fatal(err)
	}
	type locked struct {
		lk  *applier.Lock
		err error
	}
	lock := func(a *applier.Applier) <-chan locked {
		c := make(chan locked, 1)
		go func() {
			lk, err := a.Lock(ctx, "p")
			c <- locked{lk, err}
		}()
		return c
	}
	res := lock(a)
	await(t, "Lock() waiting", clk.waiting)
	clk.Advance(300 * time.Millisecond)
	err = await(t, "Lock()", res).err
	var le *applier.LockedError
	if !errors.As(err, &le) || le.Holder != other || !errors.Is(err, service.ErrLocked) {
		t.Fatalf("Lock() = %v, want a LockedError naming alice", err)
	}
	if !strings.Contains(err.Error(), "project p is locked by alice@build-7 (cc apply, pid 4242) since ") {
		t.Errorf("error = %q", err)
	}
	if !strings.Contains(progress.String(), "Waiting up to 300ms for the lock on project p, held by alice@build-7 (cc apply, pid 4242)") {
		t.Errorf("progress = %q", progress.String())
	}
	// Released while waiting: taken.
	a, _ = applier.New(cl, append(clk.options(), applier.WithLockTimeout(time.Minute), applier.WithProgress(io.Discard))...)
	res = lock(a)
	await(t, "Lock() waiting", clk.waiting)
	cl.Unlock(ctx, "p", lease.ID)
	clk.Advance(500 * time.Millisecond)
	r := await(t, "Lock() after release", res)
	if r.err != nil {
		t.Fatalf("Lock() after release = %v", r.err)
	}
	if err := r.lk.Release(); err != nil {
		t.Fatal(err)
	}
	st, _ := cl.GetState(ctx, "p")
	if st.Lock != nil {
		t.Errorf("after Release the project is locked by %v", st.Lock.Holder)
	}
}

// TestInterrupt: cancelling stops new changes from starting, lets the one
// running finish, and a second apply carries on to the end.
func TestInterrupt(t *testing.T) {
	cl, calls := server(t)
	d := project(t, t.TempDir(), workload.Options{N: 30})
	a := newApplier(t, cl, d, applier.WithParallelism(1))
	ctx, cancel := context.WithCancel(context.Background())
	entered := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	calls.reset(func(method string, n int) error {
		if method == "ApplyResource" {
			once.Do(func() {
				close(entered)
				<-release
			})
		}
		return nil
	})
	p, _, err := a.Plan(context.Background(), d, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lk, err := a.Lock(context.Background(), d.Project)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan *applier.Result)
	go func() { done <- a.Apply(ctx, lk, p, d) }()
	<-entered
	cancel()
	close(release)
	res := <-done
	if err := lk.Release(); err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || len(res.Errors) != 0 || len(res.NotStarted) == 0 || len(res.Done) == 0 {
		t.Fatalf("result: interrupted %v, %d done, %d errors, %d not started", res.Interrupted, len(res.Done), len(res.Errors), len(res.NotStarted))
	}
	// The change running when cancelled finished.
	st, err := cl.GetState(context.Background(), d.Project)
	if err != nil {
		t.Fatal(err)
	}
	if st.Lock != nil {
		t.Errorf("locked after the interrupted apply: %v", st.Lock.Holder)
	}
	for _, o := range res.Done {
		if st.Lookup(o.Addr) == nil {
			t.Errorf("%s done but not in the state", o.Addr)
		}
	}
	for _, ns := range res.NotStarted {
		if st.Lookup(ns.Addr) != nil {
			t.Errorf("%s not started but in the state", ns.Addr)
		}
		if ns.Because != "the apply was interrupted" && !strings.Contains(ns.Because, "not started") {
			t.Errorf("%s: %s", ns.Addr, ns.Because)
		}
	}
	calls.reset(nil)
	if _, res := applyAll(t, a, d); res.Err() != nil {
		t.Fatal(res.Err())
	}
	noChanges(t, a, d)
}

func TestOptions(t *testing.T) {
	cl, _ := server(t)
	for _, o := range []applier.Option{applier.WithParallelism(0), applier.WithLockTimeout(-1), applier.WithLeaseTTL(0),
		applier.WithGrace(-1), applier.WithHolder(service.Holder{}), applier.WithProgress(nil), applier.WithSecrets(nil),
		applier.WithClock(nil), applier.WithRetries(-1)} {
		if _, err := applier.New(cl, o); err == nil {
			t.Errorf("New() with a bad option = nil error")
		}
	}
	if _, err := applier.New(nil); err == nil {
		t.Error("New(nil) = nil error")
	}
}

func TestLocalSecrets(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "dev.env"), []byte("# comment\nexport A=1\nB=\"two words\"\nC='x'\n"), 0o600)
	os.MkdirAll(filepath.Join(dir, ".cc"), 0o700)
	os.WriteFile(filepath.Join(dir, ".cc", "state.db.key"), []byte("K=the-state-key\n"), 0o600)
	os.Symlink(".cc", filepath.Join(dir, "state"))
	l := applier.LocalSecrets{Root: dir, LookupEnv: func(k string) (string, bool) {
		if k == "SET" {
			return "v", true
		}
		return "", false
	}}
	tests := []struct {
		spec    schema.SecretSpec
		want    string
		wantErr string
	}{
		{schema.SecretSpec{FromEnv: "SET"}, "v", ""},
		{schema.SecretSpec{FromEnv: "UNSET"}, "", "secret.s takes its value from the environment variable UNSET, which is not set"},
		{schema.SecretSpec{FromEnvFile: &schema.EnvFileSource{Path: "dev.env", Keys: []string{"A", "B"}}}, `{"A":"1","B":"two words"}`, ""},
		{schema.SecretSpec{FromEnvFile: &schema.EnvFileSource{Path: "dev.env"}}, `{"A":"1","B":"two words","C":"x"}`, ""},
		{schema.SecretSpec{FromEnvFile: &schema.EnvFileSource{Path: "dev.env", Keys: []string{"D"}}}, "", "the env file dev.env, which has no key D"},
		{schema.SecretSpec{FromEnvFile: &schema.EnvFileSource{Path: "none.env"}}, "", "the env file none.env, which does not exist"},
		{schema.SecretSpec{FromEnvFile: &schema.EnvFileSource{Path: "../x.env"}}, "", "is outside the project root"},
		// cc's own state is never a secret's source: its key opens the
		// embedded state's secrets.
		{schema.SecretSpec{FromEnvFile: &schema.EnvFileSource{Path: ".cc/state.db.key"}}, "", "is in .cc, cc's own state directory"},
		{schema.SecretSpec{FromEnvFile: &schema.EnvFileSource{Path: "state/state.db.key"}}, "", "is in .cc, cc's own state directory"},
		{schema.SecretSpec{FromService: "X"}, "", applier.ErrNotLocal.Error()},
	}
	for _, tt := range tests {
		v, _, err := l.Value("secret.s", tt.spec)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Value(%+v) = %v, want an error with %q", tt.spec, err, tt.wantErr)
			}
		case err != nil || string(v) != tt.want:
			t.Errorf("Value(%+v) = %q, %v; want %q", tt.spec, v, err, tt.want)
		}
	}
}

// TestLockRenewed: a lock is renewed while held, so that it outlives its
// lease; once released, anyone takes it. The service's time and the
// applier's renewals are driven by one clock instead of sleeping through
// two and a half leases (issue 16 item 6).
func TestLockRenewed(t *testing.T) {
	ctx := context.Background()
	clk := newFakeClock()
	cl, calls := server(t, service.WithClock(clk.Now))
	svc := &renewals{Service: cl, done: make(chan error, 1)}
	a, err := applier.New(svc, append(clk.options(), applier.WithLeaseTTL(time.Second))...)
	if err != nil {
		t.Fatal(err)
	}
	lk, err := a.Lock(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	// A renewal every third of the lease, for eight thirds of it.
	for range 8 {
		clk.Advance(time.Second / 3)
		if err := await(t, "RenewLock()", svc.done); err != nil {
			t.Fatalf("RenewLock() = %v", err)
		}
	}
	if lk.Err() != nil {
		t.Fatalf("lock lost: %v", lk.Err())
	}
	if _, _, err := cl.Lock(ctx, "p", service.Holder{User: "bob"}, time.Minute); !errors.Is(err, service.ErrLocked) {
		t.Fatalf("another Lock() after 2.67 leases = %v, want locked (renewed)", err)
	}
	if got := calls.get("RenewLock"); got != 8 {
		t.Errorf("%d RenewLock calls, want 8", got)
	}
	if err := lk.Release(); err != nil {
		t.Fatal(err)
	}
	if _, _, err := cl.Lock(ctx, "p", service.Holder{User: "bob"}, time.Minute); err != nil {
		t.Fatalf("Lock() after Release = %v", err)
	}
}

// lockTakenSetup is the start of the lock-taken tests: a project of 40
// changes planned and locked by an applier of parallelism 1 (and opts)
// on a server with call counting, and its progress so far.
func lockTakenSetup(t *testing.T, opts ...applier.Option) (*service.Client, *calls, *schema.Desired, *applier.Applier, *planner.Plan, *applier.Lock, func() string) {
	t.Helper()
	cl, calls := server(t)
	d := project(t, t.TempDir(), workload.Options{N: 40})
	var progress strings.Builder
	var pmu sync.Mutex
	opts = append([]applier.Option{applier.WithParallelism(1), applier.WithProgress(writerFunc(func(b []byte) (int, error) {
		pmu.Lock()
		defer pmu.Unlock()
		return progress.Write(b)
	}))}, opts...)
	a := newApplier(t, cl, d, opts...)
	p, _, err := a.Plan(context.Background(), d, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lk, err := a.Lock(context.Background(), d.Project)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lk.Release() })
	return cl, calls, d, a, p, lk, func() string {
		pmu.Lock()
		defer pmu.Unlock()
		return progress.String()
	}
}

// lockTakenSays fails t unless out says the lock was taken with notMade
// changes not made.
func lockTakenSays(t *testing.T, out string, notMade int) {
	t.Helper()
	want := fmt.Sprintf("The project's lock was taken from this apply (released by force-unlock or expired): %d changes not made.", notMade)
	if !strings.Contains(out, want) {
		t.Fatalf("progress does not say %q:\n%s", want, out)
	}
}

// TestItem4ApplierStopsWhenLockTaken: issue 8 item 4. A force-unlock in the
// middle of an apply makes the service refuse its next mutation; the
// applier starts no change after that refusal and says that the lock was
// taken from it and how many changes were not made.
func TestItem4ApplierStopsWhenLockTaken(t *testing.T) {
	ctx := context.Background()
	cl, calls, d, a, p, lk, progress := lockTakenSetup(t, applier.WithBatchSize(1))
	var mutations, forced atomic.Int64
	calls.reset(func(method string, n int) error {
		switch method {
		case "EnsureImage", "ApplyResource", "DeleteResource", "PutSecretValue", "Rollback":
			if mutations.Add(1) == 5 {
				forced.Add(1)
				if _, err := cl.ForceUnlock(ctx, d.Project); err != nil {
					t.Errorf("ForceUnlock() = %v", err)
				}
			}
		}
		return nil
	})
	res := a.Apply(ctx, lk, p, d)
	if forced.Load() != 1 {
		t.Fatalf("%d mutations; the test wants more than 5", mutations.Load())
	}
	if len(res.Done) != 4 || len(res.Errors) != 1 || !errors.Is(res.Errors[0], service.ErrLeaseRefused) {
		t.Fatalf("result: %d done, errors %v; want 4 done and one refused lease", len(res.Done), res.Errors)
	}
	if got := mutations.Load(); got != 5 {
		t.Fatalf("%d mutations were sent, want none after the refused fifth", got)
	}
	notMade := len(p.Changes) - 4
	lockTakenSays(t, progress(), notMade)
	st, err := cl.GetState(ctx, d.Project)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(st.Resources); got != 4 {
		t.Fatalf("the state has %d resources, want the 4 made before the lock was taken", got)
	}
}

// TestItem4ApplierStopsWhenLockTakenBatched is TestItem4ApplierStopsWhenLockTaken
// with changes in batches (issue 13): the lock force-unlocked as the
// second batch arrives, the service refuses each of its changes, and the
// apply sends nothing more; what the state holds is what was done before.
func TestItem4ApplierStopsWhenLockTakenBatched(t *testing.T) {
	ctx := context.Background()
	cl, calls, d, a, p, lk, progress := lockTakenSetup(t)
	var mutations, batches, atForce atomic.Int64
	calls.reset(func(method string, n int) error {
		switch method {
		case "ApplyBatch", "EnsureImage", "ApplyResource", "DeleteResource", "PutSecretValue", "Rollback":
			m := mutations.Add(1)
			if method == "ApplyBatch" && batches.Add(1) == 2 {
				atForce.Store(m)
				if _, err := cl.ForceUnlock(ctx, d.Project); err != nil {
					t.Errorf("ForceUnlock() = %v", err)
				}
			}
		}
		return nil
	})
	res := a.Apply(ctx, lk, p, d)
	if atForce.Load() == 0 {
		t.Fatalf("%d ApplyBatch calls; the test wants a second one", batches.Load())
	}
	if len(res.Errors) < 2 {
		t.Fatalf("errors %v; want each change of the refused batch refused", res.Errors)
	}
	for _, e := range res.Errors {
		if !errors.Is(e, service.ErrLeaseRefused) {
			t.Errorf("error %v, want a refused lease", e)
		}
	}
	if got := mutations.Load(); got != atForce.Load() {
		t.Fatalf("%d mutation calls were sent, want none after the refused batch (call %d)", got, atForce.Load())
	}
	notMade := len(p.Changes) - len(res.Done)
	lockTakenSays(t, progress(), notMade)
	st, err := cl.GetState(ctx, d.Project)
	if err != nil {
		t.Fatal(err)
	}
	if got := len(st.Resources); got != len(res.Done) || got == 0 {
		t.Fatalf("the state has %d resources, want the %d made before the lock was taken", got, len(res.Done))
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
