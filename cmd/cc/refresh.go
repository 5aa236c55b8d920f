package main

import (
	"fmt"

	"cc.dev/cc/applier"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// applyRefreshOnly carries out cc apply --refresh-only (issue 10, drift):
// it shows what changed outside cc, asks as apply does, and, under the
// project's lock, records what the service has as the project's state.
// Nothing on the platform changes.
func (e *env) applyRefreshOnly(c *command, cn *conn, a *applier.Applier, d *schema.Desired, opts planner.Options, p *planner.Plan, af *applyFlags) int {
	show := func(p *planner.Plan) { planner.WriteText(e.stdout, p, planner.TextOptions{Color: e.color(e.stdout)}) }
	if !p.Drifted() {
		show(p)
		return exitOK
	}
	if !af.autoApprove && !isTerminal(e.stdin) {
		show(p)
		fmt.Fprintf(e.stderr, "cc %s: not applied: there is no terminal to ask for approval on; pass --auto-approve\n", c.name)
		return exitError
	}
	lk, err := a.Lock(e.ctx, d.Project)
	if err != nil {
		return e.fail(c, cn.explain(err))
	}
	defer e.release(c, cn, lk)
	if lk.Serial() != p.Serial {
		// Something changed between the plan and the lock: plan again.
		if p, _, err = a.Plan(e.ctx, d, opts); err != nil {
			return e.fail(c, cn.explain(err))
		}
		if !p.Drifted() {
			show(p)
			return exitOK
		}
	}
	show(p)
	if !af.autoApprove {
		fmt.Fprintf(e.stdout, "\nRecording these changes as project %s's state.", d.Project)
		if !e.confirm(c, d.Project, false, nil) {
			fmt.Fprintf(e.stdout, "Not applied.\n")
			return exitError
		}
	}
	serial, accepted, err := cn.client.AcceptDrift(e.ctx, service.AcceptDriftRequest{Project: d.Project, ExpectedSerial: p.Serial, LeaseID: lk.LeaseID()})
	if err != nil {
		return e.fail(c, cn.explain(err))
	}
	fmt.Fprintf(e.stdout, "\nRefresh complete: %d %s outside cc recorded as the state of project %s (serial %d). Nothing on the platform changed.\n",
		len(accepted), plural(len(accepted), "change", "changes"), d.Project, serial)
	return exitOK
}
