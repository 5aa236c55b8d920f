package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

func init() {
	register(&command{
		name:    "apply",
		args:    "[flags] [PATH | PLANFILE [DIR]]",
		summary: "make the platform match the configuration",
		help: `Apply plans the project at PATH (as cc plan does), shows the plan and asks
before changing anything; --auto-approve applies without asking (the plan
is still shown), and without a terminal to ask on, apply refuses unless
given --auto-approve.
Given a PLANFILE saved by cc plan --out, it carries out exactly that plan
without asking, and refuses when the project's state is not the one the
plan was made against (another lineage, serial or resource), naming what
differs. A plan file never chooses where it is applied: it names its
project by name and its state's lineage, never by directory. It goes to
the service the command line names (--server, else CC_SERVER, else the
embedded state of DIR, the project directory, default .), and uses DIR's
local files; a file planned for another service is refused, naming both,
and so is one whose project's state is not DIR's (another lineage, or no
state in DIR at all: nothing is created there).

A plan that destroys data (deletes or replaces a volume, a dataset or a
sandbox with a snapshot mount) is refused, naming those resources, unless
given --allow-data-loss (or the plan file was made with cc plan
--allow-data-loss --out). So is a destroy of a project that has one.

--refresh-only changes nothing on the platform: it shows what changed
outside cc since the last apply (cc plan --refresh-only), asks, and
records it as the project's state, so that the next refresh-only plan is
empty. A sandbox that expired stays expired (cc apply creates it again).

Without TLS (--tls, --ca), cc talks only to a server on this machine
(loopback, localhost, a unix socket), unless given --insecure: the token
and secret values would cross the network in clear.

Apply holds the project's lock for the whole run (waiting up to
--lock-timeout for another holder; the lock of a cc apply of this machine
that is no longer running is taken over at once, saying so), uploads only
the files the service lacks, and makes the changes in dependency order,
--parallelism calls at a time (changes ready together go in batches of
up to 100 a call), printing each as it starts and ends. When a
change fails, the changes already running finish, nothing that needs the
failed one starts, and every error is printed with the resource's address
and configuration position; the exit status is then 1. When the service
stops answering, apply stops and prints one summary of what did not run.
Ctrl-C stops starting changes, lets those running finish, and releases
the lock. Running apply again carries on
where it stopped: what was done is not done twice.

Each change prints [n/N] as it starts, its elapsed time when done, and,
while it runs, a line every 10 s ("still creating... [20s elapsed]").
--json writes, instead of the plan and progress text, one JSON event a line
on stdout (version, planned_change, change_summary, apply_start,
apply_progress, apply_complete, apply_errored, diagnostic; documented in
planner/FORMAT.md); it needs --auto-approve unless given a PLANFILE.

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
(--auto-approve applies without asking; the plan is still shown). Deletes
go in reverse dependency order. A project with volumes, datasets or
sandboxes with snapshots is destroyed only with --allow-data-loss. It
takes no --replace and no --new-version: it replaces nothing and makes no
version.`,
		run: runDestroy,
	})
}

// applyFlags are the flags of apply and destroy.
type applyFlags struct {
	planFlags
	autoApprove bool
	parallelism int
	lockTimeout time.Duration
	json        bool // --json: events on stdout (jsonui.go)
}

func (f *applyFlags) register(fs *flag.FlagSet, destroy bool) {
	f.planFlags.register(fs, !destroy)
	fs.BoolVar(&f.autoApprove, "auto-approve", false, "apply without asking for approval (the plan is still shown)")
	fs.IntVar(&f.parallelism, "parallelism", 10, "make at most `N` calls at once (a call: one change, or a batch of those ready together)")
	fs.DurationVar(&f.lockTimeout, "lock-timeout", 0, "wait up to `DURATION` for the project's lock when another apply holds it")
	fs.BoolVar(&f.json, "json", false, "write a stream of events on stdout, one JSON object a line, instead of the plan and progress text (needs --auto-approve or a PLANFILE)")
}

