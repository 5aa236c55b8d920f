package service_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"cc.dev/cc/service"
)

// batches records the group commits of a server whose first batch waits
// until want more mutations are queued behind it, so that those run as
// one batch.
type batches struct {
	mu      sync.Mutex
	started int   // batches started
	commits []int // mutations per commit
}

func holdFirstBatch(t *testing.T, srv *service.Server, want int, after func(b *batches, i int)) *batches {
	t.Helper()
	b := &batches{}
	service.SetBatchHooks(srv, func(n int) {
		b.mu.Lock()
		b.started++
		first := b.started == 1
		b.mu.Unlock()
		if !first {
			return
		}
		deadline := time.Now().Add(20 * time.Second)
		for service.Queued(srv) < want && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}, func(i int) {
		if after != nil {
			after(b, i)
		}
	}, func(n int) {
		b.mu.Lock()
		defer b.mu.Unlock()
		b.commits = append(b.commits, n)
	})
	t.Cleanup(func() { service.SetBatchHooks(srv, nil, nil, nil) })
	return b
}

// applyConcurrently applies reqs at once, each from its own goroutine.
func applyConcurrently(c *service.Client, reqs []service.ApplyRequest) ([]*service.ApplyResult, []error) {
	res := make([]*service.ApplyResult, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	for i, r := range reqs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			res[i], errs[i] = c.Apply(ctx, r)
		}()
	}
	wg.Wait()
	return res, errs
}

// TestGroupCommitBatchesConcurrentMutations: issue 13, group commit.
// Mutations waiting for the writer commit together, in fewer transactions
// than there are mutations; one that fails in a batch gets the error it
// gets alone and takes nothing of the others with it.
func TestGroupCommitBatchesConcurrentMutations(t *testing.T) {
	srv, c, _ := serveUnix(t, t.TempDir())
	mustApply(t, c, applyReq(t, "p", "volume.first", service.ActionCreate, volume("1Gi"), 0))
	dup := applyReq(t, "p", "volume.first", service.ActionCreate, volume("2Gi"), 1)
	_, alone := c.Apply(context.Background(), dup)
	if !errors.Is(alone, service.ErrAlreadyExists) {
		t.Fatalf("Apply(create volume.first again) = %v, want it refused", alone)
	}

	const n = 8
	var reqs []service.ApplyRequest
	for i := range n - 1 {
		reqs = append(reqs, applyReq(t, "p", fmt.Sprintf("volume.v%d", i), service.ActionCreate, volume("1Gi"), 0))
	}
	reqs = append(reqs, dup)
	b := holdFirstBatch(t, srv, n-1, nil)
	_, errs := applyConcurrently(c, reqs)
	for i, err := range errs[:n-1] {
		if err != nil {
			t.Errorf("Apply(%s) = %v", reqs[i].Address, err)
		}
	}
	if got := errs[n-1]; got == nil || got.Error() != alone.Error() {
		t.Errorf("Apply(create volume.first again) in a batch = %v, want %v as alone", got, alone)
	}
	total := 0
	for _, m := range b.commits {
		total += m
	}
	if total != n-1 || len(b.commits) >= n-1 {
		t.Errorf("commits of %v mutations, want the %d that succeeded in fewer than %d transactions", b.commits, n-1, n-1)
	}
	st, err := c.GetState(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.Resources) != n || st.Serial != n {
		t.Errorf("state has %d resources at serial %d, want %d at %d", len(st.Resources), st.Serial, n, n)
	}
	if r := st.Lookup("volume.first"); r == nil || r.Serial != 1 {
		t.Errorf("volume.first = %+v, want it untouched at serial 1", r)
	}
}

