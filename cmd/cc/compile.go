package main

import (
	"context"
	"flag"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"cc.dev/cc/compiler"
	"cc.dev/cc/schema"
)

func init() {
	register(&command{
		name:    "validate",
		args:    "[flags] [PATH]",
		summary: "check a project's configuration",
		help: `Validate loads the project at PATH (a directory, or one .cue or .hcl file;
default .), checks it against the schema and compiles it, reading and hashing
every local file it uses, without contacting any service. It prints nothing
and exits 0 when the configuration is valid, and prints positioned
diagnostics and exits 1 when it is not.

Like terraform validate it needs no values for required HCL variables: an
unset variable is an unknown value of its type, and a check that meets an
unknown value is skipped (plan and apply still require every variable).

With --json it prints one JSON document in terraform validate -json's shape
on stdout, also when the configuration is valid: format_version, valid,
error_count, warning_count and diagnostics, each with its range (filenames
relative to the project root) and a snippet of the source.`,
		run: runValidate,
	})
	register(&command{
		name:    "compile",
		args:    "[flags] [PATH]",
		summary: "print a project's desired state",
		help: `Compile compiles the project at PATH (a directory, or one .cue or .hcl
file; default .) into its desired state: every resource with its canonical
spec, content hash and dependencies.

By default it prints a summary, one line per resource. With --json it prints
the desired state as canonical JSON: the same configuration gives the same
bytes on every machine and in either language. Values from sensitive HCL
variables print as "(sensitive)" unless --show-sensitive is given.`,
		run: runCompile,
	})
}

func runValidate(e *env, args []string) int {
	c := commands["validate"]
	fs := e.flags(c)
	var cf compileFlags
	var envName string
	cf.register(fs)
	registerEnv(fs, &envName)
	fs.BoolVar(&cf.json, "json", false, "print one JSON document in terraform validate -json's shape on stdout, also when valid")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	path, rc := e.pathArg(c, fs)
	if rc >= 0 {
		return rc
	}
	// Like terraform validate, it needs no values for required variables:
	// they are unknown, and checks skip what is unknown (issue 12).
	in := e.withEnvironment(compiler.Input{Vars: cf.vars, VarFiles: cf.varFiles, Tags: cf.tags, UnknownVariables: true}, envName)
	if cf.json {
		return e.validateJSON(path, in)
	}
	_, rc = e.compile(c, path, in, false)
	if rc >= 0 {
		return rc
	}
	return exitOK
}

func runCompile(e *env, args []string) int {
	c := commands["compile"]
	fs := e.flags(c)
	var cf compileFlags
	var envName string
	cf.register(fs)
	registerEnv(fs, &envName)
	fs.BoolVar(&cf.json, "json", false, "print the desired state (and diagnostics) as JSON")
	offline := fs.Bool("offline", false, "fail when a base image is not pinned in cc.lock")
	show := fs.Bool("show-sensitive", false, "with --json, print the values of sensitive variables instead of (sensitive)")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	path, rc := e.pathArg(c, fs)
	if rc >= 0 {
		return rc
	}
	res, rc := e.compile(c, path, e.withEnvironment(compiler.Input{Vars: cf.vars, VarFiles: cf.varFiles, Tags: cf.tags, Offline: *offline}, envName), cf.json)
	if rc >= 0 {
		return rc
	}
	if cf.json {
		d := res.Desired
		if !*show {
			d = redactDesired(d)
		}
		b, err := d.MarshalCanonical()
		if err != nil {
			fmt.Fprintf(e.stderr, "cc compile: %v\n", err)
			return exitError
		}
		e.stdout.Write(append(b, '\n'))
		return exitOK
	}
	printSummary(e, res)
	return exitOK
}

