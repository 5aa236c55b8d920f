package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

func init() {
	register(&command{
		name:    "apply",
		args:    "[flags] [PATH | PLANFILE]",
		summary: "make the platform match the configuration",
		help: `Apply plans the project at PATH (as cc plan does), shows the plan and asks
before changing anything; --auto-approve applies without asking, and
without a terminal to ask on, apply refuses unless given --auto-approve.
Given a PLANFILE saved by cc plan --out, it carries out exactly that plan
without asking, and refuses when the project's state moved since the plan
was made, naming what changed.

Apply holds the project's lock for the whole run (waiting up to
--lock-timeout for another holder), uploads only the files the service
lacks, and makes the changes in dependency order, --parallelism at a time,
printing each as it starts and ends. When a change fails, the changes
already running finish, nothing that needs the failed one starts, and every
error is printed with the resource's address and configuration position;
the exit status is then 1. Ctrl-C stops starting changes, lets those
running finish, and releases the lock. Running apply again carries on
where it stopped: what was done is not done twice.

Secret values are read now, from the environment or env files, and sent
only to the service; they are never printed or saved. An unchanged
project costs one read of its state and nothing else.`,
		run: runApply,
	})
	register(&command{
		name:    "destroy",
		args:    "[flags] [PATH]",
		summary: "delete everything a project has on the platform",
		help: `Destroy plans the deletion of every resource the project at PATH has on its
service (only that project's), shows it and asks, as cc apply does
(--auto-approve applies without asking). Deletes go in reverse dependency
order.`,
		run: runDestroy,
	})
}

// applyFlags are the flags of apply and destroy.
type applyFlags struct {
	planFlags
	autoApprove bool
	parallelism int
	lockTimeout time.Duration
}

func (f *applyFlags) register(fs *flag.FlagSet) {
	f.planFlags.register(fs)
	fs.BoolVar(&f.autoApprove, "auto-approve", false, "apply without showing the plan and asking")
	fs.IntVar(&f.parallelism, "parallelism", 10, "make at most `N` changes at once")
	fs.DurationVar(&f.lockTimeout, "lock-timeout", 0, "wait up to `DURATION` for the project's lock when another apply holds it")
}

func runApply(e *env, args []string) int {
	return e.runApplyLike(commands["apply"], args, false)
}

func runDestroy(e *env, args []string) int {
	return e.runApplyLike(commands["destroy"], args, true)
}

func (e *env) runApplyLike(c *command, args []string, destroy bool) int {
	fs := e.flags(c)
	var af applyFlags
	af.register(fs)
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	if af.parallelism < 1 {
		return e.usageError(c, "--parallelism %d: want at least 1", af.parallelism)
	}
	path, rc := e.pathArg(c, fs)
	if rc >= 0 {
		return rc
	}
	if !destroy && isPlanFile(path) {
		return e.applyPlanFile(c, path, &af)
	}
	res, rc := e.compile(c, path, compiler.Input{Vars: af.vars, VarFiles: af.varFiles, Offline: af.offline}, false)
	if rc >= 0 {
		return rc
	}
	d := res.Desired
	cn, err := e.connect(af.svc, d.Root)
	if err != nil {
		return e.fail(c, err)
	}
	defer cn.close()
	a, err := e.applier(cn, d, &af)
	if err != nil {
		return e.fail(c, err)
	}
	opts := af.options()
	opts.Destroy = destroy
	p, _, err := a.Plan(e.ctx, d, opts)
	if err != nil {
		return e.fail(c, err)
	}
	if !p.Changed() {
		planner.WriteText(e.stdout, p, planner.TextOptions{Color: e.color(e.stdout)})
		return exitOK
	}
	if err := missingSecretValues(p, d, applier.LocalSecrets{Root: d.Root}); err != nil {
		return e.fail(c, err)
	}
	if !af.autoApprove && !isTerminal(e.stdin) {
		planner.WriteText(e.stdout, p, planner.TextOptions{Color: e.color(e.stdout)})
		fmt.Fprintf(e.stderr, "cc %s: not applied: there is no terminal to ask for approval on; pass --auto-approve, or save the plan with cc plan --out FILE and apply it with cc apply FILE\n", c.name)
		return exitError
	}
	lk, err := a.Lock(e.ctx, d.Project)
	if err != nil {
		return e.fail(c, err)
	}
	defer e.release(c, lk)
	if lk.Serial() != p.Serial {
		// Another apply came between the plan and the lock: plan again,
		// now that nobody else can.
		if p, _, err = a.Plan(e.ctx, d, opts); err != nil {
			return e.fail(c, err)
		}
		if !p.Changed() {
			planner.WriteText(e.stdout, p, planner.TextOptions{Color: e.color(e.stdout)})
			return exitOK
		}
	}
	planner.WriteText(e.stdout, p, planner.TextOptions{Color: e.color(e.stdout)})
	if !af.autoApprove {
		if !e.confirm(c, d.Project, destroy) {
			fmt.Fprintf(e.stdout, "Not applied.\n")
			return exitError
		}
	}
	return e.carryOut(c, a, lk, p, d)
}

