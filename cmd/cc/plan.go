package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/service"
)

func init() {
	register(&command{
		name:    "plan",
		args:    "[flags] [PATH]",
		summary: "show what apply would change, and why",
		help: `Plan compiles the project at PATH (a directory, or one .cue or .hcl file;
default .), reads the project's state from its service in one call, and
shows every change an apply would make: + create, ~ update in place, -/+
replace (naming the field that forces it), - delete, and for functions and
datasets the version an update makes ("new version 3", "reuse version 1"),
for scaling groups the revision every change appends ("new revision 3").
--new-version ADDR gives a function a new version though nothing changed
(its image and source are reused: nothing is built or uploaded), as for a
new value of a secret that lives outside cc (from_service,
from_integration, from_store), which cc cannot compare; --replace of a
function makes a new version too.
Each change says why, down to its cause: the image step, the source file
and its line diff, the secret whose value changed. Sensitive values are
never shown.

--format text (the default; colour only on a terminal, never with NO_COLOR),
json (a versioned document, planner/FORMAT.md; --json is short for it) or
markdown (for a pull-request comment: at most 65,000 characters). --out FILE
saves the plan for cc apply FILE, which carries out exactly it.

Lifecycle declarations (issue 10): moved blocks plan a rename ("sandbox.dev
has moved to sandbox.dev2", never a delete and a create), removed blocks a
forget ("will be forgotten by the project, not destroyed"), import blocks
the adoption of a resource no project owns ("will be imported", with the
fields the configuration changes). --generate-config-out FILE writes the
declarations of imported resources the configuration does not declare yet,
in the project's language.

An ADDR may name an instance of a for_each or count block, quoted for the
shell: --target 'sandbox.worker["a"]', --replace 'volume.cache[0]'. The
block's own address (--target sandbox.worker) names every instance of it.

A plan that destroys data (deletes or replaces a volume, a dataset or a
sandbox with a snapshot mount) names those resources first, in every
format, and cc apply carries it out only with --allow-data-loss (given to
cc plan --out, it is recorded in the file).

The state is the embedded default, .cc/state.db in the project root, unless
--server or CC_SERVER names a cc service (CC_TOKEN is its token).

What changed outside cc since the last apply (fields changed through the
API by another client, a sandbox terminated or whose lifetime passed) is
shown first, in a "Changed outside cc since the last apply" section, field
by field with who and when; the plan then puts the configuration back, and
creates again a sandbox that expired. --refresh-only shows only that
section; cc apply --refresh-only records it as the project's state.

Exit status: 0 success, 1 error, 2 bad usage; with --detailed-exitcode, 0
no changes, 1 error or bad usage, 2 changes present (with --refresh-only:
changes outside cc present).`,
		run: runPlan,
	})
	register(&command{
		name:    "show",
		args:    "[--format text|json|markdown] PLANFILE",
		summary: "render a saved plan",
		help: `Show renders a plan saved with cc plan --out, in any format, without
contacting any service.`,
		run: runShow,
	})
}

// planFlags are the flags of every command that plans.
type planFlags struct {
	compileFlags
	svc      serviceFlags
	targets  stringList
	excludes stringList
	replace  stringList
	// newVersion are the functions to give a new version even if
	// unchanged (--new-version).
	newVersion stringList
	offline    bool
	// allowDataLoss lets apply delete or replace volumes, datasets and
	// sandboxes with snapshots (planner.DataLoss).
	allowDataLoss bool
	// refreshOnly plans only what changed outside cc (issue 10, drift).
	refreshOnly bool
}

// register registers the flags; withReplace is false for cc destroy,
// which deletes everything and so replaces nothing.
func (f *planFlags) register(fs *flag.FlagSet, withReplace bool) {
	f.compileFlags.register(fs)
	f.svc.register(fs)
	fs.Var(&f.targets, "target", "plan only `ADDR` (module.NAME: all of the module's resources) and the changes it needs first (repeatable)")
	fs.Var(&f.excludes, "exclude", "leave out `ADDR` and every change that needs it (repeatable)")
	if withReplace {
		fs.BoolVar(&f.refreshOnly, "refresh-only", false, "plan only what changed outside cc since the last apply (cc apply --refresh-only records it as the project's state)")
		fs.Var(&f.replace, "replace", "replace `ADDR` even if unchanged; a replaced function gets a new version (repeatable; not with --destroy)")
		fs.Var(&f.newVersion, "new-version", "give function `ADDR` a new version even if unchanged, reusing its image and source (repeatable; not with --destroy)")
	}
	fs.BoolVar(&f.offline, "offline", false, "fail when a base image is not pinned in cc.lock")
	fs.BoolVar(&f.allowDataLoss, "allow-data-loss", false, "let apply delete or replace volumes, datasets and sandboxes with snapshots, and their data (with --out: record it in the plan file)")
}

func (f *planFlags) options() planner.Options {
	return planner.Options{Targets: f.targets, Excludes: f.excludes, Replace: f.replace, NewVersion: f.newVersion, RefreshOnly: f.refreshOnly}
}