// TestGroupCommitLeaseLostMidBatch: issue 13, group commit. A lease that
// expires while its mutations' batch runs, before the commit, refuses
// every one of them, those that ran before it expired too (none was
// acknowledged); the mutations of another project, whose lease is live,
// run again and commit.
func TestGroupCommitLeaseLostMidBatch(t *testing.T) {
	dir := t.TempDir()
	clk := newClock()
	srv := serve(t, listenUnix(t, dir+"/s"), testDB(t), service.WithClock(clk.Now))
	c, err := service.Dial("unix://" + dir + "/s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	ctx := context.Background()
	h := service.Holder{User: "u", Host: "h"}
	short, _, err := c.Lock(ctx, "short", h, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	long, _, err := c.Lock(ctx, "long", h, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	req := func(project, lease, addr string) service.ApplyRequest {
		r := applyReq(t, project, addr, service.ActionCreate, volume("1Gi"), 0)
		r.LeaseID = lease
		return r
	}
	first := req("short", short.ID, "volume.first")
	var reqs []service.ApplyRequest
	for i := range 4 {
		reqs = append(reqs, req("short", short.ID, fmt.Sprintf("volume.v%d", i)))
	}
	reqs = append(reqs, req("long", long.ID, "volume.other"))
	// The first batch holds only first; the lease of "short" expires
	// after the last mutation of the second, which holds the others: each
	// found the lease live, and none was acknowledged.
	var once sync.Once
	b := holdFirstBatch(t, srv, len(reqs), func(b *batches, i int) {
		b.mu.Lock()
		second := b.started == 2
		b.mu.Unlock()
		if second && i == len(reqs)-1 {
			once.Do(func() { clk.Advance(2 * time.Minute) })
		}
	})
	firstDone := make(chan error, 1)
	go func() {
		_, err := c.Apply(ctx, first)
		firstDone <- err
	}()
	for started := 0; started == 0; {
		time.Sleep(time.Millisecond)
		b.mu.Lock()
		started = b.started
		b.mu.Unlock()
	}
	_, errs := applyConcurrently(c, reqs)
	if err := <-firstDone; err != nil {
		t.Errorf("Apply(short volume.first), alone in its batch, = %v", err)
	}

	var refused, done []string
	for i, err := range errs {
		var le *service.LeaseError
		switch {
		case err == nil:
			done = append(done, reqs[i].Project+" "+reqs[i].Address)
		case errors.As(err, &le) && le.Reason == service.LeaseExpired:
			refused = append(refused, reqs[i].Address)
		default:
			t.Errorf("Apply(%s %s) = %v, want done or refused for an expired lease", reqs[i].Project, reqs[i].Address, err)
		}
	}
	if len(done) != 1 || done[0] != "long volume.other" || len(refused) != 4 {
		t.Fatalf("done %v, refused %v; want long's done, the 4 of short refused", done, refused)
	}
	for project, want := range map[string]int{"short": 1, "long": 1} {
		st, err := c.GetState(ctx, project)
		if err != nil {
			t.Fatal(err)
		}
		if len(st.Resources) != want || st.Serial != int64(want) {
			t.Errorf("%s: %d resources at serial %d, want %d", project, len(st.Resources), st.Serial, want)
		}
	}
}

// TestGroupCommitReplaysBatchedKeys: issue 13, group commit. The
// idempotency key of a mutation that committed in a batch replays its
// answer, and changes nothing.
func TestGroupCommitReplaysBatchedKeys(t *testing.T) {
	srv, c, _ := serveUnix(t, t.TempDir())
	mustApply(t, c, applyReq(t, "p", "volume.first", service.ActionCreate, volume("1Gi"), 0))
	const n = 6
	var reqs []service.ApplyRequest
	for i := range n {
		r := applyReq(t, "p", fmt.Sprintf("function.f%d", i), service.ActionCreate, function(fmt.Sprintf("h%d", i)), 0)
		r.IdempotencyKey = fmt.Sprintf("key-%d", i)
		reqs = append(reqs, r)
	}
	b := holdFirstBatch(t, srv, n-1, nil)
	res, errs := applyConcurrently(c, reqs)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Apply(%s) = %v", reqs[i].Address, err)
		}
	}
	if len(b.commits) >= n {
		t.Fatalf("commits of %v mutations, want fewer than %d transactions", b.commits, n)
	}
	service.SetBatchHooks(srv, nil, nil, nil)
	for i, r := range reqs {
		again := mustApply(t, c, r)
		if again.Serial != res[i].Serial || again.Version != res[i].Version || again.Resource.Hash != res[i].Resource.Hash || again.Resource.ID != res[i].Resource.ID {
			t.Errorf("replay of %s = serial %d version %d, want the answer of the batch: serial %d version %d", r.IdempotencyKey, again.Serial, again.Version, res[i].Serial, res[i].Version)
		}
	}
	st, err := c.GetState(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	if st.Serial != n+1 {
		t.Errorf("serial %d after the replays, want %d", st.Serial, n+1)
	}
}

// recordBatches makes srv write to file (none: "") the size of the
// largest group commit made so far, by it or by the servers before it
// that wrote file, after each commit.
func recordBatches(srv *service.Server, file string) {
	if file == "" {
		return
	}
	b, _ := os.ReadFile(file)
	largest, _ := strconv.Atoi(string(b))
	service.SetBatchHooks(srv, nil, nil, func(n int) {
		if n > largest {
			largest = n
			os.WriteFile(file, []byte(strconv.Itoa(n)), 0o600)
		}
	})
}

// TestKillDuringBatchedApplies: issue 13, group commit. TestKillDuringApplies
// with cc server's durability (SyncFull: an fsync per commit), where the
// 50 clients' applies commit in batches: every acknowledged apply of a
// batch is there after the kill, none half-written.
func TestKillDuringBatchedApplies(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "batches")
	killDuringApplies(t, dir, "CC_SERVICE_TEST_SERVER_SYNC=full", "CC_SERVICE_TEST_SERVER_BATCHES="+file)
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("no batch recorded: %v", err)
	}
	if n, _ := strconv.Atoi(string(b)); n < 2 {
		t.Fatalf("largest group commit %s mutations, want batches of several", b)
	}
	t.Logf("largest group commit: %s mutations", b)
}

