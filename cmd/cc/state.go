package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

func init() {
	register(&command{
		name:    "state",
		args:    "list [flags] [PATH] | show [flags] ADDR [PATH] | mv [flags] FROM TO [PATH] | rm [flags] ADDR [PATH]",
		summary: "list, show, move or forget what the service holds for a project",
		help: `State list prints every resource the service holds for the project at PATH,
with its hash and version, and the revision of each secret value. State show
ADDR prints one resource: its spec (sensitive values redacted), hash,
versions and dependencies. No secret value is ever printed.

State mv FROM TO renames a resource on the service, under the project's
lock, keeping its identity, versions, secret revisions and history (what a
moved block does in a plan). State rm ADDR forgets it: the project stops
owning it and the service keeps it, unowned, adoptable again with an import
(what a removed block does). Neither changes the configuration.

The project is found by compiling PATH, or named with --project (then PATH
only locates the embedded state). Compiling only for the project's name
needs no values for required HCL variables (as Terraform's state commands),
unless the name itself uses one. State list and state show take --json:
one JSON document with a format_version (planner/FORMAT.md), sensitive
values redacted.`,
		run: runState,
		subcommands: []subcommand{
			{"list", "list the resources the service holds for the project"},
			{"show", "print one resource: spec, hash, versions, dependencies"},
			{"mv", "rename a resource on the service, keeping its identity"},
			{"rm", "forget a resource: the service keeps it, unowned"},
		},
	})
	register(&command{
		name:    "versions",
		args:    "[flags] ADDR [PATH]",
		summary: "list the versions of a function, dataset or scaling group",
		help: `Versions lists the versions of a function or dataset, the revisions of a
scaling group (or the revisions of a secret's value, never the value),
oldest first, marking the current one. --json prints them as one JSON
document with a format_version (planner/FORMAT.md). Like versions, rollback
and force-unlock compile PATH only for the project's name: required HCL
variables need no values, unless the name uses one.`,
		run: runVersions,
	})
	register(&command{
		name:    "rollback",
		args:    "[flags] ADDR VERSION [PATH]",
		summary: "make an earlier version of a function, dataset or scaling group current",
		help: `Rollback makes an existing version of a function or dataset, or revision
of a scaling group, current again, under the project's lock, without
building or uploading anything. The configuration still describes the
content it had: the next cc plan shows the change back to it, unless the
configuration is changed too. For a scaling group that change appends a
new revision: a scaling group reuses no earlier one.`,
		run: runRollback,
	})
	register(&command{
		name:    "force-unlock",
		args:    "[flags] [PATH]",
		summary: "release a project's lock that its holder left behind",
		help: `Force-unlock releases the project's lock whoever holds it, and says whose
it was. Use it only when the holder is gone: an apply still running loses
its lock and stops.`,
		run: runForceUnlock,
	})
}

// locateFlags find a project and its service.
type locateFlags struct {
	compileFlags
	svc     serviceFlags
	project string
}

func (f *locateFlags) register(fs *flag.FlagSet) {
	f.compileFlags.register(fs)
	f.svc.register(fs)
	fs.StringVar(&f.project, "project", "", "the project `NAME`, instead of compiling PATH")
}

// locate finds the project name and root, and opens its service.
func (e *env) locate(c *command, f *locateFlags, path string) (string, *conn, int) {
	project, root := f.project, ""
	if project == "" {
		in := e.withEnvironment(compiler.Input{Vars: f.vars, VarFiles: f.varFiles, Tags: f.tags}, f.svc.env)
		var rc int
		if project, root, rc = e.projectName(c, path, in); rc >= 0 {
			return "", nil, rc
		}
	} else {
		var rc int
		if project, rc = e.projectScope(c, project, f.svc.env); rc >= 0 {
			return "", nil, rc
		}
		if root, rc = e.pathRoot(c, path); rc >= 0 {
			return "", nil, rc
		}
	}
	cn, err := e.connect(f.svc, root)
	if err != nil {
		return "", nil, e.fail(c, err)
	}
	return project, cn, -1
}

