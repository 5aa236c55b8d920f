package service_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cc.dev/cc/internal/servicetest"
	"cc.dev/cc/service"
)

// TestMain lets the test binary double as a server process for
// TestKillDuringApplies.
func TestMain(m *testing.M) {
	if db := os.Getenv("CC_SERVICE_TEST_SERVER_DB"); db != "" {
		os.Exit(serverProcess(db, os.Getenv("CC_SERVICE_TEST_SERVER_SOCKET")))
	}
	os.Exit(m.Run())
}

// serverProcess serves db on a unix socket until killed: the same server
// as cc server, with the embedded default's durability (SyncNormal), or
// cc server's (SyncFull) when CC_SERVICE_TEST_SERVER_SYNC is "full".
func serverProcess(db, sock string) int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	sync := service.SyncNormal
	if os.Getenv("CC_SERVICE_TEST_SERVER_SYNC") == "full" {
		sync = service.SyncFull
	}
	opts := []service.Option{service.WithSync(sync)}
	if key := os.Getenv("CC_SERVICE_TEST_SERVER_KEY"); key != "" {
		opts = append(opts, service.WithSecretKeyFile(key))
	}
	srv, err := service.Open(ctx, db, opts...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	recordBatches(srv, os.Getenv("CC_SERVICE_TEST_SERVER_BATCHES"))
	if os.Getenv("CC_SERVICE_TEST_SERVER_STALL_UPLOADS") != "" {
		// An upload stops after its first chunks are stored, as one the
		// process is killed in the middle of.
		service.SetAfterChunks(srv, func(string, string, int) { select {} })
	}
	os.Remove(sock) // left behind by a killed predecessor
	lis, err := net.Listen("unix", sock)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	go srv.Serve(lis)
	<-ctx.Done()
	srv.Close()
	return 0
}

type serverProc struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
}