// TestGroupCommitSeesANewSecretValue: issue 13. A transaction remembers
// the current revisions of the secrets its calls' versions are made with
// (txFacts.secrets); a new value put in the same transaction is seen by
// the calls after it: a function applied again after it gets a new
// version, as in the next transaction.
func TestGroupCommitSeesANewSecretValue(t *testing.T) {
	ctx := context.Background()
	srv, c, _ := serveUnix(t, t.TempDir())
	p := &secretsProject{t: t, c: c}
	p.put("secret.openai", "value-a")
	p.apply("secret.openai", service.ActionCreate, map[string]any{"from_env": "OPENAI_API_KEY"})
	p.apply("secret.vault", service.ActionCreate, map[string]any{"from_service": "vault-token"})
	if v := p.function(service.ActionCreate); v.Version != 1 {
		t.Fatalf("function.f created at version %d, want 1", v.Version)
	}
	fn := applyReq(t, "p", "function.f", service.ActionUpdate, function("m.run", map[string]any{"env_from": []any{map[string]any{"ref": "secret.openai"}}}), p.serial)
	fn.DependsOn = []string{"secret.openai", "secret.vault"}

	b := holdFirstBatch(t, srv, 3, nil)
	hold := make(chan error, 1)
	go func() {
		_, err := c.Apply(ctx, applyReq(t, "p", "volume.hold", service.ActionCreate, volume("1Gi"), 0))
		hold <- err
	}()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b.mu.Lock()
		started := b.started
		b.mu.Unlock()
		if started > 0 {
			break
		}
	}
	type result struct {
		res any
		err error
	}
	results := make([]chan result, 3)
	calls := []func() (any, error){
		func() (any, error) { return c.Apply(ctx, fn) },
		func() (any, error) {
			return c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.openai", Value: []byte("value-b"), ExpectedSerial: p.serial})
		},
		func() (any, error) { return c.Apply(ctx, fn) },
	}
	for i, call := range calls {
		results[i] = make(chan result, 1)
		// Each is queued behind the held batch in this order.
		deadline := time.Now().Add(20 * time.Second)
		for service.Queued(srv) < i && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		go func() {
			r, err := call()
			results[i] <- result{r, err}
		}()
	}
	if err := <-hold; err != nil {
		t.Fatal(err)
	}
	var got []*service.ApplyResult
	for i, ch := range results {
		r := <-ch
		if r.err != nil {
			t.Fatalf("call %d = %v", i, r.err)
		}
		if a, ok := r.res.(*service.ApplyResult); ok {
			got = append(got, a)
		}
	}
	b.mu.Lock()
	commits := fmt.Sprint(b.commits)
	b.mu.Unlock()
	if commits != "[1 3]" {
		t.Fatalf("commits of %s mutations, want the held one, then the three in one transaction", commits)
	}
	if got[0].Version != 1 || !got[0].Reused || got[1].Version != 2 || got[1].Reused {
		t.Errorf("function.f before and after a new value in one transaction: version %d (reused %v), then %d (reused %v); want 1 reused, then a new 2",
			got[0].Version, got[0].Reused, got[1].Version, got[1].Reused)
	}
}