// refreshOnlyConflict names the flag --refresh-only does not go with, or
// "": a refresh-only plan changes nothing, so it replaces, targets and
// destroys nothing, and it is applied by planning again, never from a file.
func (f *planFlags) refreshOnlyConflict(destroy bool, out string) string {
	switch {
	case !f.refreshOnly:
		return ""
	case destroy:
		return "--destroy"
	case out != "":
		return "--out"
	case len(f.replace) > 0:
		return "--replace"
	case len(f.newVersion) > 0:
		return "--new-version"
	case len(f.targets) > 0 || len(f.excludes) > 0:
		return "--target/--exclude"
	}
	return ""
}

// runPlan runs cc plan: it compiles the project, plans it against its
// service's state and shows the plan, saving it with --out.
func runPlan(e *env, args []string) int {
	c := commands["plan"]
	fs := e.flags(c)
	var f planCommandFlags
	f.register(fs)
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	if rc := e.checkPlanFlags(c, &f); rc >= 0 {
		return rc
	}
	path, rc := e.pathArg(c, fs)
	if rc >= 0 {
		return rc
	}
	in := e.withEnvironment(compiler.Input{Vars: f.vars, VarFiles: f.varFiles, Tags: f.tags, Offline: f.offline}, f.svc.env)
	res, rc := e.compileScoped(c, path, in, f.format == "json")
	if rc >= 0 {
		return rc
	}
	cn, err := e.connect(f.svc, res.Desired.Root)
	if err != nil {
		return e.fail(c, err)
	}
	defer cn.close()
	a, err := applier.New(cn.client, applier.WithSecrets(applier.LocalSecrets{Root: res.Desired.Root}))
	if err != nil {
		return e.fail(c, cn.explain(err))
	}
	opts := f.options()
	opts.Destroy = f.destroy
	opts.UndeclaredImports = f.genOut != ""
	if f.genOut != "" {
		if _, err := os.Lstat(f.genOut); err == nil {
			return e.fail(c, fmt.Errorf("--generate-config-out %s: the file exists; name a new one", f.genOut))
		}
	}
	p, st, err := a.Plan(e.ctx, res.Desired, opts)
	if err != nil {
		return e.fail(c, cn.explainRead(err))
	}
	if f.genOut != "" {
		if err := generateConfig(f.genOut, res, p, st); err != nil {
			return e.fail(c, err)
		}
		fmt.Fprintf(e.stderr, "Wrote the declarations of the imported resources to %s.\n", f.genOut)
	}
	if l := st.Lock; l != nil {
		p.Warnings = append(p.Warnings, fmt.Sprintf("project %s is locked by %s: an apply is running, and this plan may be out of date when it ends", p.Project, l.Holder))
	}
	more := ""
	if f.out != "" {
		if more, rc = e.savePlan(c, cn, path, res, p, st, &f); rc >= 0 {
			return rc
		}
	}
	if err := e.render(p, f.format, more); err != nil {
		return e.fail(c, cn.explain(err))
	}
	if f.out != "" {
		fmt.Fprintf(e.stderr, "Saved the plan to %s: cc apply %s carries out exactly this plan.\n", f.out, f.out)
	}
	if f.detailed && (p.Changed() || (p.RefreshOnly && p.Drifted())) {
		return exitChange
	}
	return exitOK
}

// planCommandFlags are the flags of cc plan.
type planCommandFlags struct {
	planFlags
	out      string // --out: the plan file to save
	asJSON   bool   // --json, the same as --format json
	format   string // --format: text, json or markdown
	detailed bool   // --detailed-exitcode
	destroy  bool   // --destroy
	genOut   string // --generate-config-out
}

// register registers the flags of cc plan.
func (f *planCommandFlags) register(fs *flag.FlagSet) {
	f.planFlags.register(fs, true)
	fs.StringVar(&f.out, "out", "", "save the plan to `FILE`, for cc apply FILE")
	fs.BoolVar(&f.asJSON, "json", false, "print the plan as JSON (--format json)")
	fs.StringVar(&f.format, "format", "text", "output `FORMAT`: text, json or markdown")
	fs.BoolVar(&f.detailed, "detailed-exitcode", false, "exit 2 when there are changes, 0 when there are none, 1 on an error or bad usage")
	fs.BoolVar(&f.destroy, "destroy", false, "plan the deletion of everything the project has")
	fs.StringVar(&f.genOut, "generate-config-out", "", "write the declarations of imported resources the configuration does not declare to `FILE` (HCL or CUE, the project's language); it must not exist")
}

