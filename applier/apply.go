package applier

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/diag"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// Result is what an apply did: every change done, every error, and every
// change not started (because what it needed failed, or the apply was
// interrupted).
type Result struct {
	Done       []Outcome
	Errors     []*Error
	NotStarted []NotStarted
	// Interrupted: the context was cancelled (Ctrl-C) or the lock lost
	// before every change was started.
	Interrupted bool
	// Lost is the first error that showed the service stopped answering
	// (ServiceLost): the apply stopped there. The changes in flight then
	// are Unknown, not Errors: whether the service did them is not known
	// until it answers again; the rest are NotStarted.
	Lost    error
	Unknown []string
	// Refused is why nothing was started at all: a *DataLossError.
	Refused error
	// Outputs are the project's outputs after a successful apply, sorted
	// by name (issue 12); nil when it failed.
	Outputs []schema.Output
}

// DataLossError refuses a plan that destroys the data of Addrs, for an
// Applier made without WithAllowDataLoss.
type DataLossError struct {
	Addrs []string
}

func (e *DataLossError) Error() string {
	return fmt.Sprintf("the plan destroys the data of %s; nothing was applied (allow it with --allow-data-loss, or applier.WithAllowDataLoss)", strings.Join(e.Addrs, ", "))
}

// ServiceLost reports whether err shows that the service stopped
// answering (it went away, or the connection to it broke), rather than
// that it refused something: gRPC's Unavailable, a refused or reset
// connection, a transport closed under a call.
func ServiceLost(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	for _, s := range []string{"x509", "certificate", "tls:", "handshake"} {
		if strings.Contains(msg, s) {
			// It answers, but is not trusted (or does not trust us): that
			// is said as it is.
			return false
		}
	}
	if errors.Is(err, service.ErrUnavailable) {
		return true
	}
	if st, ok := status.FromError(err); ok && st.Code() == codes.Unavailable {
		return true
	}
	for _, s := range []string{"connection refused", "transport is closing", "RST_STREAM", "error reading from server", "connection reset by peer", "broken pipe", "client connection is closing"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// Outcome is one change done.
type Outcome struct {
	Addr   string
	Action planner.Action
	// Version is the version a function or dataset now has; Reused says
	// it existed already.
	Version int64
	Reused  bool
	// CreatedBeforeDestroyed: a replacement was brought up before the old
	// resource was removed (lifecycle.create_before_destroy).
	CreatedBeforeDestroyed bool
	Elapsed                time.Duration
}

// NotStarted is a change that was not started, and why.
type NotStarted struct {
	Addr    string
	Because string
}

// Error is a change that failed: its address, where it is declared, and
// why.
type Error struct {
	Addr   string
	Action planner.Action
	Range  *diag.Range
	Err    error
}

func (e *Error) Error() string {
	s := fmt.Sprintf("%s %s: %v", e.Action, e.Addr, e.Err)
	if e.Range != nil && !e.Range.IsZero() {
		s = e.Range.String() + ": " + s
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Err joins every error; nil when every change was done.
func (r *Result) Err() error {
	if r.Refused != nil {
		return r.Refused
	}
	var errs []error
	for _, e := range r.Errors {
		errs = append(errs, e)
	}
	if r.Lost != nil {
		errs = append(errs, fmt.Errorf("the service stopped answering: %d changes not done", len(r.Unknown)+len(r.NotStarted)))
	}
	if len(errs) == 0 && len(r.NotStarted) > 0 {
		errs = append(errs, fmt.Errorf("%d changes not started", len(r.NotStarted)))
	}
	return errors.Join(errs...)
}

// Counts counts what was done by action, and versions new and reused.
func (r *Result) Counts() (created, updated, replaced, deleted, newVersions, reused int) {
	for _, o := range r.Done {
		switch o.Action {
		case planner.Create:
			created++
		case planner.Update:
			updated++
		case planner.Replace:
			replaced++
		case planner.Delete:
			deleted++
		}
		if o.Version != 0 {
			if o.Reused {
				reused++
			} else {
				newVersions++
			}
		}
	}
	return
}

// NewRevisions counts the new revisions of scaling groups among the new
// versions Counts counts (issue 11: scaling groups).
func (r *Result) NewRevisions() int {
	n := 0
	for _, o := range r.Done {
		if o.Version != 0 && !o.Reused && schema.KindOf(o.Addr) == schema.KindScalingGroup {
			n++
		}
	}
	return n
}

// node is a change being applied.
type node struct {
	c          *planner.Change
	r          *schema.Resource // nil for a delete
	blobs      []string
	waiting    int
	dependants []*node
	state      int // 0 waiting, 1 running, 2 done, 3 failed, 4 not started, 5 unknown (the service stopped answering)
	why        string
	// expected is the serial its change expects when a move touched its
	// row (lifecycle.go), else 0: the plan's.
	expected int64
	// seq is its number in the order the changes started, from 1.
	seq int
}

type finished struct {
	n   *node
	out Outcome
	err error
}

// Apply carries out a plan made against the state the lock was taken at,
// with the desired state it was made from. Changes start when what they
// need is done, at most the parallelism at once. A failed change stops
// nothing but its dependants; cancelling ctx stops new changes from
// starting, lets those running finish (for the grace period), and returns.
// Every error is in the Result with its address and position.
func (a *Applier) Apply(ctx context.Context, lk *Lock, p *planner.Plan, d *schema.Desired) *Result {
	res := &Result{}
	if !a.allowDataLoss {
		if res.Refused = dataLossRefusal(p); res.Refused != nil {
			return res
		}
	}
	r := &run{a: a, ctx: ctx, lk: lk, p: p, res: res, stopWhy: "the apply was interrupted"}
	r.graph(d)

	// Upload what the service lacks, before any change that needs it.
	opCtx, cancelOps := a.opContext(ctx)
	defer cancelOps()
	r.opCtx = opCtx
	r.moveFirst()
	a.uploadBlobs(opCtx, ctx, lk, p, d, r.order, r.fail)

	for _, n := range r.order {
		if n.state == 3 {
			a.skipDependants(n, r.say)
			continue
		}
		if n.waiting == 0 && n.state == 0 {
			r.ready.add(n)
		}
	}
	r.loop()
	r.finish()
	a.storeOutputs(ctx, lk, p, d, res)
	return res
}

// dataLossRefusal is the *DataLossError of a plan that destroys data,
// by what the plan says it destroys and what its changes destroy by their
// own before-specs (a plan made elsewhere is not trusted to say it), or
// nil.
func dataLossRefusal(p *planner.Plan) error {
	loss := append(append([]string(nil), p.DataLoss...), planner.DataLoss(p, nil)...)
	if len(loss) == 0 {
		return nil
	}
	sort.Strings(loss)
	return &DataLossError{Addrs: slices.Compact(loss)}
}

// run is one Apply: the changes as a graph, and where they are.
type run struct {
	a          *Applier
	ctx, opCtx context.Context
	lk         *Lock
	p          *planner.Plan
	res        *Result
	order      []*node
	mu         sync.Mutex // guards progress output
	ready      readyQueue
	results    chan []finished
	running    int // calls running: a change alone, or a batch of them
	changes    int // changes running
	stopped    bool
	leaseLost  bool
	stopWhy    string
	started    int // changes started, numbering them
}

// graph makes a node of every change, with the resource it applies and
// the changes it waits for; a change whose resource is not the planned
// one fails.
func (r *run) graph(d *schema.Desired) {
	nodes := map[string]*node{}
	for i := range r.p.Changes {
		c := &r.p.Changes[i]
		n := &node{c: c}
		nodes[c.Addr] = n
		r.order = append(r.order, n)
	}
	for _, n := range r.order {
		if !hasNoDesired(n.c) {
			n.r = lookup(d, n.c.Addr)
			var err error
			if n.r != nil && n.c.Action != planner.Create {
				// What the plan kept of the service's by ignore_changes
				// (lifecycle.go).
				n.r, _, err = planner.IgnoreChanges(n.r, n.c.Before, nil)
			}
			if err != nil {
				r.fail(n, err)
			} else if n.r == nil {
				r.fail(n, errors.New("not in the desired state"))
			} else if n.r.Hash != n.c.AfterHash {
				r.fail(n, fmt.Errorf("the desired state has hash %s, the plan %s", n.r.Hash, n.c.AfterHash))
			}
		}
		for _, need := range n.c.Needs {
			if m := nodes[need]; m != nil {
				n.waiting++
				m.dependants = append(m.dependants, n)
			}
		}
	}
}

// fail records n's failure, or, when the service went away (not this
// change's failure), that the apply stops with n not started.
func (r *run) fail(n *node, err error) {
	if ServiceLost(err) && r.ctx.Err() == nil {
		if r.res.Lost == nil {
			r.res.Lost = err
		}
		return
	}
	n.state = 3
	r.res.Errors = append(r.res.Errors, &Error{Addr: n.c.Addr, Action: n.c.Action, Range: n.c.Range, Err: err})
}

// say prints a line of progress.
func (r *run) say(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	fmt.Fprintf(r.a.progress, format+"\n", args...)
}

// stop starts no more changes, saying why once.
func (r *run) stop(why string) {
	if r.stopped {
		return
	}
	r.stopped = true
	r.res.Interrupted = true
	if r.changes > 0 {
		r.say("Stopping: %s; waiting for the %d %s running to finish.", why, r.changes, plural(r.changes, "change", "changes"))
	} else {
		r.say("Stopping: %s.", why)
	}
}

// loop starts the ready changes, at most the parallelism of calls at
// once (those ready together in batches, batch.go), and takes their
// results until none is running.
func (r *run) loop() {
	r.results = make(chan []finished)
	for {
		if !r.stopped {
			if r.res.Lost != nil {
				r.stopWhy = "the service stopped answering"
				r.stop(r.stopWhy)
			} else if r.ctx.Err() != nil {
				r.stop("interrupted")
			} else if err := r.lk.Err(); err != nil {
				r.stop(err.Error())
			}
		}
		for !r.stopped && r.running < r.a.parallelism && len(r.ready) > 0 {
			if b := r.batch(r.ready.next()); len(b) > 1 {
				r.startBatch(b)
			} else {
				r.start(b[0])
			}
		}
		if r.running == 0 {
			return
		}
		var fs []finished
		select {
		case fs = <-r.results:
		case <-r.ctx.Done():
			r.stop("interrupted")
			fs = <-r.results
		}
		r.running--
		r.changes -= len(fs)
		for _, f := range fs {
			r.done(f)
		}
	}
}

// start runs the change n.
func (r *run) start(n *node) {
	r.begin(n)
	r.running++
	go func() {
		start := r.a.now()
		r.reportStart(n)
		stop := r.heartbeat([]*node{n}, start)
		out, err := r.a.do(r.opCtx, r.lk, r.p, n)
		stop()
		out.Addr, out.Action, out.Elapsed = n.c.Addr, n.c.Action, r.a.now().Sub(start)
		r.results <- []finished{{n: n, out: out, err: err}}
	}()
}

// begin marks n running and numbers it.
func (r *run) begin(n *node) {
	n.state = 1
	r.changes++
	r.started++
	n.seq = r.started
}

// reportStart says n started. Issue 12: [n/N], and a heartbeat for as
// long as it runs.
func (r *run) reportStart(n *node) {
	r.report(Event{Type: EventStart, Change: n.c, Seq: n.seq}, "%s: %s... [%d/%d]", n.c.Addr, progressVerb(n.c), n.seq, len(r.p.Changes))
}

// done takes the result of a change: done, failed, or unknown when the
// service stopped answering; the changes waiting only for it are ready.
func (r *run) done(f finished) {
	if ServiceLost(f.err) && r.ctx.Err() == nil {
		if r.res.Lost == nil {
			r.res.Lost = f.err
		}
		f.n.state = 5
		r.res.Unknown = append(r.res.Unknown, f.n.c.Addr)
		r.report(Event{Type: EventErrored, Change: f.n.c, Seq: f.n.seq, Elapsed: f.out.Elapsed, Err: f.err},
			"%s: no answer after %s: the service stopped answering", f.n.c.Addr, elapsed(f.out.Elapsed))
		return
	}
	if f.err != nil {
		r.report(Event{Type: EventErrored, Change: f.n.c, Seq: f.n.seq, Elapsed: f.out.Elapsed, Err: f.err},
			"%s: failed after %s: %v", f.n.c.Addr, elapsed(f.out.Elapsed), f.err)
		r.fail(f.n, f.err)
		r.a.skipDependants(f.n, r.say)
		// The service refuses every mutation without the lock's live
		// lease: nothing more can be done.
		if !r.leaseLost && errors.Is(f.err, service.ErrLeaseRefused) {
			r.leaseLost = true
			r.stop("the " + lockTaken)
		}
		return
	}
	f.n.state = 2
	r.res.Done = append(r.res.Done, f.out)
	r.report(Event{Type: EventComplete, Change: f.n.c, Seq: f.n.seq, Elapsed: f.out.Elapsed, Outcome: f.out},
		"%s: %s after %s%s", f.n.c.Addr, doneVerb(f.n.c.Action), elapsed(f.out.Elapsed), outcomeDetail(f.n.c, f.out))
	for _, m := range f.n.dependants {
		m.waiting--
		if m.waiting == 0 && m.state == 0 {
			r.ready.add(m)
		}
	}
}

// finish lists the changes not started, and why, and sorts the result.
func (r *run) finish() {
	res := r.res
	for _, n := range r.order {
		switch n.state {
		case 0:
			why := r.stopWhy
			if r.leaseLost {
				why = lockTaken
			}
			if !r.stopped {
				why = "its order depends on a cycle"
			}
			res.NotStarted = append(res.NotStarted, NotStarted{Addr: n.c.Addr, Because: why})
		case 4:
			res.NotStarted = append(res.NotStarted, NotStarted{Addr: n.c.Addr, Because: n.why})
		}
	}
	if r.leaseLost {
		n := len(r.order) - len(res.Done)
		r.say("The %s: %d %s not made.", lockTaken, n, plural(n, "change", "changes"))
	}
	sort.Slice(res.Done, func(i, j int) bool { return res.Done[i].Addr < res.Done[j].Addr })
	sort.Slice(res.Errors, func(i, j int) bool { return res.Errors[i].Addr < res.Errors[j].Addr })
	sort.Strings(res.Unknown)
}

// lockTaken is why an apply stops when the service refuses its lease.
const lockTaken = "project's lock was taken from this apply (released by force-unlock or expired)"

// opContext is the context calls run with: not cancelled with ctx at
// once, but a grace period after it, so calls in flight can finish.
func (a *Applier) opContext(ctx context.Context) (context.Context, context.CancelFunc) {
	opCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	stopWatch := context.AfterFunc(ctx, func() {
		t := time.NewTimer(a.grace)
		defer t.Stop()
		select {
		case <-t.C:
			cancel()
		case <-opCtx.Done():
		}
	})
	return opCtx, func() {
		stopWatch()
		cancel()
	}
}

// skipDependants marks every change that needs n, directly or not, as not
// started.
func (a *Applier) skipDependants(n *node, say func(string, ...any)) {
	for _, m := range n.dependants {
		if m.state != 0 {
			continue
		}
		m.state = 4
		m.why = fmt.Sprintf("needs %s, which failed", n.c.Addr)
		if n.state == 4 {
			m.why = fmt.Sprintf("needs %s, which was not started", n.c.Addr)
		}
		say("%s: not started: %s", m.c.Addr, m.why)
		a.skipDependants(m, say)
	}
}

// uploadBlobs finds the blobs the service lacks among those the plan's
// changes need, in one call per 100,000, and uploads them. A change whose
// blob cannot be read or uploaded fails. Uploads are mutations of the
// project, made under the apply's lock (lk).
func (a *Applier) uploadBlobs(opCtx, ctx context.Context, lk *Lock, p *planner.Plan, d *schema.Desired, order []*node, fail func(*node, error)) {
	all, users := neededBlobs(d, order, fail)
	if len(all) == 0 {
		return
	}
	failUsers := func(dg string, err error) {
		for _, n := range users[dg] {
			if n.state == 0 {
				fail(n, err)
			}
		}
	}
	missing := a.missingBlobs(opCtx, p.Project, sortedDigests(all), failUsers)
	if len(missing) > 0 {
		fmt.Fprintf(a.progress, "Uploading %d %s the service does not have...\n", len(missing), plural(len(missing), "file", "files"))
	}
	errs := a.upload(opCtx, ctx, service.BlobUpload{Project: p.Project, LeaseID: lk.LeaseID()}, missing, all)
	for i, dg := range missing {
		if errs[i] != nil {
			failUsers(dg, fmt.Errorf("upload %s: %w", all[dg].name, errs[i]))
		}
	}
}

// neededBlobs are the blobs the changes waiting in order need, by digest,
// and the changes that need each; a change whose blobs cannot be listed
// fails.
func neededBlobs(d *schema.Desired, order []*node, fail func(*node, error)) (map[string]*blob, map[string][]*node) {
	all := map[string]*blob{}
	users := map[string][]*node{}
	for _, n := range order {
		if n.r == nil || n.state != 0 || len(n.r.Inputs) == 0 || adoptsAsIs(n.c) {
			continue
		}
		bs, err := blobsOf(d, n.r)
		if err != nil {
			fail(n, err)
			continue
		}
		n.blobs = sortedDigests(bs)
		for dg, b := range bs {
			all[dg] = b
			users[dg] = append(users[dg], n)
		}
	}
	return all, users
}

// missingBlobs asks which of digests the service lacks, 100,000 a call;
// the changes needing a part whose call failed fail.
func (a *Applier) missingBlobs(opCtx context.Context, project string, digests []string, failUsers func(string, error)) []string {
	var missing []string
	for i := 0; i < len(digests); i += 100_000 {
		part := digests[i:min(i+100_000, len(digests))]
		var m []string
		err := a.call(opCtx, func(ctx context.Context) error {
			var err error
			m, err = a.svc.MissingBlobs(ctx, project, part)
			return err
		})
		if err != nil {
			for _, dg := range part {
				failUsers(dg, fmt.Errorf("find missing blobs: %w", err))
			}
			continue
		}
		missing = append(missing, m...)
	}
	return missing
}

// upload uploads the blobs missing into up's project under its lease, the
// parallelism at once, and returns their errors, in order; none starts
// once ctx is cancelled.
func (a *Applier) upload(opCtx, ctx context.Context, up service.BlobUpload, missing []string, all map[string]*blob) []error {
	errs := make([]error, len(missing))
	sem := make(chan struct{}, a.parallelism)
	var wg sync.WaitGroup
	for i, dg := range missing {
		b := all[dg]
		if b == nil {
			continue
		}
		if ctx.Err() != nil {
			errs[i] = ctx.Err()
			continue
		}
		sem <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			errs[i] = a.call(opCtx, func(ctx context.Context) error {
				r, err := b.open()
				if err != nil {
					return err
				}
				defer r.Close()
				up := up
				up.Digest, up.Size = dg, b.size
				_, err = a.svc.UploadBlob(ctx, up, r)
				return err
			})
		}()
	}
	wg.Wait()
	return errs
}

// do carries out one change.
func (a *Applier) do(ctx context.Context, lk *Lock, p *planner.Plan, n *node) (Outcome, error) {
	c := n.c
	key := func(op string) string { return opKey(p, c, op) }
	var out Outcome
	switch {
	case c.Action == planner.NoOp:
		return out, nil // moved already (moveFirst)
	case c.Action == planner.Forget:
		return out, a.forget(ctx, lk, p, n)
	case c.Action == planner.Import:
		return out, a.adopt(ctx, lk, p, n, &out)
	case c.Action == planner.Delete:
		err := a.call(ctx, func(ctx context.Context) error {
			_, err := a.svc.Delete(ctx, service.DeleteRequest{Project: p.Project, Address: c.Addr,
				ExpectedSerial: n.expectedSerial(p), IdempotencyKey: key("delete"), LeaseID: lk.LeaseID()})
			return err
		})
		if errors.Is(err, service.ErrNotFound) {
			err = nil // gone already: what the plan wants
		}
		return out, err
	case c.Kind == schema.KindImage:
		return out, a.call(ctx, func(ctx context.Context) error {
			_, err := a.svc.EnsureImage(ctx, imageRequest(lk, p, n))
			return err
		})
	case c.Kind == schema.KindSecret:
		// The value first: a secret is in the state only with its value.
		if err := a.storeSecretValue(ctx, lk, p, n, n.expectedSerial(p)); err != nil {
			return out, err
		}
		if c.Action != planner.Update || c.BeforeHash != c.AfterHash || (c.Lifecycle != nil && c.Lifecycle.Protection != "") {
			if err := a.applyResource(ctx, lk, p, n, nil, key("apply"), &out); err != nil {
				return out, err
			}
		}
		return out, nil
	}
	return out, a.applyResource(ctx, lk, p, n, n.blobs, key(applyOp(c)), &out)
}

// imageRequest is the EnsureImage of n's change, an image's.
func imageRequest(lk *Lock, p *planner.Plan, n *node) service.ImageRequest {
	c, r := n.c, n.r
	return service.ImageRequest{Project: p.Project, Address: c.Addr, Hash: r.Hash, Spec: r.Spec,
		DependsOn: r.DependsOn, Sensitive: r.Sensitive, ExpectedSerial: n.expectedSerial(p), IdempotencyKey: opKey(p, c, "image"), LeaseID: lk.LeaseID()}
}

// applyOp names the operation of a change's Apply in its idempotency key.
func applyOp(c *planner.Change) string {
	if forcedVersion(c) {
		return "apply-new-version"
	}
	return "apply"
}

// forcedVersion reports whether the change makes a new version even if
// one with its content exists (planner.VersionChange.Forced): the Apply
// request asks the service for one (NewVersion).
func forcedVersion(c *planner.Change) bool {
	return c.Version != nil && c.Version.Forced && c.Action != planner.Create
}

// storeSecretValue stores the local value of the secret of n's change when
// the change sets or changes it (or creates the secret), expecting serial.
func (a *Applier) storeSecretValue(ctx context.Context, lk *Lock, p *planner.Plan, n *node, serial int64) error {
	c, r := n.c, n.r
	if c.SecretValue == "" && c.Action != planner.Create {
		return nil
	}
	spec, err := schema.DecodeSecretSpec(r.Spec)
	if err != nil {
		return err
	}
	if a.secrets == nil {
		if spec.Managed() {
			return errors.New("no local secret values are read here")
		}
		return nil
	}
	value, _, err := localValue(a.secrets, r, spec)
	switch {
	case errors.Is(err, ErrNotLocal):
		return nil
	case err != nil:
		return err
	}
	err = a.call(ctx, func(ctx context.Context) error {
		_, err := a.svc.PutSecretValue(ctx, service.SecretRequest{Project: p.Project, Address: c.Addr, Value: value,
			ExpectedSerial: serial, IdempotencyKey: opKey(p, c, "value"), LeaseID: lk.LeaseID()})
		return err
	})
	if err != nil {
		return fmt.Errorf("store its value: %w", err)
	}
	return nil
}

// opKey is the idempotency key of one operation of a change.
func opKey(p *planner.Plan, c *planner.Change, op string) string {
	h := sha256.Sum256([]byte(strings.Join([]string{p.Project, fmt.Sprint(p.Serial), op, c.Addr, c.Action.String(), c.AfterHash}, "\x00")))
	return "cc-" + hex.EncodeToString(h[:16])
}

func (a *Applier) applyResource(ctx context.Context, lk *Lock, p *planner.Plan, n *node, blobs []string, key string, out *Outcome) error {
	return a.call(ctx, func(ctx context.Context) error {
		res, err := a.svc.Apply(ctx, applyRequest(lk, p, n, blobs, key))
		if err != nil {
			return err
		}
		out.applied(res)
		return nil
	})
}

// applyRequest is the Apply of n's change with blobs and key.
func applyRequest(lk *Lock, p *planner.Plan, n *node, blobs []string, key string) service.ApplyRequest {
	c, r := n.c, n.r
	req := service.ApplyRequest{Project: p.Project, Address: c.Addr, Action: serviceAction(c.Action), Spec: r.Spec, Hash: r.Hash,
		DependsOn: r.DependsOn, Blobs: blobs, Sensitive: r.Sensitive, NewVersion: forcedVersion(c), DataPins: planner.DataPinsOf(p, r),
		ExpectedSerial: n.expectedSerial(p), IdempotencyKey: key, LeaseID: lk.LeaseID()}
	lifecycleRequest(&req, c, r)
	return req
}

// applied records in o what an Apply did.
func (o *Outcome) applied(res *service.ApplyResult) {
	o.Version, o.Reused, o.CreatedBeforeDestroyed = res.Version, res.Reused, res.CreatedBeforeDestroy
}

// call runs f, again with the same idempotency key when the service was
// unavailable.
func (a *Applier) call(ctx context.Context, f func(context.Context) error) error {
	for i := 0; ; i++ {
		err := f(ctx)
		if err == nil || i >= a.retries || !errors.Is(err, service.ErrUnavailable) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(time.Duration(100<<i) * time.Millisecond):
		}
	}
}

func lookup(d *schema.Desired, addr string) *schema.Resource {
	if r := d.Lookup(addr); r != nil {
		return r
	}
	k, name, ok := schema.ParseAddress(addr) // module.api.image.base: module.api.base (issue 12: modules)
	if !ok || k != schema.KindImage {
		return nil
	}
	for i := range d.Resources {
		r := &d.Resources[i]
		for _, al := range r.Aliases {
			if al == name || al == addr {
				return r
			}
		}
	}
	return nil
}

func progressVerb(c *planner.Change) string {
	v := verbing(c.Action)
	if c.Symbol() == "+/-" {
		v += " (create before destroy)"
	}
	if c.Version != nil {
		noun := c.Kind.VersionNoun()
		if c.Version.Action == "reuse" {
			return fmt.Sprintf("%s (reusing %s %d)", v, noun, c.Version.Number)
		}
		return v + " (new " + noun + ")"
	}
	return v
}

func verbing(a planner.Action) string {
	return map[planner.Action]string{planner.Create: "creating", planner.Update: "updating", planner.Replace: "replacing", planner.Delete: "deleting",
		planner.Forget: "forgetting", planner.Import: "importing"}[a]
}

func doneVerb(a planner.Action) string {
	return map[planner.Action]string{planner.Create: "created", planner.Update: "updated", planner.Replace: "replaced", planner.Delete: "deleted",
		planner.Forget: "forgotten", planner.Import: "imported"}[a]
}

func outcomeDetail(c *planner.Change, o Outcome) string {
	switch {
	case o.Version != 0 && o.Reused:
		return fmt.Sprintf(": %s %d (reused)", c.Kind.VersionNoun(), o.Version)
	case o.Version != 0:
		return fmt.Sprintf(": %s %d", c.Kind.VersionNoun(), o.Version)
	case c.SecretValue != "":
		return ": new value stored"
	case o.CreatedBeforeDestroyed:
		return ": the replacement was up before the old one was removed"
	}
	return ""
}

// elapsed rounds a duration for people: milliseconds under a second,
// tenths of a second above.
func elapsed(d time.Duration) string {
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(100 * time.Millisecond).String()
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