func runApply(e *env, args []string) int {
	return e.runApplyLike(commands["apply"], args, false)
}

func runDestroy(e *env, args []string) int {
	return e.runApplyLike(commands["destroy"], args, true)
}

// runApplyLike runs cc apply, or cc destroy when destroy is true: it
// plans, then applies what the plan changes under the project's lock.
func (e *env) runApplyLike(c *command, args []string, destroy bool) int {
	fs := e.flags(c)
	var af applyFlags
	af.register(fs, destroy)
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	if rc := e.checkApplyFlags(c, &af, destroy); rc >= 0 {
		return rc
	}
	if rc := e.startJSON(c, fs, &af, destroy); rc >= 0 {
		return rc
	}
	if !destroy && fs.NArg() > 0 && isPlanFile(fs.Arg(0)) {
		return e.applyPlanFileArgs(c, fs, &af)
	}
	path, rc := e.pathArg(c, fs)
	if rc >= 0 {
		return rc
	}
	in := e.withEnvironment(compiler.Input{Vars: af.vars, VarFiles: af.varFiles, Tags: af.tags, Offline: af.offline}, af.svc.env)
	res, rc := e.compileScoped(c, path, in, false)
	if rc >= 0 {
		return rc
	}
	d := res.Desired
	cn, err := e.connect(af.svc, d.Root)
	if err != nil {
		return e.fail(c, err)
	}
	defer cn.close()
	a, err := e.applier(cn, d, &af, af.allowDataLoss)
	if err != nil {
		return e.fail(c, cn.explain(err))
	}
	opts := af.options()
	opts.Destroy = destroy
	p, st, err := a.Plan(e.ctx, d, opts)
	if err != nil {
		return e.fail(c, cn.explain(err))
	}
	if af.refreshOnly {
		return e.applyRefreshOnly(c, cn, a, d, opts, p, &af)
	}
	if rc := e.beforeLock(c, cn, p, st, d, &af); rc >= 0 {
		return rc
	}
	return e.lockAndApply(c, cn, a, d, opts, p, st, &af)
}

// checkApplyFlags refuses, with a return code >= 0, flags of apply and
// destroy that do not go together: a --parallelism under 1, and
// --refresh-only with a flag it does not go with.
func (e *env) checkApplyFlags(c *command, af *applyFlags, destroy bool) int {
	if af.parallelism < 1 {
		return e.usageError(c, "--parallelism %d: want at least 1", af.parallelism)
	}
	if flag := af.refreshOnlyConflict(destroy, ""); flag != "" {
		return e.usageError(c, "--refresh-only and %s: a refresh-only apply changes nothing on the platform", flag)
	}
	return -1
}

// applyPlanFileArgs applies the plan file named by the arguments of fs,
// PLANFILE [DIR] (DIR defaults to .), refusing --refresh-only and more
// arguments.
func (e *env) applyPlanFileArgs(c *command, fs *flag.FlagSet, af *applyFlags) int {
	if af.refreshOnly {
		return e.usageError(c, "--refresh-only and a PLANFILE: a refresh-only apply plans again")
	}
	if fs.NArg() > 2 {
		return e.usageError(c, "want PLANFILE [DIR], got %d arguments", fs.NArg())
	}
	dir := "."
	if fs.NArg() == 2 {
		dir = fs.Arg(1)
	}
	return e.applyPlanFile(c, fs.Arg(0), dir, af)
}

