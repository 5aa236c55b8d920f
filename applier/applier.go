package applier

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// Service is what the applier uses of the cc service. *service.Client
// has it; tests wrap the real server, never a mock.
type Service interface {
	// GetStateComparing reads the state and compares local values in the
	// same read; options ask for data sources and unowned resources too.
	GetStateComparing(ctx context.Context, project string, vals []service.ValueToCompare, opts ...service.StateOption) (*service.State, []service.ValueMatch, error)
	Lock(ctx context.Context, project string, h service.Holder, ttl time.Duration) (service.Lease, int64, error)
	RenewLock(ctx context.Context, project, leaseID string, ttl time.Duration) (service.Lease, error)
	Unlock(ctx context.Context, project, leaseID string) error
	MissingBlobs(ctx context.Context, project string, digests []string) ([]string, error)
	UploadBlob(ctx context.Context, up service.BlobUpload, r io.Reader) (bool, error)
	ReadBlob(ctx context.Context, project, digest string, limit int64) (*service.Blob, error)
	EnsureImage(ctx context.Context, req service.ImageRequest) (*service.ImageResult, error)
	Apply(ctx context.Context, req service.ApplyRequest) (*service.ApplyResult, error)
	Delete(ctx context.Context, req service.DeleteRequest) (*service.DeleteResult, error)
	PutSecretValue(ctx context.Context, req service.SecretRequest) (*service.SecretResult, error)
	Move(ctx context.Context, req service.MoveRequest) (*service.MoveResult, error)
	Forget(ctx context.Context, req service.TransferRequest) (*service.TransferResult, error)
	Adopt(ctx context.Context, req service.TransferRequest) (*service.TransferResult, error)
	// SetOutputs replaces the project's outputs (issue 12).
	SetOutputs(ctx context.Context, req service.SetOutputsRequest) (int64, error)
}

var _ Service = (*service.Client)(nil)

// Applier plans and applies against one service.
type Applier struct {
	svc         Service
	parallelism int
	lockTimeout time.Duration
	leaseTTL    time.Duration
	grace       time.Duration
	holder      service.Holder
	progress    io.Writer
	notices     io.Writer
	secrets     SecretSource
	now         func() time.Time
	retries     int
	// allowDataLoss lets Apply carry out deletes and replaces of
	// resources that hold data (planner.DataLoss).
	allowDataLoss bool
	// timers are what locks wait and renew by; nil is package time's
	// (lock.go).
	timers timers
	// heartbeat and events: events.go.
	heartbeat time.Duration
	events    func(Event)
	// batchSize and noBatch: batch.go.
	batchSize int
	noBatch   atomic.Bool
}

// Option configures an Applier.
type Option func(*Applier) error

// WithParallelism sets how many changes run at once (default 10).
func WithParallelism(n int) Option {
	return func(a *Applier) error {
		if n < 1 {
			return fmt.Errorf("parallelism %d: want at least 1", n)
		}
		a.parallelism = n
		return nil
	}
}

// WithLockTimeout sets how long to wait for a project lock another holder
// has (default 0: fail at once, naming the holder).
func WithLockTimeout(d time.Duration) Option {
	return func(a *Applier) error {
		if d < 0 {
			return fmt.Errorf("lock timeout %s: want 0 or more", d)
		}
		a.lockTimeout = d
		return nil
	}
}

// WithLeaseTTL sets the lock's lease (default a minute), renewed every
// third of it while the apply runs; a dead applier's lock expires after it.
func WithLeaseTTL(d time.Duration) Option {
	return func(a *Applier) error {
		if d < time.Second || d > time.Hour {
			return fmt.Errorf("lease %s: want between 1s and 1h", d)
		}
		a.leaseTTL = d
		return nil
	}
}

// WithGrace sets how long calls in flight may finish after the context
// is cancelled (Ctrl-C) before they are cancelled too (default 30s).
func WithGrace(d time.Duration) Option {
	return func(a *Applier) error {
		if d < 0 {
			return fmt.Errorf("grace %s: want 0 or more", d)
		}
		a.grace = d
		return nil
	}
}

// WithHolder says who takes the lock (default: this user, host and pid
// running "cc apply").
func WithHolder(h service.Holder) Option {
	return func(a *Applier) error {
		if h.User == "" {
			return errors.New("a lock holder needs a user")
		}
		a.holder = h
		return nil
	}
}

// WithProgress writes a line as each change starts and ends, with its
// elapsed time (default: nothing).
func WithProgress(w io.Writer) Option {
	return func(a *Applier) error {
		if w == nil {
			return errors.New("nil progress writer")
		}
		a.progress = w
		return nil
	}
}

