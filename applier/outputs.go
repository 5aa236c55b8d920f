package applier

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// storeOutputs stores the configuration's outputs (none for a destroy)
// with the state at the end of a successful apply whose plan changes them
// (issue 12: outputs), under the apply's lease; res.Outputs are then the
// project's outputs. A failed apply stores none and leaves res.Outputs
// nil.
func (a *Applier) storeOutputs(ctx context.Context, lk *Lock, p *planner.Plan, d *schema.Desired, res *Result) {
	if len(res.Errors) > 0 || len(res.NotStarted) > 0 || len(res.Unknown) > 0 || res.Lost != nil || res.Interrupted {
		return
	}
	var outs []schema.Output
	if !p.Destroy && d != nil {
		outs = d.Outputs
	}
	if len(p.Outputs) == 0 {
		res.Outputs = outs
		return
	}
	b, _ := json.Marshal(outs)
	h := sha256.Sum256(append([]byte(fmt.Sprintf("%s\x00%d\x00outputs\x00", p.Project, p.Serial)), b...))
	err := a.call(ctx, func(ctx context.Context) error {
		_, err := a.svc.SetOutputs(ctx, service.SetOutputsRequest{Project: p.Project, Outputs: outs,
			IdempotencyKey: "cc-" + hex.EncodeToString(h[:16]), LeaseID: lk.LeaseID()})
		return err
	})
	if err != nil {
		res.Errors = append(res.Errors, &Error{Addr: "outputs", Action: planner.Update, Err: fmt.Errorf("store the outputs: %w", err)})
		return
	}
	res.Outputs = outs
}
