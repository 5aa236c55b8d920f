package applier

import (
	"errors"
	"fmt"
	"time"

	"cc.dev/cc/planner"
)

// EventType is what happened to a change during Apply.
type EventType string

// The events of a change: it started, is still running (a heartbeat), was
// done, or failed.
const (
	EventStart    EventType = "apply_start"
	EventProgress EventType = "apply_progress"
	EventComplete EventType = "apply_complete"
	EventErrored  EventType = "apply_errored"
)

// DefaultHeartbeat is how often a change still running says so.
const DefaultHeartbeat = 10 * time.Second

// Event is one step of one change of an Apply, for a program that shows
// progress its own way (cc apply --json). It never holds a spec or a
// value: only the change's address, action and outcome.
type Event struct {
	Type   EventType
	Change *planner.Change
	// Seq is the change's number in the order the changes started, from
	// 1; Total is the number of changes of the plan.
	Seq, Total int
	// Elapsed is the time since the change started (zero at the start).
	Elapsed time.Duration
	// Outcome is the change done (EventComplete).
	Outcome Outcome
	// Err is why it failed (EventErrored).
	Err error
	// Message is the progress line Apply writes for it, without the
	// newline.
	Message string
}

// WithEvents calls f with each event of each change, in the order their
// progress lines are written, one call at a time (default: none).
func WithEvents(f func(Event)) Option {
	return func(a *Applier) error {
		if f == nil {
			return errors.New("nil event function")
		}
		a.events = f
		return nil
	}
}

// WithHeartbeat sets how often a change still running prints a line
// saying so, with its elapsed time ("sandbox.dev: still creating... [20s
// elapsed]"); the default is DefaultHeartbeat. The ticks come from the
// applier's timers, so a test can drive them.
func WithHeartbeat(d time.Duration) Option {
	return func(a *Applier) error {
		if d <= 0 {
			return fmt.Errorf("heartbeat %s: want more than 0", d)
		}
		a.heartbeat = d
		return nil
	}
}

// report writes a progress line and calls the event function with ev, its
// Message set to the line, under the run's output lock.
func (r *run) report(ev Event, format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev.Message = fmt.Sprintf(format, args...)
	fmt.Fprintln(r.a.progress, ev.Message)
	if r.a.events != nil {
		ev.Total = len(r.p.Changes)
		r.a.events(ev)
	}
}

// heartbeat says, at every tick of the applier's heartbeat until the
// returned stop is called, that the change of each of ns (one call: a
// change alone or a batch) is still running and for how long. stop returns when nothing more will be said.
func (r *run) heartbeat(ns []*node, start time.Time) (stop func()) {
	every := r.a.heartbeat
	if every <= 0 {
		every = DefaultHeartbeat
	}
	ticks, stopTicker := r.a.timer().NewTicker(every)
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case <-ticks:
				d := r.a.now().Sub(start)
				for _, n := range ns {
					r.report(Event{Type: EventProgress, Change: n.c, Seq: n.seq, Elapsed: d},
						"%s: still %s... [%s elapsed]", n.c.Addr, verbing(n.c.Action), d.Round(time.Second))
				}
			case <-quit:
				return
			}
		}
	}()
	return func() {
		stopTicker()
		close(quit)
		<-done
	}
}