// lockAndApply takes the project's lock, plans again when another apply
// came between plan p (of state st, with opts) and the lock, shows the
// plan, refuses data loss without --allow-data-loss, asks for approval
// unless --auto-approve, and carries the plan out; the lock is released
// when it returns.
func (e *env) lockAndApply(c *command, cn *conn, a *applier.Applier, d *schema.Desired, opts planner.Options, p *planner.Plan, st *planner.State, af *applyFlags) int {
	lk, err := a.Lock(e.ctx, d.Project)
	if err != nil {
		return e.fail(c, cn.explain(err))
	}
	defer e.release(c, cn, lk)
	if lk.Serial() != p.Serial {
		// Another apply came between the plan and the lock: plan again,
		// now that nobody else can.
		if p, st, err = a.Plan(e.ctx, d, opts); err != nil {
			return e.fail(c, cn.explain(err))
		}
		if !p.Changed() {
			e.showPlan(p)
			return exitOK
		}
	}
	e.showPlan(p)
	loss := planner.DataLoss(p, st)
	if len(loss) > 0 && !af.allowDataLoss {
		return e.refuseDataLoss(c, p, loss, "")
	}
	if !af.autoApprove {
		if !e.confirm(c, d.Project, opts.Destroy, loss) {
			fmt.Fprintf(e.stdout, "Not applied.\n")
			return exitError
		}
	}
	return e.carryOut(c, cn, a, lk, p, d)
}

// beforeLock ends apply and destroy before the lock is taken, with a
// return code >= 0, when the plan changes nothing, needs a secret value
// that cannot be read, destroys data without --allow-data-loss, or needs
// an approval there is no terminal to ask for.
func (e *env) beforeLock(c *command, cn *conn, p *planner.Plan, st *planner.State, d *schema.Desired, af *applyFlags) int {
	if !p.Changed() {
		e.showPlan(p)
		return exitOK
	}
	if err := missingSecretValues(p, d, applier.LocalSecrets{Root: d.Root}); err != nil {
		return e.fail(c, cn.explain(err))
	}
	if loss := planner.DataLoss(p, st); len(loss) > 0 && !af.allowDataLoss {
		e.showPlan(p)
		return e.refuseDataLoss(c, p, loss, "")
	}
	if !af.autoApprove && !isTerminal(e.stdin) {
		e.showPlan(p)
		fmt.Fprintf(e.stderr, "cc %s: not applied: there is no terminal to ask for approval on; pass --auto-approve, or save the plan with cc plan --out FILE and apply it with cc apply FILE\n", c.name)
		return exitError
	}
	return -1
}

// refuseDataLoss refuses a plan that destroys data without
// --allow-data-loss, naming what it would destroy and how to proceed.
func (e *env) refuseDataLoss(c *command, p *planner.Plan, loss []string, planFile string) int {
	names := planner.DataLossNames(p, loss)
	if len(names) > 50 {
		names = append(names[:50:50], fmt.Sprintf("and %d more (cc plan --json lists them all in data_loss)", len(loss)-50))
	}
	how := fmt.Sprintf("run cc %s again with --allow-data-loss", c.name)
	if planFile != "" {
		how = fmt.Sprintf("run cc apply --allow-data-loss %s, or plan again with cc plan --allow-data-loss --out FILE", planFile)
	} else if c.name == "apply" {
		how += ", or save it with cc plan --allow-data-loss --out FILE and apply FILE"
	}
	everything := ""
	if p.DeletesAll && !p.Destroy {
		everything = fmt.Sprintf(" It deletes every resource of project %s: if the configuration was not meant to be empty, check it first.", p.Project)
	}
	fmt.Fprintf(e.stderr, "cc %s: not applied: this plan destroys the data of %s; to carry it out, %s.%s Nothing was changed.\n",
		c.name, strings.Join(names, ", "), how, everything)
	if e.ui != nil {
		e.ui.diagnostic(fmt.Errorf("not applied: this plan destroys the data of %s; to carry it out, %s. Nothing was changed", strings.Join(names, ", "), how))
	}
	return exitError
}

// applier makes the applier of apply and destroy.
func (e *env) applier(cn *conn, d *schema.Desired, af *applyFlags, allowDataLoss bool) (*applier.Applier, error) {
	return applier.New(cn.client,
		applier.WithAllowDataLoss(allowDataLoss),
		applier.WithParallelism(af.parallelism),
		applier.WithLockTimeout(af.lockTimeout),
		applier.WithProgress(e.stdout),
		applier.WithNotices(e.stderr),
		applier.WithSecrets(applier.LocalSecrets{Root: d.Root}),
		e.applyEvents())
}