func startServerProcess(t *testing.T, db, sock string, env ...string) (*serverProc, *service.Client) {
	t.Helper()
	p := &serverProc{cmd: exec.Command(os.Args[0])}
	p.cmd.Env = append(os.Environ(), "CC_SERVICE_TEST_SERVER_DB="+db, "CC_SERVICE_TEST_SERVER_SOCKET="+sock)
	p.cmd.Env = append(p.cmd.Env, env...)
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		p.cmd.Wait()
	})
	c, err := service.Dial("unix://"+sock, service.WithGRPCOptions(autoLeasing()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// Wait for the child to serve; give up after a minute.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		pctx, pcancel := context.WithTimeout(ctx, time.Second)
		err := c.Ping(pctx)
		pcancel()
		if err == nil {
			return p, c
		}
		select {
		case <-ctx.Done():
			t.Fatalf("server process does not answer: %v\n%s", err, p.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
}

type step struct {
	Worker int
	Step   int
}

// spec is the function spec of a worker's step: its handler names both.
func (s step) spec() map[string]any { return function(fmt.Sprintf("w%d.s%d", s.Worker, s.Step)) }

// TestKillDuringApplies kills the server process with SIGKILL while 50
// clients apply in a loop, restarts it on the same file, and checks that
// every acknowledged apply is there and nothing is half-written: each
// resource is at its last acknowledged step or the one after, has exactly
// one version per step, and the serial counts exactly the mutations present.
func TestKillDuringApplies(t *testing.T) {
	killDuringApplies(t, t.TempDir())
}

// killDuringApplies is TestKillDuringApplies in dir, with the server
// process's environment env.
func killDuringApplies(t *testing.T, dir string, env ...string) {
	killDuringAppliesOn(t, dir, filepath.Join(dir, "state.db"), env...)
}

// TestPostgresKillDuringApplies: issue 14, TestKillDuringApplies on
// PostgreSQL: kill -9 of a server process mid-batch loses no
// acknowledged mutation and leaves none half-written.
func TestPostgresKillDuringApplies(t *testing.T) {
	db := servicetest.Postgres(t)
	killDuringAppliesOn(t, t.TempDir(), db, "CC_SERVICE_TEST_SERVER_KEY="+servicetest.KeyFile(db))
}

// killDuringAppliesOn is killDuringApplies on the database db.
func killDuringAppliesOn(t *testing.T, dir, db string, env ...string) {
	if testing.Short() {
		t.Skip("starts server processes; skipped with -short")
	}
	sock := filepath.Join(dir, "s")
	proc, c := startServerProcess(t, db, sock, env...)

	const workers = 50
	type progress struct {
		acked    int   // last acknowledged step, -1 for none
		serial   int64 // serial of that step
		inFlight bool  // the next step's call failed
	}
	prog := make([]progress, workers)
	req := func(w, k int, expected int64) service.ApplyRequest {
		r := applyReq(t, "crash", fmt.Sprintf("function.w%d", w), service.ActionUpdate, step{w, k}.spec(), expected)
		if k == 0 {
			r.Action = service.ActionCreate
		}
		r.IdempotencyKey = fmt.Sprintf("w%d-s%d", w, k)
		return r
	}
	var acks atomic.Int64
	killed := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		prog[w].acked = -1
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := &prog[w]
			for k := 0; ; k++ {
				res, err := c.Apply(context.Background(), req(w, k, p.serial))
				if err != nil {
					select {
					case <-killed:
						p.inFlight = true
						return
					default:
						t.Errorf("worker %d step %d before the kill: %v", w, k, err)
						return
					}
				}
				if res.Version != int64(k+1) || res.Reused {
					t.Errorf("worker %d step %d = version %d reused %v, want %d new", w, k, res.Version, res.Reused, k+1)
				}
				p.acked, p.serial = k, res.Serial
				acks.Add(1)
			}
		}()
	}
	// Kill once a few hundred applies have been acknowledged, while all 50
	// clients are still calling.
	for acks.Load() < 300 {
		time.Sleep(time.Millisecond)
	}
	close(killed)
	if err := proc.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	proc.cmd.Wait()
	inFlight := 0
	for _, p := range prog {
		if p.inFlight {
			inFlight++
		}
	}
	t.Logf("killed after %d acknowledged applies, %d in flight", acks.Load(), inFlight)
	if inFlight == 0 {
		t.Fatal("no apply was in flight at the kill")
	}

	_, c2 := startServerProcess(t, db, sock, env...)
	ctx := context.Background()
	st, err := c2.GetState(ctx, "crash")
	if err != nil {
		t.Fatal(err)
	}
	var mutations int64
	for w, p := range prog {
		addr := fmt.Sprintf("function.w%d", w)
		r := st.Lookup(addr)
		if r == nil {
			if p.acked >= 0 {
				t.Errorf("%s: acknowledged step %d is lost", addr, p.acked)
			}
			continue
		}
		var fn struct{ Handler string }
		var got step
		if err := json.Unmarshal(r.Spec, &fn); err != nil {
			t.Fatalf("%s: spec %s: %v", addr, r.Spec, err)
		}
		if _, err := fmt.Sscanf(fn.Handler, "w%d.s%d", &got.Worker, &got.Step); err != nil {
			t.Fatalf("%s: handler %q: %v", addr, fn.Handler, err)
		}
		if got.Worker != w || got.Step < p.acked || got.Step > p.acked+1 {
			t.Errorf("%s at step %d, want the acknowledged %d or the one in flight", addr, got.Step, p.acked)
		}
		if want := applyReq(t, "", "", 0, got.spec(), 0).Hash; r.Hash != want || r.Version != int64(got.Step+1) {
			t.Errorf("%s: hash %s version %d, want %s and %d", addr, r.Hash, r.Version, want, got.Step+1)
		}
		vs, err := c2.Versions(ctx, "crash", addr)
		if err != nil {
			t.Fatal(err)
		}
		if len(vs) != got.Step+1 {
			t.Errorf("%s: %d versions at step %d, want %d", addr, len(vs), got.Step, got.Step+1)
		}
		for i, v := range vs {
			if want := applyReq(t, "", "", 0, step{w, i}.spec(), 0).Hash; v.Hash != want || v.Version != int64(i+1) || v.Current != (i == got.Step) {
				t.Errorf("%s: version %+v, want version %d with hash %s", addr, v, i+1, want)
			}
		}
		mutations += int64(got.Step + 1)
	}
	if st.Serial != mutations {
		t.Errorf("serial %d after restart, but %d mutations are present", st.Serial, mutations)
	}

	// Retrying each in-flight apply with its idempotency key converges:
	// the answer of a call that committed is replayed, one that did not
	// is applied now.
	for w, p := range prog {
		if !p.inFlight {
			continue
		}
		res, err := c2.Apply(ctx, req(w, p.acked+1, p.serial))
		if err != nil {
			t.Errorf("worker %d: retry of step %d after restart: %v", w, p.acked+1, err)
			continue
		}
		if res.Version != int64(p.acked+2) {
			t.Errorf("worker %d: retry of step %d = version %d, want %d", w, p.acked+1, res.Version, p.acked+2)
		}
	}

	if service.IsPostgres(db) {
		return
	}
	sdb, err := sql.Open("sqlite", "file:"+db+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer sdb.Close()
	var check string
	if err := sdb.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check = %q, %v", check, err)
	}
}
