package applier

import (
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// lifecycleRequest adds to an apply request what the resource's lifecycle
// asks of the service (issue 10): its protection, kept with it (the
// desired resource says whether; the plan, where it is declared), and a
// replacement brought up before the old resource stops when both the plan
// and the desired resource say so.
func lifecycleRequest(req *service.ApplyRequest, c *planner.Change, r *schema.Resource) {
	lc := r.Lifecycle
	if lc.Protected() {
		req.PreventDestroy = true
		if c.Lifecycle != nil {
			req.PreventDestroyAt = c.Lifecycle.PreventDestroyAt
		}
	}
	if c.Action == planner.Replace && lc != nil && lc.CreateBeforeDestroy && c.Lifecycle != nil && c.Lifecycle.CreateBeforeDestroy {
		req.CreateBeforeDestroy = true
	}
}