// checkPlanFlags makes --json --format json, then refuses, with a return
// code >= 0, an unknown format and flags that do not go together.
func (e *env) checkPlanFlags(c *command, f *planCommandFlags) int {
	if f.asJSON {
		f.format = "json"
	}
	if !validFormat(f.format) {
		return e.usageError(c, "--format %q: want text, json or markdown", f.format)
	}
	if f.destroy && len(f.replace) > 0 {
		return e.usageError(c, "--replace and --destroy: a destroy plan deletes everything and replaces nothing")
	}
	if flag := f.refreshOnlyConflict(f.destroy, f.out); flag != "" {
		return e.usageError(c, "--refresh-only and %s: a refresh-only plan changes nothing, and cc apply --refresh-only plans it again", flag)
	}
	if f.destroy && len(f.newVersion) > 0 {
		return e.usageError(c, "--new-version and --destroy: a destroy plan deletes everything and makes no version")
	}
	return -1
}

// savePlan writes plan p of state st, compiled from path into res, to the
// plan file --out names, with what it was planned with (and the MAC of the
// sensitive values, if any), and returns the hint the Markdown view ends
// with; a return code >= 0 when it fails.
func (e *env) savePlan(c *command, cn *conn, path string, res *compiler.Result, p *planner.Plan, st *planner.State, f *planCommandFlags) (string, int) {
	file := "" // the project directory
	if ext := filepath.Ext(path); ext == ".cue" || ext == ".hcl" {
		file = filepath.Base(path)
	}
	pf := planner.NewFile(p, res.Desired, st, planner.Config{File: file, Lang: res.Lang, Server: cn.server,
		Targets: f.targets, Excludes: f.excludes, Replace: f.replace, NewVersion: f.newVersion, Destroy: f.destroy, AllowDataLoss: f.allowDataLoss})
	if hasSensitive(res.Desired) {
		key, err := planKey(res.Desired.Root)
		if err != nil {
			return "", e.fail(c, err)
		}
		pf.Config.SensitiveMAC = planner.SensitiveMAC(res.Desired, key)
	}
	if err := writePlanFile(f.out, pf); err != nil {
		return "", e.fail(c, cn.explain(err))
	}
	return fmt.Sprintf("run `cc show %s` for the whole plan", f.out), -1
}

func validFormat(f string) bool { return f == "text" || f == "json" || f == "markdown" }

// render writes a plan to stdout in a format.
func (e *env) render(p *planner.Plan, format, more string) error {
	switch format {
	case "json":
		return planner.WriteJSON(e.stdout, p)
	case "markdown":
		return planner.WriteMarkdown(e.stdout, p, planner.MarkdownOptions{More: more})
	}
	return planner.WriteText(e.stdout, p, planner.TextOptions{Color: e.color(e.stdout)})
}

// writePlanFile is planner's File.Save.
func writePlanFile(name string, f *planner.File) error { return f.Save(name) }

// readPlanFile is planner.LoadFile: the file is untrusted input.
func readPlanFile(name string) (*planner.File, error) { return planner.LoadFile(name) }

// isPlanFile reports whether path names a plan file rather than a
// configuration.
func isPlanFile(path string) bool {
	switch filepath.Ext(path) {
	case ".cue", ".hcl":
		return false
	}
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false // a FIFO would block the open below
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte(`"kind": "`+planner.FileKind+`"`)) || bytes.Contains(head[:n], []byte(`"kind":"`+planner.FileKind+`"`))
}

func runShow(e *env, args []string) int {
	c := commands["show"]
	fs := e.flags(c)
	asJSON := fs.Bool("json", false, "print the plan as JSON (--format json)")
	format := fs.String("format", "text", "output `FORMAT`: text, json or markdown")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	if *asJSON {
		*format = "json"
	}
	if !validFormat(*format) {
		return e.usageError(c, "--format %q: want text, json or markdown", *format)
	}
	if fs.NArg() != 1 {
		return e.usageError(c, "want one PLANFILE")
	}
	f, err := readPlanFile(fs.Arg(0))
	if err != nil {
		return e.fail(c, err)
	}
	if f.Config.AllowDataLoss && len(f.Plan.DataLoss) > 0 {
		// The reviewer should know the file needs no flag to do it.
		f.Plan.Warnings = append(f.Plan.Warnings, fmt.Sprintf("this plan file was made with --allow-data-loss: cc apply %s destroys the data of %s without asking for the flag again",
			fs.Arg(0), strings.Join(planner.InShownOrder(f.Plan.DataLoss), ", ")))
	}
	if err := e.render(f.Plan, *format, ""); err != nil {
		return e.fail(c, err)
	}
	return exitOK
}

// fail prints an operational error and returns exitError.
func (e *env) fail(c *command, err error) int {
	if e.cn != nil {
		// No gRPC transport text: an unreachable server in words.
		err = e.cn.explain(err)
	}
	hint := ""
	switch {
	case errors.Is(err, service.ErrUnauthenticated):
		hint = " (cc sends $CC_TOKEN as its token)"
	case errors.Is(err, service.ErrPermissionDenied):
		hint = " ($CC_TOKEN may not use this project or environment)"
	}
	fmt.Fprintf(e.stderr, "cc %s: %v%s\n", c.name, err, hint)
	if e.ui != nil {
		e.ui.diagnostic(fmt.Errorf("%w%s", err, hint))
	}
	return exitError
}