// printSummary prints one line per resource: address, short hash, and
// what it depends on.
func printSummary(e *env, res *compiler.Result) {
	d := res.Desired
	counts := map[schema.Kind]int{}
	width := 0
	for _, r := range d.Resources {
		counts[r.Kind]++
		width = max(width, len(r.Address))
	}
	fmt.Fprintf(e.stdout, "project %s (%s)\n\n", d.Project, res.Lang)
	for _, r := range d.Resources {
		line := fmt.Sprintf("  %-*s  %s", width, r.Address, shortHash(r.Hash))
		if len(r.Aliases) > 0 {
			line += "  also " + strings.Join(r.Aliases, ", ")
		}
		if len(r.DependsOn) > 0 {
			line += "  <- " + strings.Join(r.DependsOn, ", ")
		}
		fmt.Fprintln(e.stdout, line)
	}
	var parts []string
	for _, k := range schema.Kinds {
		if n := counts[k]; n > 0 {
			word := k.Noun()
			if n != 1 {
				word = k.PluralNoun()
			}
			parts = append(parts, fmt.Sprintf("%d %s", n, word))
		}
	}
	sort.Strings(nil)
	fmt.Fprintf(e.stdout, "\n%d resources: %s.\n", len(d.Resources), strings.Join(parts, ", "))
	if len(res.Unlocked) > 0 {
		fmt.Fprintf(e.stdout, "Not pinned in cc.lock (run cc lock): %s\n", strings.Join(res.Unlocked, ", "))
	}
}

func shortHash(h string) string {
	h = strings.TrimPrefix(h, "sha256:")
	if len(h) > 12 {
		h = h[:12]
	}
	return h
}

// redactDesired is d with every sensitive value replaced by (sensitive)
// (issue 8 item 6); d is not changed.
func redactDesired(d *schema.Desired) *schema.Desired {
	out := *d
	out.Resources = append([]schema.Resource(nil), d.Resources...)
	for i := range out.Resources {
		out.Resources[i] = out.Resources[i].Redacted()
	}
	out.Outputs = schema.RedactedOutputs(d.Outputs)
	return &out
}

// defaultTimeout is --timeout's default: compiling a project takes
// seconds; past this, something is wrong with the configuration.
const defaultTimeout = 10 * time.Minute

// registerLimits adds the limits of a compilation, --max-config-size and
// --timeout, to a command that compiles.
func registerLimits(fs *flag.FlagSet) {
	size := sizeFlag(compiler.DefaultMaxConfigSize)
	fs.Var(&size, "max-config-size", "refuse a configuration file larger than `SIZE` (bytes, or with KiB, MiB, GiB)")
	fs.Duration("timeout", defaultTimeout, "stop compiling after `DURATION`")
	mem := sizeFlag(compiler.DefaultMaxMemory())
	fs.Var(&mem, "max-memory", "stop compiling when it holds more than `SIZE` of memory; the default is a quarter of this machine's")
}

// compileLimits applies the command's --max-config-size, --max-memory
// and --timeout to the compilation of in.Path: the limits go into in,
// the deadline into the context returned (with the timeout, for
// messages). It also sets the collector's pacing for the compile
// (tuneCompileGC); the cancel returned puts it back.
func (e *env) compileLimits(in *compiler.Input) (context.Context, context.CancelFunc, time.Duration) {
	timeout := defaultTimeout
	if e.fs != nil {
		if f := e.fs.Lookup("max-config-size"); f != nil {
			if v, ok := f.Value.(*sizeFlag); ok && in.MaxConfigSize == 0 {
				in.MaxConfigSize = int64(*v)
			}
		}
		if f := e.fs.Lookup("max-memory"); f != nil {
			if v, ok := f.Value.(*sizeFlag); ok && in.MaxMemory == 0 {
				in.MaxMemory = int64(*v)
			}
		}
		if f := e.fs.Lookup("timeout"); f != nil {
			if g, ok := f.Value.(flag.Getter); ok {
				if d, ok := g.Get().(time.Duration); ok {
					timeout = d
				}
			}
		}
	}
	ctx, cancel := context.WithTimeout(e.ctx, timeout)
	restoreGC := tuneCompileGC(in.Path, in.MaxMemory)
	return ctx, func() { cancel(); restoreGC() }, timeout
}

// sizeFlag is a size in bytes, given as a number with an optional unit.
type sizeFlag int64

func (s *sizeFlag) String() string { return schema.FormatSize(int64(*s)) }

func (s *sizeFlag) Set(v string) error {
	t := strings.TrimSpace(v)
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000}, {"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > math.MaxInt64/mult {
		return fmt.Errorf("%q: want a size above 0, such as 64MiB", v)
	}
	*s = sizeFlag(n * mult)
	return nil
}
