package applier

import (
	"context"
	"errors"
	"fmt"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// Issue 10: moves, forgetting, adoption. The plan's moves are done first,
// one at a time, before any other change (each MoveResource renames the
// resource and what refers to it in one transaction); a move that fails
// fails the change at its new address and what needs it. The changes of
// the rows a move touched then expect the serial the move made, the
// others still the plan's. Forgets and imports are changes of the walk:
// ForgetResource, and AdoptResource followed, when the configuration
// differs from what the service has, by the update that makes it so.

// moveFirst carries out the plan's moves. A change that only moves its
// resource (NoOp) is then done.
func (r *run) moveFirst() {
	byAddr := map[string]*node{}
	for _, n := range r.order {
		byAddr[n.c.Addr] = n
	}
	for _, n := range r.order {
		c := n.c
		if c.MovedFrom == "" || n.state != 0 || r.res.Lost != nil {
			continue
		}
		start := r.a.now()
		r.say("%s: moving from %s...", c.Addr, c.MovedFrom)
		var res *service.MoveResult
		err := r.a.call(r.opCtx, func(ctx context.Context) error {
			var err error
			res, err = r.a.svc.Move(ctx, service.MoveRequest{Project: r.p.Project, From: c.MovedFrom, To: c.Addr, PreventDestroyAt: movedProtectionAt(c),
				ExpectedSerial: r.p.Serial, IdempotencyKey: opKey(r.p, c, "move"), LeaseID: r.lk.LeaseID()})
			return err
		})
		if err != nil {
			r.say("%s: failed to move from %s: %v", c.Addr, c.MovedFrom, err)
			r.fail(n, fmt.Errorf("move from %s: %w", c.MovedFrom, err))
			if n.state == 3 {
				r.a.skipDependants(n, r.say)
			}
			continue
		}
		n.expected = res.Serial
		for _, d := range res.Dependants {
			if m := byAddr[d]; m != nil {
				m.expected = res.Serial
			}
		}
		r.say("%s: moved from %s after %s", c.Addr, c.MovedFrom, elapsed(r.a.now().Sub(start)))
		if c.Action == planner.NoOp {
			n.state = 2
			r.res.Done = append(r.res.Done, Outcome{Addr: c.Addr, Action: c.Action, Elapsed: r.a.now().Sub(start)})
			for _, m := range n.dependants {
				m.waiting--
			}
		}
	}
}

// movedProtectionAt is where the plan has the protection of a moved
// resource declared, for the move to record it ("" when not protected).
func movedProtectionAt(c *planner.Change) string {
	if c.Lifecycle == nil || !c.Lifecycle.PreventDestroy {
		return ""
	}
	return c.Lifecycle.PreventDestroyAt
}

// forget hands the resource of a Forget change to the unowned resources.
func (a *Applier) forget(ctx context.Context, lk *Lock, p *planner.Plan, n *node) error {
	err := a.call(ctx, func(ctx context.Context) error {
		_, err := a.svc.Forget(ctx, service.TransferRequest{Project: p.Project, Address: n.c.Addr,
			ExpectedSerial: n.expectedSerial(p), IdempotencyKey: opKey(p, n.c, "forget"), LeaseID: lk.LeaseID()})
		return err
	})
	if errors.Is(err, service.ErrNotFound) {
		return nil // not the project's any more: what the plan wants
	}
	return err
}

// adopt adopts the unowned resource of an Import change, then, when the
// configuration differs from it or protects it (lifecycle.prevent_destroy,
// which the service records with an apply), updates (or replaces) it to
// match, with its lifecycle.
func (a *Applier) adopt(ctx context.Context, lk *Lock, p *planner.Plan, n *node, out *Outcome) error {
	c := n.c
	var res *service.TransferResult
	err := a.call(ctx, func(ctx context.Context) error {
		var err error
		res, err = a.svc.Adopt(ctx, service.TransferRequest{Project: p.Project, Address: c.Addr, ID: c.ImportID, ExpectedHash: c.BeforeHash,
			ExpectedSerial: p.Serial, IdempotencyKey: opKey(p, c, "adopt"), LeaseID: lk.LeaseID()})
		return err
	})
	if err != nil {
		return fmt.Errorf("adopt the unowned %s %q: %w", c.Kind, c.ImportID, err)
	}
	out.Version = res.Resource.Version
	out.Reused = true
	if n.r == nil || c.Kind == schema.KindImage || (c.BeforeHash == c.AfterHash && !n.r.Lifecycle.Protected()) {
		return nil
	}
	action := service.ActionUpdate
	if len(c.ReplaceBecause) > 0 {
		action = service.ActionReplace
	}
	r := n.r
	req := service.ApplyRequest{Project: p.Project, Address: c.Addr, Action: action, Spec: r.Spec, Hash: r.Hash,
		DependsOn: r.DependsOn, Blobs: n.blobs, Sensitive: r.Sensitive,
		ExpectedSerial: res.Serial, IdempotencyKey: opKey(p, c, "apply"), LeaseID: lk.LeaseID()}
	lifecycleRequest(&req, c, r)
	return a.call(ctx, func(ctx context.Context) error {
		ar, err := a.svc.Apply(ctx, req)
		if err != nil {
			return fmt.Errorf("update it to the configuration: %w", err)
		}
		out.Version, out.Reused = ar.Version, ar.Reused
		return nil
	})
}

// expectedSerial is the serial a change of n expects: the one a move made,
// when a move touched its row, else the plan's.
func (n *node) expectedSerial(p *planner.Plan) int64 {
	if n.expected != 0 {
		return n.expected
	}
	return p.Serial
}

// hasNoDesired reports whether the change applies no desired resource:
// a delete, a forget, an import of a resource not declared yet.
func hasNoDesired(c *planner.Change) bool {
	return c.Action == planner.Delete || c.Action == planner.Forget || (c.Action == planner.Import && c.After == nil)
}

// LifecycleCounts counts the moves, imports and forgets done.
func (r *Result) LifecycleCounts(p *planner.Plan) (moved, imported, forgotten int) {
	done := map[string]bool{}
	for _, o := range r.Done {
		done[o.Addr] = true
		switch o.Action {
		case planner.Import:
			imported++
		case planner.Forget:
			forgotten++
		}
	}
	for _, c := range p.Changes {
		if c.MovedFrom != "" && done[c.Addr] {
			moved++
		}
	}
	return
}

// unownedOf are the addresses of the unowned resources d's imports adopt,
// read with the project's state in its one GetState call.
func unownedOf(d *schema.Desired) []string {
	var out []string
	for _, im := range d.Imports {
		out = append(out, im.Unowned())
	}
	return out
}

// adoptsAsIs reports whether c imports a resource the configuration does
// not change: its content comes with it, and nothing is uploaded.
func adoptsAsIs(c *planner.Change) bool {
	return c.Action == planner.Import && c.BeforeHash == c.AfterHash
}
