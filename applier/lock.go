package applier

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"cc.dev/cc/service"
)

// Lock is a held project lock, renewed in the background until Release.
type Lock struct {
	a       *Applier
	project string
	lease   service.Lease
	serial  int64
	stop    chan struct{}
	done    chan struct{}

	mu   sync.Mutex
	lost error
	once sync.Once
}

// LockedError: the project's lock is held by another holder after waiting
// the lock timeout.
type LockedError struct {
	Project string
	Holder  service.Holder
	Since   time.Time
	// Timeout is how long the lock was waited for.
	Timeout time.Duration
}

func (e *LockedError) Error() string {
	wait := "to wait for it, pass --lock-timeout"
	if e.Timeout > 0 {
		wait = fmt.Sprintf("waited %s for it (--lock-timeout)", e.Timeout)
	}
	return fmt.Sprintf("project %s is locked by %s since %s; %s; if that holder is gone, run cc force-unlock",
		e.Project, e.Holder, e.Since.UTC().Format(time.RFC3339), wait)
}

func (e *LockedError) Is(target error) bool { return target == service.ErrLocked }

// Lock takes the project's lock, waiting up to the lock timeout while
// another holder has it, and renews it until Release.
func (a *Applier) Lock(ctx context.Context, project string) (*Lock, error) {
	deadline := a.now().Add(a.lockTimeout)
	told, tookOver := false, false
	for {
		lease, serial, err := a.svc.Lock(ctx, project, a.holder, a.leaseTTL)
		if err == nil {
			l := &Lock{a: a, project: project, lease: lease, serial: serial, stop: make(chan struct{}), done: make(chan struct{})}
			// The ticker is made here, not in the goroutine, so that a
			// test's clock knows of it once Lock returns.
			tick, stopTicker := a.timer().NewTicker(a.leaseTTL / 3)
			go l.renew(tick, stopTicker)
			return l, nil
		}
		var le *service.LockedError
		if !errors.As(err, &le) {
			return nil, fmt.Errorf("lock project %s: %w", project, err)
		}
		if h := le.Lease.Holder; !tookOver && deadHere(h) {
			// Its holder's process on this machine is gone: waiting out
			// its lease would only wait for nothing.
			if a.takeOver(ctx, project, le.Lease) {
				fmt.Fprintf(a.notices, "took over the lock of %s (pid %d on %s), which is no longer running\n", holderCommand(h), h.PID, h.Host)
				tookOver = true
				continue
			}
		}
		left := deadline.Sub(a.now())
		if left <= 0 {
			return nil, &LockedError{Project: project, Holder: le.Lease.Holder, Since: le.Lease.AcquiredAt, Timeout: a.lockTimeout}
		}
		if !told {
			fmt.Fprintf(a.progress, "Waiting up to %s for the lock on project %s, held by %s...\n", a.lockTimeout, project, le.Lease.Holder)
			told = true
		}
		wait := min(left, 500*time.Millisecond)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-a.timer().After(wait):
		}
	}
}

// timers are what a lock waits for another holder and renews its lease
// by: the real ones, or a test's, which drives time instead of sleeping
// (export_test.go).
type timers interface {
	After(d time.Duration) <-chan time.Time
	NewTicker(d time.Duration) (c <-chan time.Time, stop func())
}

// realTimers are package time's.
type realTimers struct{}

func (realTimers) After(d time.Duration) <-chan time.Time { return time.After(d) }

func (realTimers) NewTicker(d time.Duration) (<-chan time.Time, func()) {
	t := time.NewTicker(d)
	return t.C, t.Stop
}

// timer is the Applier's timers, the real ones unless a test set others.
func (a *Applier) timer() timers {
	if a.timers == nil {
		return realTimers{}
	}
	return a.timers
}

// deadHere reports whether a lock holder ran on this host, under a pid
// that no longer exists.
func deadHere(h service.Holder) bool {
	host, err := os.Hostname()
	if err != nil || host == "" || h.Host != host || h.PID <= 0 || h.PID == int64(os.Getpid()) {
		return false
	}
	return processGone(int(h.PID))
}

// forceUnlocker is what a takeover uses when the lease's id is not known.
type forceUnlocker interface {
	ForceUnlock(ctx context.Context, project string) (*service.Lease, error)
}

// takeOver releases the lease of a dead holder: that exact lease when its
// id is known; otherwise, by force, only while the lease has a while to
// run (so that nobody else can have taken it since), and checking the
// lease released was that one.
func (a *Applier) takeOver(ctx context.Context, project string, l service.Lease) bool {
	if l.ID != "" {
		return a.svc.Unlock(ctx, project, l.ID) == nil
	}
	fu, ok := a.svc.(forceUnlocker)
	if !ok || (!l.ExpiresAt.IsZero() && time.Until(l.ExpiresAt) < 5*time.Second) {
		return false
	}
	released, err := fu.ForceUnlock(ctx, project)
	if err != nil {
		return false
	}
	if released != nil && (released.Holder != l.Holder || !released.AcquiredAt.Equal(l.AcquiredAt)) {
		fmt.Fprintf(a.notices, "warning: released the lock of %s on project %s, taken since the dead holder's\n", released.Holder, project)
	}
	return true
}

func holderCommand(h service.Holder) string {
	if h.Command == "" {
		return "another process"
	}
	return h.Command
}

// Serial is the project's serial when the lock was taken.
func (l *Lock) Serial() int64 { return l.serial }

// Project is the project locked.
func (l *Lock) Project() string { return l.project }

// LeaseID is the lease every mutation carries.
func (l *Lock) LeaseID() string { return l.lease.ID }

// Err is why the lock was lost, or nil.
func (l *Lock) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// renew renews the lease at every tick until Release or until the lease
// is lost.
func (l *Lock) renew(tick <-chan time.Time, stopTicker func()) {
	defer close(l.done)
	defer stopTicker()
	for {
		select {
		case <-l.stop:
			return
		case <-tick:
			ctx, cancel := context.WithTimeout(context.Background(), l.a.leaseTTL/3)
			_, err := l.a.svc.RenewLock(ctx, l.project, l.lease.ID, l.a.leaseTTL)
			cancel()
			if err != nil && !errors.Is(err, service.ErrUnavailable) {
				l.mu.Lock()
				l.lost = fmt.Errorf("the lock on project %s was lost: %w", l.project, err)
				l.mu.Unlock()
				return
			}
		}
	}
}

// Release stops renewing and unlocks, even when ctx is done (Ctrl-C).
func (l *Lock) Release() error {
	var err error
	l.once.Do(func() {
		close(l.stop)
		<-l.done
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// Unlocking twice is harmless, and a lock left behind blocks the
		// next apply for a lease: try a few times.
		for i := 0; i < 3; i++ {
			if err = l.a.svc.Unlock(ctx, l.project, l.lease.ID); err == nil || errors.Is(err, service.ErrLocked) || ctx.Err() != nil {
				break
			}
		}
		if err != nil {
			err = fmt.Errorf("unlock project %s: %w", l.project, err)
		}
	})
	return err
}