func runState(e *env, args []string) int {
	c := commands["state"]
	sub, args := e.subcommandArgs(c, args)
	if sub == "" && len(args) > 0 && isHelpArg(args[0]) {
		commandUsage(e.stdout, c, e.probeFlags(c, ""))
		return exitOK
	}
	if sub == "" {
		return e.usageError(c, "want a subcommand: list, show, mv or rm")
	}
	if sub == "mv" || sub == "rm" {
		return runStateLifecycle(e, c, sub, args)
	}
	fs := e.flags(c)
	var lf locateFlags
	lf.register(fs)
	asJSON := fs.Bool("json", false, "print the state as JSON (README, \"Machine-readable output\"), sensitive values redacted")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	var addr, path string
	switch {
	case sub == "list" && fs.NArg() <= 1:
		path = "."
		if fs.NArg() == 1 {
			path = fs.Arg(0)
		}
	case sub == "show" && (fs.NArg() == 1 || fs.NArg() == 2):
		addr, path = fs.Arg(0), "."
		if fs.NArg() == 2 {
			path = fs.Arg(1)
		}
	case sub == "list" || sub == "show":
		return e.usageError(c, "want: cc state list [PATH] or cc state show ADDR [PATH]")
	default:
		return e.usageError(c, "unknown subcommand %q: want list, show, mv or rm%s", sub, c.suggestSubcommand(sub))
	}
	project, cn, rc := e.locate(c, &lf, path)
	if rc >= 0 {
		return rc
	}
	defer cn.close()
	st, err := cn.client.GetState(e.ctx, project)
	if err != nil {
		return e.fail(c, cn.explain(err))
	}
	if sub == "list" && *asJSON {
		return e.stateListAsJSON(st)
	}
	if sub == "list" {
		return e.stateList(st, cn)
	}
	if r := st.Lookup(addr); r != nil && *asJSON {
		return e.stateShowAsJSON(st, r)
	}
	return e.stateShow(c, st, addr)
}

