package service

import (
	"context"
	"fmt"
	"maps"
	"runtime/debug"
	"sort"
	"sync"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// committer runs mutations in group commits (issue 13: one fsync per
// mutation made `cc server --sync full` four times slower than the
// embedded default). Mutations that wait for the single writer while
// another batch commits are run, in the order they came, in ONE
// transaction, each inside its own SAVEPOINT: one that fails rolls back
// only itself and gets the error it gets alone. The transaction commits
// once (one fsync with SyncFull), and only then is any of them answered,
// so an acknowledged mutation is on disk as much as a lone one is.
//
// The first mutation to find no batch running leads: it runs the batch
// of everything queued, then hands the lead to the first mutation queued
// meanwhile, and returns. A lone mutation is a batch of one, at once.
type committer struct {
	s       *Server
	mu      sync.Mutex
	queue   []*pending
	leading bool
	// onCommit, when set (in tests), is called with the number of
	// mutations each committed transaction held; beforeBatch, before each
	// batch starts, with its size.
	onCommit, beforeBatch func(n int)
	// afterMutation, when set (in tests), is called after each mutation
	// of a batch ran, with its place in the batch.
	afterMutation func(i int)
}

// pending is a mutation waiting in a batch.
type pending struct {
	ctx context.Context
	// run runs the mutation in tx; it may be run again in a new batch
	// (when another one's lease was lost) and starts afresh each time.
	run func(tx *stmtTx) error
	// project and leaseID name the lease the mutation needs; when run
	// sets checked (it checked the lease and wrote), the lease is checked
	// again just before the commit. A replayed idempotency key writes
	// nothing and needs no lease, as alone.
	project, leaseID string
	// key is the call's idempotency key ("": none), address the
	// resource it writes ("": none) and blobs the blob digests it needs,
	// which a batch looks up for all its calls at once (prefetch).
	key, address string
	blobs        []string
	checked      bool
	err          error
	wake         chan bool // true: lead the next batch
}

// do runs p in a batch and returns its error once the batch committed.
func (c *committer) do(p *pending) error {
	c.doAll([]*pending{p})
	return p.err
}

// doAll runs ps, in their order, in one batch (ApplyBatch), and returns
// once it committed, each with its error in err. They are queued at
// once, so no other mutation comes between them and one batch takes
// them all: they are the first of the queue when their caller leads.
func (c *committer) doAll(ps []*pending) {
	if len(ps) == 0 {
		return
	}
	for _, p := range ps {
		p.wake = make(chan bool, 1)
	}
	c.mu.Lock()
	c.queue = append(c.queue, ps...)
	lead := !c.leading
	c.leading = true
	c.mu.Unlock()
	if !lead && !<-ps[0].wake {
		for _, p := range ps[1:] {
			<-p.wake
		}
		return
	}
	c.mu.Lock()
	batch := c.queue
	c.queue = nil
	c.mu.Unlock()
	c.runBatch(batch)
	c.mu.Lock()
	if len(c.queue) > 0 {
		c.queue[0].wake <- true
	} else {
		c.leading = false
	}
	c.mu.Unlock()
	for _, q := range batch[len(ps):] {
		q.wake <- false
	}
}

// runBatch runs batch until each of its mutations committed or failed.
func (c *committer) runBatch(batch []*pending) {
	c.s.st.stmts.prepareWanted(context.Background())
	for len(batch) > 0 {
		if c.beforeBatch != nil {
			c.beforeBatch(len(batch))
		}
		batch = c.runOnce(batch)
	}
}

// runOnce runs batch in one transaction and returns those of its
// mutations to run again: when the lease of some was lost before the
// commit, the transaction is rolled back, those are refused, and the
// others run again in a new one.
func (c *committer) runOnce(batch []*pending) (again []*pending) {
	ctx := context.Background()
	sqlTx, err := c.s.st.w.BeginTx(ctx, nil)
	if err != nil {
		failAll(batch, dbError(err))
		return nil
	}
	defer sqlTx.Rollback()
	tx := newStmtTx(sqlTx, c.s.st.stmts)
	if err := c.s.checkCurrent(ctx, tx); err != nil { // rotatekeys.go
		failAll(batch, err)
		return nil
	}
	if err := prefetch(ctx, tx, batch); err != nil {
		failAll(batch, err) // a status already (selectIn)
		return nil
	}
	var ran []*pending
	for i, p := range batch {
		if err := p.ctx.Err(); err != nil {
			p.err = dbError(err)
			continue
		}
		var broken error
		p.err, broken = runSaved(ctx, tx, func(tx *stmtTx) error { return c.runGuarded(p, tx) })
		if broken != nil {
			failAll(ran, dbError(broken))
			failAll(batch[i:], dbError(broken))
			return nil
		}
		if p.err == nil {
			ran = append(ran, p)
		}
		if c.afterMutation != nil {
			c.afterMutation(i)
		}
	}
	if lost := c.lostLeases(ctx, tx, ran); len(lost) > 0 {
		for _, p := range ran {
			if lost[p] == nil {
				again = append(again, p)
			} else {
				p.err = lost[p]
			}
		}
		return again
	}
	if err := tx.flushSerials(ctx); err != nil {
		failAll(ran, dbError(err))
		return nil
	}
	if err := sqlTx.Commit(); err != nil {
		failAll(ran, dbError(err))
		return nil
	}
	if c.onCommit != nil {
		c.onCommit(len(ran))
	}
	return nil
}

// runGuarded runs p in tx, turning a panic into an internal error as
// guard does for a call: the batch, and the mutations waiting on it, go
// on.
func (c *committer) runGuarded(p *pending, tx *stmtTx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			c.s.log.Error("panic", "panic", logValue(fmt.Sprint(r)), "stack", string(debug.Stack()))
			err = status.Error(codes.Internal, "internal error")
		}
	}()
	return p.run(tx)
}