// confirm asks on the terminal, naming the resources whose data the
// changes destroy.
func (e *env) confirm(c *command, project string, destroy bool, loss []string) bool {
	verb := "Apply these changes to"
	if destroy {
		verb = "Delete everything of"
	}
	also := ""
	if len(loss) > 0 {
		also = fmt.Sprintf(" This destroys the data of %s.", strings.Join(loss, ", "))
	}
	fmt.Fprintf(e.stdout, "\n%s project %s?%s Only 'yes' is accepted: ", verb, schema.ScopeTitle(project), also)
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
func (e *env) carryOut(c *command, cn *conn, a *applier.Applier, lk *applier.Lock, p *planner.Plan, d *schema.Desired) int {
	if e.ui != nil {
		return e.carryOutJSON(c, cn, a, lk, p, d)
	}
	start := time.Now()
	fmt.Fprintf(e.stdout, "\nApplying %s to project %s...\n", applyingWhat(p), schema.ScopeTitle(p.Project))
	res := e.applyShown(a, lk, p, d)
	if res.Refused != nil {
		// The checks above refuse first; this is the applier's own guard.
		return e.fail(c, res.Refused)
	}
	summary := applySummary(res, p)
	if len(res.Errors) == 0 && len(res.NotStarted) == 0 && res.Lost == nil {
		fmt.Fprintf(e.stdout, "\nApply complete: %s (%s).\n", summary, time.Since(start).Round(time.Millisecond))
		e.writeApplyOutputs(res.Outputs)
		return exitOK
	}
	return e.applyFailed(c, cn, res, p, summary)
}

// applyingWhat counts what an apply is about to do: its changes, and its
// output changes when there are any ("1 output change" alone, rather
// than "0 changes", when only outputs change).
func applyingWhat(p *planner.Plan) string {
	n, o := len(p.Changes), len(p.Outputs)
	changes := fmt.Sprintf("%d %s", n, plural(n, "change", "changes"))
	outputs := fmt.Sprintf("%d output %s", o, plural(o, "change", "changes"))
	switch {
	case o == 0:
		return changes
	case n == 0:
		return outputs
	}
	return changes + " and " + outputs
}

// applySummary is the one-line summary of what an apply did: "2 created,
// 1 updated, 0 replaced, 0 deleted; 1 new version, 0 versions reused".
func applySummary(res *applier.Result, p *planner.Plan) string {
	cr, up, rp, dl, nv, rv := res.Counts()
	summary := fmt.Sprintf("%d created, %d updated, %d replaced, %d deleted", cr, up, rp, dl)
	// Issue 10: moves, imports and forgets, when the plan has any.
	if mv, im, fg := res.LifecycleCounts(p); mv+im+fg > 0 {
		summary += fmt.Sprintf(", %d moved, %d imported, %d forgotten", mv, im, fg)
	}
	// Issue 11: a scaling group's new revisions are counted apart.
	nr := res.NewRevisions()
	if nv -= nr; nv+rv > 0 {
		summary += fmt.Sprintf("; %d new %s, %d %s reused", nv, plural(nv, "version", "versions"), rv, plural(rv, "version", "versions"))
	}
	if nr > 0 {
		sep := "; "
		if nv+rv > 0 {
			sep = ", "
		}
		summary += fmt.Sprintf("%s%d new %s", sep, nr, plural(nr, "revision", "revisions"))
	}
	return summary
}

// applyFailed reports, on stderr, an apply that did not do everything:
// each error, what was not started and why, and what was done.
func (e *env) applyFailed(c *command, cn *conn, res *applier.Result, p *planner.Plan, summary string) int {
	fmt.Fprintln(e.stderr)
	for _, err := range res.Errors {
		fmt.Fprintf(e.stderr, "Error: %v\n", err)
	}
	if res.Lost != nil {
		// One summary, not one error per change: they all have one cause.
		var notStarted []string
		for _, ns := range res.NotStarted {
			if ns.Because == "the service stopped answering" {
				notStarted = append(notStarted, ns.Addr)
			} else {
				fmt.Fprintf(e.stderr, "Not started: %s: %s\n", ns.Addr, ns.Because)
			}
		}
		unknown := ""
		if len(res.Unknown) > 0 {
			unknown = fmt.Sprintf("; %d %s running then may or may not have been done (%s)", len(res.Unknown),
				plural(len(res.Unknown), "change", "changes"), listSome(res.Unknown, 5))
		}
		ns := ""
		if len(notStarted) > 0 {
			ns = fmt.Sprintf(" (%s)", listSome(notStarted, 5))
		}
		fmt.Fprintf(e.stderr, "Apply stopped: %s stopped answering after %d of %d changes; %d did not run%s%s; done: %s. What was done stays done: run cc apply again when the service is back to carry on.\n",
			cn.where, len(res.Done), len(p.Changes), len(notStarted), ns, unknown, summary)
		return exitError
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

// listSome lists at most n addresses, and how many more.
func listSome(addrs []string, n int) string {
	if len(addrs) <= n {
		return strings.Join(addrs, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(addrs[:n], ", "), len(addrs)-n)
}

func (e *env) release(c *command, cn *conn, lk *applier.Lock) {
	err := lk.Release()
	switch {
	case err == nil:
	case applier.ServiceLost(err):
		fmt.Fprintf(e.stderr, "cc %s: the lock of project %s could not be released: %s stopped answering; it expires a minute after its last renewal (or run cc force-unlock)\n", c.name, lk.Project(), cn.where)
	default:
		fmt.Fprintf(e.stderr, "cc %s: %v (run cc force-unlock if it stays locked)\n", c.name, err)
	}
}

// missingSecretValues is applier.MissingSecretValues.
func missingSecretValues(p *planner.Plan, d *schema.Desired, src applier.SecretSource) error {
	return applier.MissingSecretValues(p, d, src)
}

// applyPlanFile carries out a saved plan in the project directory dir.
//
// A plan file is data someone else may have written: it never chooses the
// service its apply talks to (and sends $CC_TOKEN and secret values to),
// nor the directory whose embedded state and local files it uses; it
// names no directory at all, only its project and the lineage of the
// state it was planned against. The service is the one the command line
// names (--server, else $CC_SERVER, else the embedded state of dir); a
// file recorded for another service is refused, naming both, and so is
// one whose state is not the one there (File.Check: another lineage, or a
// project written since a first plan).
func (e *env) applyPlanFile(c *command, name, dir string, af *applyFlags) int {
	f, err := readPlanFile(name)
	if err != nil {
		return e.fail(c, err)
	}
	if len(af.targets)+len(af.excludes)+len(af.replace)+len(af.newVersion) > 0 {
		return e.usageError(c, "--target, --exclude, --replace and --new-version shape a plan; a saved plan was shaped when it was made")
	}
	if rc := e.checkPlanEnv(c, name, f, af.svc.env); rc >= 0 {
		return rc
	}
	root, err := planFileRoot(name, dir, f, af, e.getenv("CC_SERVER"))
	if err != nil {
		return e.fail(c, err)
	}
	d, rc := e.planFileDesired(c, name, f, af, root)
	if rc >= 0 {
		return rc
	}
	cn, err := e.connect(af.svc, root)
	if err != nil {
		return e.fail(c, err)
	}
	defer cn.close()
	allow := af.allowDataLoss || f.Config.AllowDataLoss
	a, err := e.applier(cn, d, af, allow)
	if err != nil {
		return e.fail(c, cn.explain(err))
	}
	p := f.Plan
	ps, err := a.StateResolving(e.ctx, p.Project, planner.DataLookups(f.Desired))
	if err != nil {
		return e.fail(c, fmt.Errorf("read the state of project %s: %w", p.Project, cn.explain(err)))
	}
	if err := f.Check(ps); err != nil {
		return e.mismatch(c, name, cn, err)
	}
	if !p.Changed() {
		e.showPlan(p)
		return exitOK
	}
	if err := missingSecretValues(p, d, applier.LocalSecrets{Root: d.Root}); err != nil {
		return e.fail(c, cn.explain(err))
	}
	if loss := planner.DataLoss(p, ps); len(loss) > 0 && !allow {
		return e.refuseDataLoss(c, p, loss, name)
	}
	lk, err := a.Lock(e.ctx, p.Project)
	if err != nil {
		return e.fail(c, cn.explain(err))
	}
	defer e.release(c, cn, lk)
	// Under the lock, nothing moves: check again what it is applied to.
	if ps, err = a.StateResolving(e.ctx, p.Project, planner.DataLookups(f.Desired)); err != nil {
		return e.fail(c, fmt.Errorf("read the state of project %s: %w", p.Project, cn.explain(err)))
	}
	if err := f.Check(ps); err != nil {
		return e.mismatch(c, name, cn, err)
	}
	if loss := planner.DataLoss(p, ps); len(loss) > 0 && !allow {
		return e.refuseDataLoss(c, p, loss, name)
	}
	return e.carryOut(c, cn, a, lk, p, d)
}

// sameService reports whether two --server values name the same service:
// the same address, or the same replicas in another order or spacing
// (10.0.0.1:7433,10.0.0.2:7433 and 10.0.0.2:7433, 10.0.0.1:7433). Nothing
// is resolved; a plan's state lineage and serial are checked against the
// service itself afterwards.
func sameService(a, b string) bool {
	if a == b {
		return true
	}
	if !service.IsReplicaList(a) || !service.IsReplicaList(b) {
		return false
	}
	ra, errA := service.ReplicaAddrs(a)
	rb, errB := service.ReplicaAddrs(b)
	if errA != nil || errB != nil {
		return false
	}
	slices.Sort(ra)
	slices.Sort(rb)
	return slices.Equal(ra, rb)
}

// planFileRoot is the project root a saved plan is applied in: dir's,
// with the service the command line names (--server, else $CC_SERVER,
// given as envServer), which must be the one it was planned against.
// With the embedded default, dir must hold the project's state, unless the
// plan was made against a state never written: a plan is never applied to
// a state it would create, as it would report every resource deleted.
func planFileRoot(name, dir string, f *planner.File, af *applyFlags, envServer string) (string, error) {
	root, err := projectDir(dir, f)
	if err != nil {
		return "", err
	}
	server, named := af.svc.server, "--server"
	if server == "" {
		server, named = envServer, "$CC_SERVER"
	}
	db := filepath.Join(root, stateDir, "state.db")
	if !sameService(server, f.Config.Server) {
		embedded := "the embedded state in " + db
		planned, here := embedded, embedded
		if f.Config.Server != "" {
			planned = "the cc service at " + f.Config.Server
		}
		how := "plan again against it"
		if server != "" {
			here = fmt.Sprintf("the cc service at %s (%s)", server, named)
		} else {
			here += " (no --server or $CC_SERVER)"
			how = "to apply it to the service it was planned against, name it: --server " + f.Config.Server
		}
		return "", fmt.Errorf("%s was planned against %s, but this apply would go to %s: a plan file never chooses the service; %s", name, planned, here, how)
	}
	if server == "" && f.State.Lineage != "" {
		if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s was planned against the state of project %s (lineage %s), but %s has no embedded state (%s): a saved plan is applied in its project's directory, with that directory's state; name it (cc apply %s DIR), or plan again here",
				name, f.Plan.Project, f.State.Lineage, dir, db, name)
		}
	}
	return root, nil
}

// projectDir is the project root of the directory dir a saved plan is
// applied in (symlinks resolved), which must hold the configuration of the
// plan's language: its local files are read from there.
func projectDir(dir string, f *planner.File) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("project directory %s: %w", dir, err)
	}
	if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("project directory %s: not a directory", dir)
	}
	// Config.File is a file name and Config.Lang "cue" or "hcl", checked
	// by planner.ReadFile.
	want, found := f.Config.File, false
	if want != "" {
		fi, err := os.Stat(filepath.Join(root, want))
		found = err == nil && fi.Mode().IsRegular()
	} else {
		want = "." + f.Config.Lang + " file"
		m, _ := filepath.Glob(filepath.Join(root, "*."+f.Config.Lang))
		found = len(m) > 0
	}
	if !found {
		return "", fmt.Errorf("%s holds no %s, the configuration of project %s that the plan was made from: a saved plan is applied in its project's directory; name it (cc apply PLANFILE DIR)", dir, want, f.Plan.Project)
	}
	return root, nil
}