// WithNotices writes what a person should know that is not progress,
// such as a lock taken over from a holder that is no longer running
// (default: nothing).
func WithNotices(w io.Writer) Option {
	return func(a *Applier) error {
		if w == nil {
			return errors.New("nil notice writer")
		}
		a.notices = w
		return nil
	}
}

// WithSecrets reads local secret values (default: none are read, and a
// secret that needs one fails).
func WithSecrets(s SecretSource) Option {
	return func(a *Applier) error {
		if s == nil {
			return errors.New("nil secret source")
		}
		a.secrets = s
		return nil
	}
}

// WithClock replaces time.Now for elapsed times, for golden tests.
func WithClock(now func() time.Time) Option {
	return func(a *Applier) error {
		if now == nil {
			return errors.New("nil clock")
		}
		a.now = now
		return nil
	}
}

// WithRetries sets how many times a call that failed with Unavailable is
// retried, with the same idempotency key (default 2).
func WithRetries(n int) Option {
	return func(a *Applier) error {
		if n < 0 {
			return fmt.Errorf("retries %d: want 0 or more", n)
		}
		a.retries = n
		return nil
	}
}

// WithAllowDataLoss lets Apply carry out a plan that deletes or replaces
// volumes, datasets or sandboxes with a snapshot (planner.DataLoss).
// Without it, Apply refuses such a plan whole with a *DataLossError: a
// program embedding the applier gets the same guard as cc apply's
// --allow-data-loss.
func WithAllowDataLoss(allow bool) Option {
	return func(a *Applier) error {
		a.allowDataLoss = allow
		return nil
	}
}

// New makes an Applier for svc.
func New(svc Service, opts ...Option) (*Applier, error) {
	if svc == nil {
		return nil, errors.New("nil service")
	}
	a := &Applier{
		svc:         svc,
		parallelism: 10,
		batchSize:   DefaultBatchSize,
		leaseTTL:    time.Minute,
		grace:       30 * time.Second,
		holder:      service.CurrentHolder("cc apply"),
		progress:    io.Discard,
		notices:     io.Discard,
		now:         time.Now,
		retries:     2,
		heartbeat:   DefaultHeartbeat,
	}
	for _, o := range opts {
		if err := o(a); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// Plan reads the project's state and plans the desired state against it:
// the one planning path, of cc plan, cc apply and cc destroy alike. Local
// secret values, and the sensitive values of the desired state, are
// compared with the service's in the same call (read), so that an
// unchanged project costs that one call and nothing else; changed files
// are shown with their old content, read from the service, only when they
// changed. A failed read is a *ReadError.
func (a *Applier) Plan(ctx context.Context, d *schema.Desired, o planner.Options) (*planner.Plan, *planner.State, error) {
	r, err := a.read(ctx, d)
	if err != nil {
		return nil, nil, &ReadError{Project: d.Project, Err: err}
	}
	return a.planWith(ctx, d, r, o)
}

// State reads the project's state as the planner sees it, comparing no
// local values: what a saved plan is checked against (planner.File.Check).
func (a *Applier) State(ctx context.Context, project string) (*planner.State, error) {
	st, _, err := a.svc.GetStateComparing(ctx, project, nil)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// StateResolving reads the project's state as State does, resolving the
// data sources of data in the same call (planner.DataLookups): what a
// saved plan with data sources is checked against (issue 10).
func (a *Applier) StateResolving(ctx context.Context, project string, data []service.DataLookup) (*planner.State, error) {
	st, _, err := a.svc.GetStateComparing(ctx, project, nil, service.WithData(data...))
	if err != nil {
		return nil, err
	}
	return st, nil
}

// ReadError is the error of a plan whose read of the project's state
// failed; Err is the service's.
type ReadError struct {
	Project string
	Err     error
}

func (e *ReadError) Error() string {
	return fmt.Sprintf("read the state of project %s: %v", e.Project, e.Err)
}

func (e *ReadError) Unwrap() error { return e.Err }

// planWith plans against a state read returned.
func (a *Applier) planWith(ctx context.Context, d *schema.Desired, r *reading, o planner.Options) (*planner.Plan, *planner.State, error) {
	ps := r.State
	if ps.Project == "" {
		ps.Project = d.Project
	}
	if len(r.local.empty) > 0 && !o.Destroy {
		return nil, nil, errors.Join(r.local.empty...)
	}
	r.compare(d, &o)
	if o.Content == nil {
		o.Content = newContent(ctx, a.svc, d)
	}
	p, err := planner.Diff(d, ps, o)
	if err != nil {
		return nil, nil, err
	}
	return p, ps, nil
}

func problem(err error) string {
	var m *MissingValueError
	if errors.As(err, &m) {
		return m.Source + " " + m.Reason
	}
	return err.Error()
}
