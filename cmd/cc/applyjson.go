package main

import (
	"flag"
	"fmt"
	"io"
	"time"

	"cc.dev/cc/applier"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// startJSON checks --json of apply and destroy, and starts its event
// stream with the version event. Without a PLANFILE it needs
// --auto-approve: nothing can be asked between events. A return code
// >= 0 ends the command.
func (e *env) startJSON(c *command, fs *flag.FlagSet, af *applyFlags, destroy bool) int {
	if !af.json {
		return -1
	}
	planFile := !destroy && fs.NArg() > 0 && isPlanFile(fs.Arg(0))
	if !planFile && !af.autoApprove {
		return e.usageError(c, "--json needs --auto-approve (or a PLANFILE saved by cc plan --out): nothing is asked for between events")
	}
	if af.refreshOnly {
		return e.usageError(c, "--json and --refresh-only: a refresh-only apply has no --json events; use cc plan --refresh-only --json")
	}
	e.ui = newJSONUI(e.stdout)
	e.ui.version()
	return -1
}

// showPlan shows the plan apply or destroy carries out: its text, or
// with --json its planned_change and change_summary events.
func (e *env) showPlan(p *planner.Plan) {
	if e.ui != nil {
		e.ui.plan(p)
		e.ui.planned = true
		return
	}
	planner.WriteText(e.stdout, p, planner.TextOptions{Color: e.color(e.stdout)})
}

// applyEvents is the applier option of apply's progress with --json: no
// progress text, the applier's events instead. Without --json it changes
// nothing.
func (e *env) applyEvents() applier.Option {
	return func(a *applier.Applier) error {
		if e.ui == nil {
			return nil
		}
		for _, o := range []applier.Option{applier.WithProgress(io.Discard), applier.WithEvents(e.ui.hook)} {
			if err := o(a); err != nil {
				return err
			}
		}
		return nil
	}
}

// carryOutJSON is carryOut with --json: the changes' events, a diagnostic
// for each error and each change not started, and the apply's
// change_summary.
func (e *env) carryOutJSON(c *command, cn *conn, a *applier.Applier, lk *applier.Lock, p *planner.Plan, d *schema.Desired) int {
	u := e.ui
	if !u.planned {
		// A saved plan: its changes, as apply does them.
		u.plan(p)
	}
	start := time.Now()
	res := e.applyShown(a, lk, p, d)
	if res.Refused != nil {
		return e.fail(c, res.Refused)
	}
	for _, err := range res.Errors {
		u.diagnostic(err)
	}
	for _, ns := range res.NotStarted {
		u.diagnostic(fmt.Errorf("not started: %s: %s", ns.Addr, ns.Because))
	}
	if res.Lost != nil {
		u.diagnostic(fmt.Errorf("apply stopped: %s", cn.explain(res.Lost)))
	}
	cr, up, rp, dl, _, _ := res.Counts()
	mv, im, fg := res.LifecycleCounts(p)
	summary := applySummary(res, p)
	ok := len(res.Errors) == 0 && len(res.NotStarted) == 0 && res.Lost == nil
	msg := fmt.Sprintf("Apply complete: %s (%s).", summary, time.Since(start).Round(time.Millisecond))
	if !ok {
		msg = fmt.Sprintf("Apply failed: %d %s, %d not started; done: %s.", len(res.Errors), plural(len(res.Errors), "error", "errors"), len(res.NotStarted), summary)
	}
	u.summary(msg, "apply", cr, up, rp, dl, mv, im, fg, nil)
	if !ok {
		return exitError
	}
	u.outputs(res.Outputs)
	return exitOK
}
