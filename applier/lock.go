package applier

import (
	"context"
	"errors"
	"fmt"
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
	told := false
	for {
		lease, serial, err := a.svc.Lock(ctx, project, a.holder, a.leaseTTL)
		if err == nil {
			l := &Lock{a: a, project: project, lease: lease, serial: serial, stop: make(chan struct{}), done: make(chan struct{})}
			go l.renew()
			return l, nil
		}
		var le *service.LockedError
		if !errors.As(err, &le) {
			return nil, fmt.Errorf("lock project %s: %w", project, err)
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
		case <-time.After(wait):
		}
	}
}

// Serial is the project's serial when the lock was taken.
func (l *Lock) Serial() int64 { return l.serial }

// LeaseID is the lease every mutation carries.
func (l *Lock) LeaseID() string { return l.lease.ID }

// Err is why the lock was lost, or nil.
func (l *Lock) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

func (l *Lock) renew() {
	defer close(l.done)
	t := time.NewTicker(l.a.leaseTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
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
