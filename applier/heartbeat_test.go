package applier_test

import (
	"bufio"
	"context"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/planner"
)

// TestHeartbeatEveryInterval checks that a change still running says so
// at every tick of the heartbeat, with its elapsed time, for as long as it
// runs (not once), and reports each as an apply_progress event; the ticks
// come from a fake clock, so nothing waits on time. Issue 12: apply
// progress.
func TestHeartbeatEveryInterval(t *testing.T) {
	cl, calls := server(t)
	d := project(t, t.TempDir(), workload.Options{N: 1})
	clock := newFakeClock()
	pr, pw := io.Pipe()
	defer pw.Close()
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	var mu sync.Mutex
	var events []applier.Event
	opts := append(clock.options(), applier.WithParallelism(1), applier.WithProgress(pw),
		applier.WithHeartbeat(7*time.Second), applier.WithEvents(func(ev applier.Event) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, ev)
		}))
	a := newApplier(t, cl, d, opts...)
	entered, release := make(chan struct{}), make(chan struct{})
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
	defer lk.Release()
	done := make(chan *applier.Result)
	go func() { done <- a.Apply(context.Background(), lk, p, d) }()
	await(t, "the first change", entered)
	first := ""
	for _, want := range []string{"[7s elapsed]", "[14s elapsed]", "[21s elapsed]"} {
		clock.Advance(7 * time.Second)
		for {
			line := await(t, "a heartbeat", lines)
			if strings.Contains(line, ": still ") {
				if !strings.HasSuffix(line, want) {
					t.Fatalf("heartbeat %q, want it to end in %q", line, want)
				}
				if addr, _, _ := strings.Cut(line, ":"); first == "" {
					first = addr
				} else if addr != first {
					t.Fatalf("heartbeat of %s, want %s", addr, first)
				}
				break
			}
		}
	}
	close(release)
	if res := await(t, "the apply", done); res.Err() != nil {
		t.Fatal(res.Err())
	}
	mu.Lock()
	defer mu.Unlock()
	var beats []time.Duration
	for _, ev := range events {
		if ev.Type == applier.EventProgress {
			beats = append(beats, ev.Elapsed)
			if ev.Change.Addr != first || ev.Seq < 1 || ev.Seq > ev.Total || ev.Total != len(p.Changes) {
				t.Errorf("progress event of %s [%d/%d], want %s [n/%d]", ev.Change.Addr, ev.Seq, ev.Total, first, len(p.Changes))
			}
		}
	}
	if len(beats) != 3 || beats[0] != 7*time.Second || beats[2] != 21*time.Second {
		t.Errorf("progress events after %v, want 7s, 14s, 21s", beats)
	}
}

// TestProgressNumbersChanges checks that each change's start line says
// which of the plan's changes it is, [1/N] to [N/N]. Issue 12: apply
// progress.
func TestProgressNumbersChanges(t *testing.T) {
	cl, _ := server(t)
	d := project(t, t.TempDir(), workload.Options{N: 2})
	var out strings.Builder
	a := newApplier(t, cl, d, applier.WithParallelism(1), applier.WithProgress(&out))
	p, res := applyAll(t, a, d)
	if res.Err() != nil {
		t.Fatal(res.Err())
	}
	n := len(p.Changes)
	seen := map[string]bool{}
	for _, line := range strings.Split(out.String(), "\n") {
		if i := strings.LastIndex(line, "... ["); i >= 0 {
			seen[line[i+4:]] = true
		}
	}
	for i := 1; i <= n; i++ {
		if k := "[" + itoa(i) + "/" + itoa(n) + "]"; !seen[k] {
			t.Errorf("no start line ends in %s:\n%s", k, out.String())
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
