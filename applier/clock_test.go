package applier_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"cc.dev/cc/applier"
	"cc.dev/cc/service"
)

// fakeClock is a clock a test moves by hand: the time of the service
// (service.WithClock), of the applier (applier.WithClock) and the timers
// its locks wait and renew by (applier.WithTimers). Nothing sleeps.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	// waiting gets a value each time After is called: the test knows a
	// lock is waiting.
	waiting chan struct{}
}

// fakeTimer fires at at; a ticker (period > 0) then again every period.
type fakeTimer struct {
	at      time.Time
	period  time.Duration
	c       chan time.Time
	stopped bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), waiting: make(chan struct{}, 64)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	t := c.add(d, 0)
	c.waiting <- struct{}{}
	return t.c
}

func (c *fakeClock) NewTicker(d time.Duration) (<-chan time.Time, func()) {
	t := c.add(d, d)
	return t.c, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		t.stopped = true
	}
}

func (c *fakeClock) add(d, period time.Duration) *fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: c.now.Add(d), period: period, c: make(chan time.Time, 1)}
	c.timers = append(c.timers, t)
	return t
}

// Advance moves the clock on by d and fires the timers that are due, as
// package time's do: a tick a slow reader has not taken is dropped.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	live := c.timers[:0]
	for _, t := range c.timers {
		for !t.stopped && !t.at.After(c.now) {
			select {
			case t.c <- t.at:
			default:
			}
			if t.period == 0 {
				t.stopped = true
			}
			t.at = t.at.Add(t.period)
		}
		if !t.stopped {
			live = append(live, t)
		}
	}
	c.timers = live
}

// options make an applier keep time by c.
func (c *fakeClock) options() []applier.Option {
	return []applier.Option{applier.WithClock(c.Now), applier.WithTimers(c)}
}

// renewals tells a test each time a lease renewal has been answered.
type renewals struct {
	applier.Service
	done chan error
}

func (r *renewals) RenewLock(ctx context.Context, project, leaseID string, ttl time.Duration) (service.Lease, error) {
	l, err := r.Service.RenewLock(ctx, project, leaseID, ttl)
	r.done <- err
	return l, err
}

// await receives from c, failing t if nothing comes within a minute (a
// guard against a hang, never a wait that a test relies on).
func await[T any](t *testing.T, what string, c <-chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("%s: nothing within a minute", what)
		panic("unreachable")
	}
}