// runSaved runs run inside a savepoint, rolled back when it fails: err is
// what run returned; broken is a failure of the savepoint itself, which
// leaves the transaction unusable.
func runSaved(ctx context.Context, tx *stmtTx, run func(tx *stmtTx) error) (err, broken error) {
	if _, err := tx.ExecContext(ctx, "SAVEPOINT m"); err != nil {
		return nil, err
	}
	kept := maps.Clone(tx.serials)
	if err = run(tx); err != nil {
		tx.facts.forgetAll() // what it wrote is undone
		tx.serials = kept
		if _, e := tx.ExecContext(ctx, "ROLLBACK TO m"); e != nil {
			return err, e
		}
	}
	if _, e := tx.ExecContext(ctx, "RELEASE m"); e != nil {
		return err, e
	}
	return err, nil
}

// lostLeases checks again, with the clock read now, the lease of each
// mutation of ran that needed one: it maps those whose lease is no longer
// live to the refusal they get. Each distinct lease is looked up once.
func (c *committer) lostLeases(ctx context.Context, tx *stmtTx, ran []*pending) map[*pending]error {
	now := c.s.now().UnixNano()
	type lease struct{ project, id string }
	seen := map[lease]error{}
	var lost map[*pending]error
	for _, p := range ran {
		if !p.checked {
			continue
		}
		l := lease{p.project, p.leaseID}
		err, ok := seen[l]
		if !ok {
			err = checkLease(ctx, tx, p.project, p.leaseID, now)
			seen[l] = err
		}
		if err != nil {
			if lost == nil {
				lost = map[*pending]error{}
			}
			lost[p] = err
		}
	}
	return lost
}

func failAll(batch []*pending, err error) {
	for _, p := range batch {
		p.err = err
	}
}

// queued is how many mutations wait for the running batch (for tests).
func (c *committer) queued() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.queue)
}

// prefetch looks up, for the calls of a batch of more than one, the
// idempotency keys, resources and blobs they name, in a few queries for
// all of them rather than one query each as they run; its error is a
// status.
func prefetch(ctx context.Context, tx *stmtTx, batch []*pending) error {
	if len(batch) < 2 {
		return nil
	}
	type want struct{ table, project string }
	keys := map[want][]string{}
	for _, p := range batch {
		if p.key != "" {
			w := want{"idempotency", p.project}
			keys[w] = append(keys[w], p.key)
		}
		if p.address != "" {
			w := want{"resources", p.project}
			keys[w] = append(keys[w], p.address)
		}
		for _, d := range p.blobs {
			w := want{"blobs", p.project}
			keys[w] = append(keys[w], d)
		}
	}
	for w, ks := range keys {
		sort.Strings(ks)
		if err := tx.prefetch(ctx, w.table, w.project, compactStrings(ks)); err != nil {
			return err
		}
	}
	return nil
}
