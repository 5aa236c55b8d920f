package applier

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// Batches (issue 13): changes ready at the same time that are each one
// EnsureImage or Apply go to the service in one ApplyBatch call, which
// commits them together and answers each as alone, so 10,000 creates are
// 100 calls and few transactions rather than 10,000 of each. Every change
// keeps its own idempotency key, events and outcome; a batch counts as
// one call against the parallelism.

// BatchService is the optional part of a Service that takes batches;
// *service.Client has it. A Service without it, or a server that answers
// Unimplemented, gets every change as its own call.
type BatchService interface {
	ApplyBatch(ctx context.Context, project string, calls []service.BatchCall) ([]service.BatchResult, error)
}

var _ BatchService = (*service.Client)(nil)

// DefaultBatchSize is how many changes one ApplyBatch call carries at
// most; maxBatchSpecBytes bounds the specs it carries (a change with a
// larger spec goes alone), well under the service's 20 MiB request.
const (
	DefaultBatchSize  = 100
	maxBatchSpecBytes = 4 << 20
)

// WithBatchSize sets how many changes ready together go in one call at
// most (default DefaultBatchSize); 1 sends every change alone.
func WithBatchSize(n int) Option {
	return func(a *Applier) error {
		if n < 1 || n > service.MaxBatchCalls {
			return fmt.Errorf("batch size %d: want 1 to %d", n, service.MaxBatchCalls)
		}
		a.batchSize = n
		return nil
	}
}

// batcher is the Applier's BatchService, or nil when it sends no batch.
func (a *Applier) batcher() BatchService {
	if a.batchSize < 2 || a.noBatch.Load() {
		return nil
	}
	b, _ := a.svc.(BatchService)
	return b
}

// batch is n and, when n can go in a batch, the changes ready after it
// that can too, taken from the ready queue in its order: at most the
// batch size, and specs of at most maxBatchSpecBytes together.
func (r *run) batch(n *node) []*node {
	b := []*node{n}
	if r.a.batcher() == nil || !batchable(n) {
		return b
	}
	bytes := len(n.r.Spec)
	for len(b) < r.a.batchSize && len(r.ready) > 0 {
		m := r.ready[0] // the top of the heap: the next by address
		if !batchable(m) || bytes+len(m.r.Spec) > maxBatchSpecBytes {
			break
		}
		bytes += len(m.r.Spec)
		b = append(b, r.ready.next())
	}
	return b
}

// batchable reports whether n's change is one EnsureImage or Apply call
// (Applier.do): an image, or a resource but a secret, created, updated or
// replaced.
func batchable(n *node) bool {
	switch n.c.Action {
	case planner.Create, planner.Update, planner.Replace:
		return n.r != nil && n.c.Kind != schema.KindSecret
	}
	return false
}

// startBatch runs the changes ns in one call.
func (r *run) startBatch(ns []*node) {
	for _, n := range ns {
		r.begin(n)
	}
	r.running++
	go func() {
		start := r.a.now()
		for _, n := range ns {
			r.reportStart(n)
		}
		stop := r.heartbeat(ns, start)
		outs, errs := r.a.doBatch(r.opCtx, r.lk, r.p, ns)
		stop()
		el := r.a.now().Sub(start)
		fs := make([]finished, len(ns))
		for i, n := range ns {
			outs[i].Addr, outs[i].Action, outs[i].Elapsed = n.c.Addr, n.c.Action, el
			fs[i] = finished{n: n, out: outs[i], err: errs[i]}
		}
		r.results <- fs
	}()
}

// doBatch carries out the changes ns in one ApplyBatch call, retried as
// one when the service was unavailable. A change the service answered
// Unavailable for alone is carried out again alone (Applier.do, with its
// retries); a service without ApplyBatch gets each alone, and no more
// batches.
func (a *Applier) doBatch(ctx context.Context, lk *Lock, p *planner.Plan, ns []*node) ([]Outcome, []error) {
	outs, errs := make([]Outcome, len(ns)), make([]error, len(ns))
	calls := make([]service.BatchCall, len(ns))
	for i, n := range ns {
		if n.c.Kind == schema.KindImage {
			req := imageRequest(lk, p, n)
			calls[i].Image = &req
		} else {
			req := applyRequest(lk, p, n, n.blobs, opKey(p, n.c, applyOp(n.c)))
			calls[i].Apply = &req
		}
	}
	var res []service.BatchResult
	b := a.batcher()
	err := a.call(ctx, func(ctx context.Context) error {
		if b == nil { // another batch found the service without ApplyBatch
			return &service.Error{Code: codes.Unimplemented}
		}
		var err error
		res, err = b.ApplyBatch(ctx, p.Project, calls)
		return err
	})
	var se *service.Error
	if errors.As(err, &se) && se.Code == codes.Unimplemented {
		a.noBatch.Store(true)
	}
	for i, n := range ns {
		switch {
		case a.noBatch.Load():
			outs[i], errs[i] = a.do(ctx, lk, p, n)
		case err != nil:
			errs[i] = err
		case errors.Is(res[i].Err, service.ErrUnavailable):
			outs[i], errs[i] = a.do(ctx, lk, p, n)
		case res[i].Err != nil:
			errs[i] = res[i].Err
		case res[i].Apply != nil:
			outs[i].applied(res[i].Apply)
		}
	}
	return outs, errs
}
