package applier_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/service"
)

// deadPID is the pid of a process that ran and was reaped.
func deadPID(t *testing.T) int64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return int64(cmd.ProcessState.Pid())
}

// hiddenLease hides the lease id in LockHeld errors, as a server does
// from other holders.
type hiddenLease struct {
	*service.Client
}

func (h hiddenLease) Lock(ctx context.Context, project string, hd service.Holder, ttl time.Duration) (service.Lease, int64, error) {
	l, s, err := h.Client.Lock(ctx, project, hd, ttl)
	var le *service.LockedError
	if errors.As(err, &le) {
		le.Lease.ID = ""
	}
	return l, s, err
}

// TestItem16DeadHolderTakenOver is issue 8 item 16: a lock held by a
// process of this host that is gone is taken over at once, saying so,
// instead of waiting out its lease; a live holder's is not.
func TestItem16DeadHolderTakenOver(t *testing.T) {
	ctx := context.Background()
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	for _, hide := range []bool{false, true} {
		cl, _ := server(t)
		var svc applier.Service = cl
		if hide {
			svc = hiddenLease{cl}
		}
		pid := deadPID(t)
		dead := service.Holder{User: "bob", Host: host, Command: "cc apply", PID: pid}
		if _, _, err := cl.Lock(ctx, "p", dead, 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		var notices strings.Builder
		a, err := applier.New(svc, applier.WithNotices(&notices))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		lk, err := a.Lock(ctx, "p")
		if err != nil {
			t.Fatalf("hidden lease id %t: Lock() = %v, want the dead holder's lock taken over", hide, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("the takeover took %s", d)
		}
		want := "took over the lock of cc apply (pid " + strconv.FormatInt(pid, 10) + " on " + host + "), which is no longer running\n"
		if notices.String() != want {
			t.Errorf("hidden lease id %t: notices = %q, want %q", hide, notices.String(), want)
		}
		if err := lk.Release(); err != nil {
			t.Fatal(err)
		}
	}

	// A live holder on this host (the test's parent), and a dead pid on
	// another host, keep their locks.
	for _, h := range []service.Holder{
		{User: "bob", Host: host, Command: "cc apply", PID: int64(os.Getppid())},
		{User: "bob", Host: host + "-elsewhere", Command: "cc apply", PID: deadPID(t)},
	} {
		cl, _ := server(t)
		if _, _, err := cl.Lock(ctx, "p", h, 10*time.Minute); err != nil {
			t.Fatal(err)
		}
		var notices strings.Builder
		a, _ := applier.New(cl, applier.WithNotices(&notices))
		if _, err := a.Lock(ctx, "p"); !errors.Is(err, service.ErrLocked) {
			t.Errorf("holder %v: Lock() = %v, want locked", h, err)
		}
		if notices.Len() > 0 {
			t.Errorf("holder %v: notices %q", h, notices.String())
		}
	}
}

// TestItem16ServiceLostStopsOnce is issue 8 item 16: when the service
// stops answering mid-apply, the apply stops starting changes, and the
// result says so once (Lost), with the changes in flight Unknown and the
// rest NotStarted, instead of one error per change.
// With batches (issue 13), the service goes away after the first batch,
// and the changes in flight are those of the calls in flight.
func TestItem16ServiceLostStopsOnce(t *testing.T) {
	for _, run := range []struct {
		batch    int
		answered int64
	}{{applier.DefaultBatchSize, 1}, {1, 5}} {
		t.Run(fmt.Sprintf("batch=%d", run.batch), func(t *testing.T) { testServiceLostStopsOnce(t, run.batch, run.answered) })
	}
}

// testServiceLostStopsOnce has the service stop answering after it
// answered some applies: that many ApplyResource or ApplyBatch calls.
func testServiceLostStopsOnce(t *testing.T, batch int, answered int64) {
	cl, c := server(t)
	d := project(t, t.TempDir(), workload.Options{N: 30})
	var applied atomic.Int64
	c.reset(func(method string, n int) error {
		if (method == "ApplyResource" || method == "ApplyBatch") && applied.Add(1) > answered {
			return status.Error(codes.Unavailable, "stream terminated by RST_STREAM with error code: CANCEL")
		}
		if applied.Load() > answered && method != "Unlock" {
			return status.Error(codes.Unavailable, "connection error: desc = \"transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused\"")
		}
		return nil
	})
	var progress strings.Builder
	a := newApplier(t, cl, d, applier.WithParallelism(3), applier.WithRetries(1), applier.WithBatchSize(batch), applier.WithProgress(&progress))
	p, res := applyAll(t, a, d)
	if res.Lost == nil || !applier.ServiceLost(res.Lost) {
		t.Fatalf("Lost = %v", res.Lost)
	}
	if len(res.Errors) != 0 {
		t.Errorf("%d errors, want none: the service stopping is not the changes' failure: %v", len(res.Errors), res.Errors[0])
	}
	if len(res.Unknown) == 0 || len(res.Unknown) > 3*batch {
		t.Errorf("Unknown = %v, want the changes in flight (those of at most 3 calls of at most %d)", res.Unknown, batch)
	}
	if got := c.get("ApplyBatch"); (got > 0) != (batch > 1) {
		t.Errorf("%d ApplyBatch calls with batches of at most %d", got, batch)
	}
	if got := len(res.Done) + len(res.Unknown) + len(res.NotStarted); got != len(p.Changes) {
		t.Errorf("%d done + %d unknown + %d not started, of %d changes", len(res.Done), len(res.Unknown), len(res.NotStarted), len(p.Changes))
	}
	for _, ns := range res.NotStarted {
		if ns.Because != "the service stopped answering" {
			t.Errorf("%s not started because %q", ns.Addr, ns.Because)
			break
		}
	}
	if strings.Contains(progress.String(), "RST_STREAM") || strings.Contains(progress.String(), "connection refused") {
		t.Errorf("progress shows raw transport errors:\n%s", progress.String())
	}
	if n := strings.Count(progress.String(), "Stopping: the service stopped answering"); n != 1 {
		t.Errorf("progress says the service stopped %d times:\n%s", n, progress.String())
	}
}