// applier makes the applier of apply and destroy.
func (e *env) applier(cn *conn, d *schema.Desired, af *applyFlags) (*applier.Applier, error) {
	return applier.New(cn.client,
		applier.WithParallelism(af.parallelism),
		applier.WithLockTimeout(af.lockTimeout),
		applier.WithProgress(e.stdout),
		applier.WithSecrets(applier.LocalSecrets{Root: d.Root}))
}

// confirm asks on the terminal.
func (e *env) confirm(c *command, project string, destroy bool) bool {
	verb := "Apply these changes to"
	if destroy {
		verb = "Delete everything of"
	}
	fmt.Fprintf(e.stdout, "\n%s project %s? Only 'yes' is accepted: ", verb, project)
	answer := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(e.stdin).ReadString('\n')
		answer <- line
	}()
	select {
	case line := <-answer:
		return strings.TrimSpace(line) == "yes"
	case <-e.ctx.Done():
		// Ctrl-C at the prompt: no, and the lock is released.
		fmt.Fprintln(e.stdout)
		return false
	}
}

// carryOut applies a plan under a lock and reports.
func (e *env) carryOut(c *command, a *applier.Applier, lk *applier.Lock, p *planner.Plan, d *schema.Desired) int {
	start := time.Now()
	fmt.Fprintf(e.stdout, "\nApplying %d %s to project %s...\n", len(p.Changes), plural(len(p.Changes), "change", "changes"), p.Project)
	res := a.Apply(e.ctx, lk, p, d)
	cr, up, rp, dl, nv, rv := res.Counts()
	summary := fmt.Sprintf("%d created, %d updated, %d replaced, %d deleted", cr, up, rp, dl)
	if nv+rv > 0 {
		summary += fmt.Sprintf("; %d new %s, %d %s reused", nv, plural(nv, "version", "versions"), rv, plural(rv, "version", "versions"))
	}
	if len(res.Errors) == 0 && len(res.NotStarted) == 0 {
		fmt.Fprintf(e.stdout, "\nApply complete: %s (%s).\n", summary, time.Since(start).Round(time.Millisecond))
		return exitOK
	}
	fmt.Fprintln(e.stderr)
	for _, err := range res.Errors {
		fmt.Fprintf(e.stderr, "Error: %v\n", err)
	}
	for _, ns := range res.NotStarted {
		fmt.Fprintf(e.stderr, "Not started: %s: %s\n", ns.Addr, ns.Because)
	}
	what := "Apply failed"
	if res.Interrupted {
		what = "Apply interrupted"
	}
	fmt.Fprintf(e.stderr, "%s: %d %s, %d not started; done: %s. What was done stays done: run cc apply again to carry on.\n",
		what, len(res.Errors), plural(len(res.Errors), "error", "errors"), len(res.NotStarted), summary)
	return exitError
}

func (e *env) release(c *command, lk *applier.Lock) {
	if err := lk.Release(); err != nil {
		fmt.Fprintf(e.stderr, "cc %s: %v (run cc force-unlock if it stays locked)\n", c.name, err)
	}
}