// planFileDesired is the desired state a saved plan is applied with: the
// file's, or, when the plan needs values of sensitive variables (which
// the file never has), the configuration compiled again, if it compiles
// to what was planned. A return code >= 0 ends the command.
func (e *env) planFileDesired(c *command, name string, f *planner.File, af *applyFlags, root string) (*schema.Desired, int) {
	d := f.Desired
	d.Root = root
	if need := f.NeedsSensitive(); len(need) > 0 {
		// The file has no sensitive value: compile the configuration again
		// (with the same --var and --var-file) and check it is the same.
		path := root
		if f.Config.File != "" {
			path = filepath.Join(root, f.Config.File)
		}
		in := e.withEnvironment(compiler.Input{Vars: af.vars, VarFiles: af.varFiles, Tags: af.tags, Offline: af.offline}, af.svc.env)
		res, rc := e.compileScoped(c, path, in, false)
		if rc >= 0 {
			return nil, rc
		}
		key, err := planKey(res.Desired.Root)
		if err != nil {
			return nil, e.fail(c, err)
		}
		// The hashes are made without sensitive values: the keyed MAC
		// tells whether they are the planned ones.
		if planner.Fingerprint(res.Desired) != f.Config.Fingerprint || planner.SensitiveMAC(res.Desired, key) != f.Config.SensitiveMAC {
			return nil, e.fail(c, fmt.Errorf("%s holds no values of sensitive variables (%s use them), and the configuration at %s no longer compiles to what was planned: plan again",
				name, strings.Join(need, ", "), path))
		}
		d = res.Desired
	}
	return d, -1
}