func (e *env) stateList(st *service.State, cn *conn) int {
	if len(st.Resources) == 0 && len(st.SecretValues) == 0 {
		fmt.Fprintf(e.stdout, "Project %s has nothing in %s (serial %d).\n", schema.ScopeTitle(st.Project), cn.where, st.Serial)
		return exitOK
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	// As people read addresses (w[2] before w[10]); --json keeps the
	// state's own order.
	shown := slices.Clone(st.Resources)
	slices.SortStableFunc(shown, func(a, b service.Resource) int { return schema.CompareAddresses(a.Address, b.Address) })
	for _, r := range shown {
		v := ""
		if r.Kind.Versioned() {
			v = fmt.Sprintf("%s %d of %d", r.Kind.VersionNoun(), r.Version, len(r.Versions))
		}
		if sv := st.SecretValue(r.Address); sv != nil {
			v = fmt.Sprintf("value revision %d", sv.Revision)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Address, shortHash(r.Hash), v)
	}
	tw.Flush()
	lock := ""
	if st.Lock != nil {
		lock = fmt.Sprintf("; locked by %s", st.Lock.Holder)
	}
	fmt.Fprintf(e.stdout, "\nProject %s: %d %s at serial %d%s.\n", schema.ScopeTitle(st.Project), len(st.Resources), plural(len(st.Resources), "resource", "resources"), st.Serial, lock)
	return exitOK
}

func (e *env) stateShow(c *command, st *service.State, addr string) int {
	r := st.Lookup(addr)
	if r == nil {
		fmt.Fprintf(e.stderr, "cc state: project %s has no %s\n", schema.ScopeTitle(st.Project), addr)
		return exitError
	}
	fmt.Fprintf(e.stdout, "address:    %s\n", r.Address)
	if r.ID != "" {
		// Issue 10: its identity, kept by moves, forgetting and imports.
		fmt.Fprintf(e.stdout, "id:         %s\n", r.ID)
	}
	fmt.Fprintf(e.stdout, "hash:       %s\n", r.Hash)
	if r.Kind.Versioned() {
		var vs []string
		for _, v := range r.Versions {
			vs = append(vs, strconv.FormatInt(v.Version, 10))
		}
		if noun := r.Kind.VersionNoun(); noun != "version" {
			fmt.Fprintf(e.stdout, "%-11s %d (%ss %s)\n", noun+":", r.Version, noun, strings.Join(vs, ", "))
		} else {
			fmt.Fprintf(e.stdout, "version:    %d (versions %s)\n", r.Version, strings.Join(vs, ", "))
		}
		for _, v := range r.Versions {
			if v.Version != r.Version || len(v.Secrets) == 0 {
				continue
			}
			// The values of managed secrets the version was made with: a
			// later revision with the same value is the same version.
			var made []string
			for _, s := range v.Secrets {
				made = append(made, fmt.Sprintf("%s revision %d", s.Address, s.Revision))
			}
			fmt.Fprintf(e.stdout, "made with:  %s\n", strings.Join(made, ", "))
		}
	}
	if sv := st.SecretValue(addr); sv != nil {
		fmt.Fprintf(e.stdout, "value:      %s, revision %d of %s\n", planner.Sentinel, sv.Revision, sv.UpdatedAt.UTC().Format(time.RFC3339))
	}
	if r.PreventDestroy {
		fmt.Fprintf(e.stdout, "protected:  lifecycle.prevent_destroy, declared at %s\n", r.PreventDestroyAt)
	}
	fmt.Fprintf(e.stdout, "status:     %s\n", r.Status)
	if !r.ExpiredAt.IsZero() {
		// A sandbox's lifetime (issue 10, drift).
		fmt.Fprintf(e.stdout, "expires:    %s\n", r.ExpiredAt.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(e.stdout, "serial:     %d\n", r.Serial)
	fmt.Fprintf(e.stdout, "updated:    %s\n", r.UpdatedAt.UTC().Format(time.RFC3339))
	if len(r.DependsOn) > 0 {
		fmt.Fprintf(e.stdout, "depends on: %s\n", strings.Join(r.DependsOn, ", "))
	}
	var b bytes.Buffer
	if err := json.Indent(&b, planner.Redact(r.Spec, r.Sensitive), "", "  "); err != nil {
		b.Reset()
		b.Write(planner.Redact(r.Spec, r.Sensitive))
	}
	fmt.Fprintf(e.stdout, "spec:\n%s\n", b.String())
	return exitOK
}

func runVersions(e *env, args []string) int {
	c := commands["versions"]
	fs := e.flags(c)
	var lf locateFlags
	lf.register(fs)
	asJSON := fs.Bool("json", false, "print the versions as JSON (README, \"Machine-readable output\")")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() < 1 || fs.NArg() > 2 {
		return e.usageError(c, "want ADDR [PATH]")
	}
	addr, path := fs.Arg(0), "."
	if fs.NArg() == 2 {
		path = fs.Arg(1)
	}
	kind := schema.KindOf(addr)
	secret := kind == schema.KindSecret
	if !kind.Versioned() && !secret {
		return e.usageError(c, "%s: a %s has no versions; %s have versions, and secrets revisions of their value", addr, kind.Noun(), schema.VersionedKinds())
	}
	project, cn, rc := e.locate(c, &lf, path)
	if rc >= 0 {
		return rc
	}
	defer cn.close()
	vs, err := cn.client.Versions(e.ctx, project, addr)
	if secret && errors.Is(err, service.ErrNotFound) && *asJSON {
		return e.noRevisionsJSON(c, cn, project, addr, err)
	}
	if secret && errors.Is(err, service.ErrNotFound) {
		return e.noRevisions(c, cn, project, addr, err)
	}
	if err != nil {
		return e.fail(c, cn.explain(err))
	}
	if *asJSON {
		return e.versionsAsJSON(project, addr, kind, vs)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	for _, v := range vs {
		mark := ""
		if v.Current {
			mark = "current"
		}
		if kind == schema.KindScalingGroup {
			// issue 11: a scaling group's versions are its revisions.
			fmt.Fprintf(tw, "revision %d\t%s\t%s\t%s\n", v.Version, shortHash(v.Hash), v.CreatedAt.UTC().Format(time.RFC3339), mark)
			continue
		}
		if secret {
			// A revision's fingerprint is derived from its value: no hash.
			fmt.Fprintf(tw, "revision %d\t%s\t%s\n", v.Version, v.CreatedAt.UTC().Format(time.RFC3339), mark)
			continue
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", v.Version, shortHash(v.Hash), v.CreatedAt.UTC().Format(time.RFC3339), mark)
	}
	tw.Flush()
	return exitOK
}

// noRevisions says what is true of a secret with no value revisions: the
// project may well have the secret, whose value cc does not keep (one in
// the platform's store), or not have it at all. notFound is the service's
// answer.
func (e *env) noRevisions(c *command, cn *conn, project, addr string, notFound error) int {
	st, err := cn.client.GetState(e.ctx, project)
	if err != nil {
		return e.fail(c, notFound)
	}
	r := st.Lookup(addr)
	if r == nil {
		fmt.Fprintf(e.stderr, "cc %s: project %s has no %s in %s\n", c.name, project, addr, cn.where)
		return exitError
	}
	why := "no value of it has been stored yet"
	if !schema.ManagedSecret(r.Spec) {
		why = "its value is kept on the platform (from_service, from_integration or from_store), not by cc"
	}
	fmt.Fprintf(e.stdout, "%s has no revisions of its value: %s. A secret has no versions; it has a revision for each value cc stores (from_env, from_env_file).\n", addr, why)
	return exitOK
}

func runRollback(e *env, args []string) int {
	c := commands["rollback"]
	fs := e.flags(c)
	var lf locateFlags
	lf.register(fs)
	lockTimeout := fs.Duration("lock-timeout", 0, "wait up to `DURATION` for the project's lock")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() < 2 || fs.NArg() > 3 {
		return e.usageError(c, "want ADDR VERSION [PATH]")
	}
	addr := fs.Arg(0)
	version, err := strconv.ParseInt(strings.TrimPrefix(fs.Arg(1), "v"), 10, 64)
	if err != nil || version < 1 {
		return e.usageError(c, "VERSION %q: want a version number", fs.Arg(1))
	}
	kind := schema.KindOf(addr)
	if !kind.Versioned() {
		return e.usageError(c, "%s: only %s have versions to roll back to", addr, schema.VersionedKinds())
	}
	path := "."
	if fs.NArg() == 3 {
		path = fs.Arg(2)
	}
	return e.underLock(c, &lf, path, *lockTimeout, "cc rollback", func(project string, cn *conn, lk *applier.Lock) int {
		before, err := cn.client.GetState(e.ctx, project)
		if err != nil {
			return e.fail(c, err)
		}
		was := int64(0)
		if r := before.Lookup(addr); r != nil {
			was = r.Version
		}
		res, err := cn.client.Rollback(e.ctx, service.RollbackRequest{Project: project, Address: addr, Version: version,
			ExpectedSerial: lk.Serial(), LeaseID: lk.LeaseID()})
		if err != nil {
			return e.fail(c, err)
		}
		noun := kind.VersionNoun()
		if !res.Changed {
			fmt.Fprintf(e.stdout, "%s: %s %d is current already.\n", addr, noun, version)
			return exitOK
		}
		back := "the next plan shows the change back to it"
		if !kind.ReusesVersions() {
			back += ", which appends a new revision"
		}
		fmt.Fprintf(e.stdout, "%s: %s %d is current (was %d). The configuration still describes %s %d's content: %s.\n",
			addr, noun, version, was, noun, was, back)
		return exitOK
	})
}

// underLock locates the project at path, takes its lock as holder
// (waiting up to wait for it), runs do under it and releases it.
func (e *env) underLock(c *command, lf *locateFlags, path string, wait time.Duration, holder string, do func(project string, cn *conn, lk *applier.Lock) int) int {
	project, cn, rc := e.locate(c, lf, path)
	if rc >= 0 {
		return rc
	}
	defer cn.close()
	a, err := applier.New(cn.client, applier.WithLockTimeout(wait), applier.WithProgress(e.stderr), applier.WithNotices(e.stderr), applier.WithHolder(service.CurrentHolder(holder)))
	if err != nil {
		return e.fail(c, err)
	}
	lk, err := a.Lock(e.ctx, project)
	if err != nil {
		return e.fail(c, err)
	}
	defer e.release(c, cn, lk)
	return do(project, cn, lk)
}

func runForceUnlock(e *env, args []string) int {
	c := commands["force-unlock"]
	fs := e.flags(c)
	var lf locateFlags
	lf.register(fs)
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	path, rc := e.pathArg(c, fs)
	if rc >= 0 {
		return rc
	}
	project, cn, rc := e.locate(c, &lf, path)
	if rc >= 0 {
		return rc
	}
	defer cn.close()
	l, err := cn.client.ForceUnlock(e.ctx, project)
	if err != nil {
		return e.fail(c, err)
	}
	if l == nil {
		fmt.Fprintf(e.stdout, "Project %s was not locked.\n", project)
		return exitOK
	}
	fmt.Fprintf(e.stdout, "Released the lock on project %s held by %s since %s.\n", project, l.Holder, l.AcquiredAt.UTC().Format(time.RFC3339))
	return exitOK
}