// missingSecretValues refuses, before anything changes, a plan that
// creates a secret whose local value cannot be read.
func missingSecretValues(p *planner.Plan, d *schema.Desired, src applier.SecretSource) error {
	var errs []error
	for i := range p.Changes {
		ch := &p.Changes[i]
		if ch.Kind != schema.KindSecret || ch.Action != planner.Create {
			continue
		}
		r := d.Lookup(ch.Addr)
		if r == nil {
			continue
		}
		var spec schema.SecretSpec
		if err := jsonUnmarshal(r.Spec, &spec); err != nil {
			continue
		}
		if _, _, err := src.Value(ch.Addr, spec); err != nil && !errors.Is(err, applier.ErrNotLocal) {
			if ch.Range != nil && !ch.Range.IsZero() {
				err = fmt.Errorf("%s: %w", ch.Range, err)
			}
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("nothing was applied: a new secret needs its value, read when it is applied:\n%w\nSet it and apply again", errors.Join(errs...))
	}
	return nil
}

// applyPlanFile carries out a saved plan.
func (e *env) applyPlanFile(c *command, name string, af *applyFlags) int {
	f, err := readPlanFile(name)
	if err != nil {
		return e.fail(c, err)
	}
	if af.svc.server == "" && e.getenv("CC_SERVER") == "" {
		af.svc.server = f.Config.Server
	}
	if len(af.targets)+len(af.excludes)+len(af.replace) > 0 {
		return e.usageError(c, "--target, --exclude and --replace shape a plan; a saved plan was shaped when it was made")
	}
	d := f.Desired
	if need := f.NeedsSensitive(); len(need) > 0 {
		// The file has no sensitive value: compile the configuration again
		// (with the same --var and --var-file) and check it is the same.
		res, rc := e.compile(c, f.Config.Path, compiler.Input{Vars: af.vars, VarFiles: af.varFiles, Offline: af.offline}, false)
		if rc >= 0 {
			return rc
		}
		key, err := planKey(res.Desired.Root)
		if err != nil {
			return e.fail(c, err)
		}
		// The hashes are made without sensitive values: the keyed MAC
		// tells whether they are the planned ones.
		if planner.Fingerprint(res.Desired) != f.Config.Fingerprint || planner.SensitiveMAC(res.Desired, key) != f.Config.SensitiveMAC {
			return e.fail(c, fmt.Errorf("%s holds no values of sensitive variables (%s use them), and the configuration at %s no longer compiles to what was planned: plan again",
				name, strings.Join(need, ", "), f.Config.Path))
		}
		d = res.Desired
	}
	cn, err := e.connect(af.svc, f.Config.Root)
	if err != nil {
		return e.fail(c, err)
	}
	defer cn.close()
	a, err := e.applier(cn, d, af)
	if err != nil {
		return e.fail(c, err)
	}
	p := f.Plan
	st, err := cn.client.GetState(e.ctx, p.Project)
	if err != nil {
		return e.fail(c, err)
	}
	if st.Serial != p.Serial {
		return e.stale(c, name, f, applier.StateOf(st))
	}
	if !p.Changed() {
		planner.WriteText(e.stdout, p, planner.TextOptions{Color: e.color(e.stdout)})
		return exitOK
	}
	if err := missingSecretValues(p, d, applier.LocalSecrets{Root: d.Root}); err != nil {
		return e.fail(c, err)
	}
	lk, err := a.Lock(e.ctx, p.Project)
	if err != nil {
		return e.fail(c, err)
	}
	defer e.release(c, lk)
	if lk.Serial() != p.Serial {
		st, err := cn.client.GetState(e.ctx, p.Project)
		if err != nil {
			return e.fail(c, err)
		}
		return e.stale(c, name, f, applier.StateOf(st))
	}
	return e.carryOut(c, a, lk, p, d)
}

// stale refuses a saved plan whose state moved, naming what changed.
func (e *env) stale(c *command, name string, f *planner.File, st *planner.State) int {
	changes := f.State.Changes(st)
	fmt.Fprintf(e.stderr, "cc %s: %s is stale: project %s moved from serial %d to %d since the plan was made:\n",
		c.name, name, f.Plan.Project, f.Plan.Serial, st.Serial)
	for _, ch := range changes {
		fmt.Fprintf(e.stderr, "  %s\n", ch)
	}
	fmt.Fprintf(e.stderr, "Nothing was applied. Plan again.\n")
	return exitError
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