// mismatch refuses a saved plan that does not fit the state it would be
// applied to, naming what differs.
func (e *env) mismatch(c *command, name string, cn *conn, err error) int {
	var me *planner.MismatchError
	if !errors.As(err, &me) {
		return e.fail(c, err)
	}
	if me.Moved {
		fmt.Fprintf(e.stderr, "cc %s: %s is stale: project %s moved from serial %d to %d since the plan was made:\n", c.name, name, me.Project, me.From, me.To)
	} else {
		sep := ""
		if len(me.Changes) > 0 {
			sep = ":"
		}
		fmt.Fprintf(e.stderr, "cc %s: %s does not fit the state of project %s in %s: %s%s\n", c.name, name, me.Project, cn.where, me.Why, sep)
	}
	for _, ch := range me.Changes {
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

// applyShown carries out plan p once it has been shown (or saved): its
// field-level changes go first, since carrying it out needs none of them
// and at 10,000 creates they are half of what an apply holds (issue 13,
// aim 6: the apply's heap, and its collections, are that much smaller).
func (e *env) applyShown(a *applier.Applier, lk *applier.Lock, p *planner.Plan, d *schema.Desired) *applier.Result {
	for i := range p.Changes {
		p.Changes[i].Fields = nil
	}
	if beforeApply != nil {
		beforeApply(p)
	}
	return a.Apply(e.ctx, lk, p, d)
}

// beforeApply, when set (by tests), sees each plan just before it is
// carried out.
var beforeApply func(p *planner.Plan)
