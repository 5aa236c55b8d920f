package compiler

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// Input is what to compile.
type Input struct {
	// Path is a project directory or one .cue or .hcl file; "" means ".".
	// The project root is the directory, or the file's directory.
	Path string
	// Vars are HCL variable values, "name=value", as -var gives them.
	Vars []string
	// VarFiles are HCL files of variable values, as -var-file gives them.
	VarFiles []string
	// Offline makes a floating base image reference that cc.lock does not
	// pin an error instead of a warning.
	Offline bool
	// MaxConfigSize limits the size of each configuration file (and
	// -var-file); 0 means DefaultMaxConfigSize. A larger file is an error
	// before it is read.
	MaxConfigSize int64
	// MaxMemory limits the heap while compiling (of the whole process:
	// it is sampled); 0 means DefaultMaxMemory, below 0 no limit.
	MaxMemory int64
	// UnknownVariables makes an HCL variable with no value and no default
	// an unknown value of its type instead of an error, as terraform
	// validate does (cc validate sets it): a check that meets an unknown
	// value skips it (the diagnostics inside an expression whose value was
	// not known are dropped). The desired state of such a compilation is
	// not for planning: unknown fields hold placeholders, and it is nil
	// when a skipped check stopped compilation early. plan and apply
	// leave it false, so they still require every variable.
	UnknownVariables bool
	// Schema is the schema to compile against; nil means the embedded one
	// (schema.Default). The desired state carries it to the planner.
	Schema *schema.Schema
	// Env is the environment to compile for (cc's --env), a lowercase DNS
	// label; "" is the default environment. An HCL project reads the
	// variable file env/ENV.ccvars.hcl of its root (refused when env/
	// exists without that file) and sees it as env.name ("" by default);
	// a CUE project gets it as the tag env (@tag(env)) when it declares
	// one. It is no part of the desired state (environments.go).
	Env string
	// Tags are CUE tag values, "key=value" or a boolean tag "name", as
	// cue's -t gives them (cue/load Config.Tags); an error for HCL.
	Tags []string
	// EnvVars are CC_VAR_name=value pairs (EnvVarsOf) setting HCL
	// variables below every other source; undeclared names are ignored.
	EnvVars []string
	// CacheDir is the directory of the compile cache and the stat cache
	// of local inputs (cache.go; cc uses the project's .cc/cache); ""
	// means neither. It is used only with the embedded schema (Schema
	// nil), and a directory that cannot be written is no cache.
	CacheDir string
	// SealDir, with CacheDir, is a directory of the user's own, out of
	// the project (cc uses the user's cache directory, ~/.cache/cc),
	// holding the key that encrypts a cached compilation with sensitive
	// values (cachesealed.go); "" means such a compilation is not
	// cached.
	SealDir string
}

// DefaultMaxConfigSize is the default limit on a configuration file's
// size (cc's --max-config-size).
const DefaultMaxConfigSize = 64 << 20

// Result is a compiled project.
type Result struct {
	Desired *schema.Desired
	// Lang is "cue" or "hcl".
	Lang string
	// Files holds the configuration sources by display name, for snippets
	// in diagnostics.
	Files map[string][]byte
	// Warnings are problems that do not stop compilation.
	Warnings diag.Diagnostics
	// Unlocked lists base image references that cc.lock does not pin.
	Unlocked []string
	// Project is the project's name: Desired.Project, and also, with
	// Input.UnknownVariables, when a skipped check left no desired state
	// (issue 12: commands that need only the name, like cc state list).
	// Empty when the name itself depends on an unknown variable.
	Project string
}

// Compile compiles the project at in.Path. A problem in the configuration
// is returned as a *Error holding positioned diagnostics; anything else
// (an unreadable directory, say) as a plain error.
//
// Compile ends when ctx does: with a *DeadlineError that says what it was
// doing, at once, while the work still under way is told to stop (HCL
// evaluation gives unknown values from then on, hashing and compiling
// stop between files and resources). It ends the same way, with a
// *MemoryError, when the heap passes in.MaxMemory. CUE evaluation cannot
// be told to stop: a program that gets either error should exit soon.
func Compile(ctx context.Context, in Input) (*Result, error) {
	tr := &tracker{}
	tr.set("locating the project")
	type out struct {
		res      *Result
		err      error
		panicked any
	}
	ch := make(chan out, 1)
	go func() {
		// A panic (a bug in cc) is the caller's, as it was before
		// compilation ran on its own goroutine.
		defer func() {
			if r := recover(); r != nil {
				ch <- out{panicked: r}
			}
		}()
		res, err := compile(ctx, in, tr)
		ch <- out{res: res, err: err}
	}()
	var memErr <-chan error
	if in.MaxMemory >= 0 {
		limit := in.MaxMemory
		if limit == 0 {
			limit = DefaultMaxMemory()
		}
		done := make(chan struct{})
		defer close(done)
		memErr = watchMemory(limit, tr, done)
	}
	select {
	case o := <-ch:
		if o.panicked != nil {
			panic(o.panicked)
		}
		return o.res, o.err
	case err := <-memErr:
		return nil, err
	case <-ctx.Done():
		tr.stop()
		return nil, &DeadlineError{Doing: tr.get(), Err: ctx.Err()}
	}
}

// DeadlineError: compilation was stopped by its context (cc's --timeout)
// before it ended. Doing says what it was doing then.
type DeadlineError struct {
	Doing string
	Err   error
}

func (e *DeadlineError) Error() string {
	return fmt.Sprintf("compilation stopped while %s: %v", e.Doing, e.Err)
}

func (e *DeadlineError) Unwrap() error { return e.Err }

// tracker records what compilation is doing, for a DeadlineError, and
// tells the work to stop.
type tracker struct {
	mu      sync.Mutex
	doing   string
	stopped atomic.Bool
	onStop  []func()
}

func (t *tracker) set(doing string) {
	if t == nil {
		return
	}
	t.mu.Lock()
	t.doing = doing
	t.mu.Unlock()
}

func (t *tracker) setf(format string, args ...any) {
	if t == nil {
		return
	}
	t.set(fmt.Sprintf(format, args...))
}

func (t *tracker) get() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.doing
}

// stop marks the compilation stopped and runs what was registered to
// stop work under way.
func (t *tracker) stop() {
	t.mu.Lock()
	fns := t.onStop
	t.onStop = nil
	t.mu.Unlock()
	t.stopped.Store(true)
	for _, f := range fns {
		f()
	}
}

// whenStopped registers f to run when the compilation is stopped (at
// once, if it already is).
func (t *tracker) whenStopped(f func()) {
	if t == nil {
		return
	}
	t.mu.Lock()
	if !t.stopped.Load() {
		t.onStop = append(t.onStop, f)
		t.mu.Unlock()
		return
	}
	t.mu.Unlock()
	f()
}

// isStopped reports whether the compilation was stopped.
func (t *tracker) isStopped() bool { return t != nil && t.stopped.Load() }

// beforeCompile, when set (by tests), runs first in compile.
var beforeCompile func(Input)

// openProject finds the project of in.Path and sets what the compile of
// it takes from in: the schema, the environment and unknown variables.
func openProject(in Input, tr *tracker) (*project, error) {
	maxSize := in.MaxConfigSize
	if maxSize <= 0 {
		maxSize = DefaultMaxConfigSize
	}
	p, err := locate(in.Path, maxSize, in.VarFiles...)
	if err != nil {
		return nil, err
	}
	p.track = tr
	p.sch = in.Schema
	if err := p.useEnvironment(in); err != nil {
		return nil, err
	}
	p.unknownVars = in.UnknownVariables
	return p, nil
}

// loadConfig evaluates the project's configuration in its language.
func loadConfig(ctx context.Context, p *project, in Input) (*loaded, diag.Diagnostics, error) {
	if p.lang != "cue" {
		ld, ds := loadHCL(ctx, p, in.Vars, in.VarFiles)
		return ld, ds, nil
	}
	if len(in.Vars) > 0 || len(in.VarFiles) > 0 {
		return nil, nil, errors.New("--var and --var-file apply to HCL projects; a CUE project sets values in CUE, or injects them with -t key=value into @tag(key) attributes")
	}
	ld, ds := loadCUE(ctx, p)
	return ld, ds, nil
}

func compile(ctx context.Context, in Input, tr *tracker) (*Result, error) {
	if beforeCompile != nil {
		beforeCompile(in)
	}
	p, err := openProject(in, tr)
	if err != nil {
		return nil, err
	}
	if cacheRaceHook != nil {
		cacheRaceHook("located")
	}
	cache := openCompileCache(in, p)
	if res := cache.lookup(in, p); res != nil {
		cache.stat.save()
		cache.close()
		return res, nil
	}
	if cacheRaceHook != nil {
		cacheRaceHook("keyed")
	}
	res, err := compileProject(ctx, in, p, tr)
	cache.finish(in, res, err, p)
	return res, err
}

// cacheRaceHook, when set (by tests), runs once the project is located
// ("located", before its cache key is made) and once the cache missed
// ("keyed", before the compilation reads the configuration).
var cacheRaceHook func(stage string)

// compileProject compiles the located project p.
func compileProject(ctx context.Context, in Input, p *project, tr *tracker) (*Result, error) {
	res := &Result{Lang: p.lang, Files: map[string][]byte{}}
	fail := func(ds diag.Diagnostics) (*Result, error) {
		return res, &Error{Diagnostics: p.scrub(ds).Sort().Limit(diag.MaxShown), Files: res.Files}
	}

	ld, ds, err := loadConfig(ctx, p, in)
	if err != nil {
		return nil, err
	}
	for name, b := range p.sources {
		res.Files[name] = b
	}
	ds = p.skipUnknown(ds)
	if ds.HasErrors() {
		return fail(ds)
	}
	if ld == nil {
		// Every error was a check of an unknown value, skipped
		// (UnknownVariables): nothing more to check.
		res.Warnings = p.scrub(ds)
		res.Project = p.name
		return res, nil
	}
	res.Warnings = append(res.Warnings, ds...)
	p.noteSensitiveRanges(ld.loc, ld.sensitive)

	var cfg schema.Config
	if ld.cfg != nil {
		cfg = *ld.cfg
	} else if err := decodeConfig(ld.json, &cfg); err != nil {
		// The schema admitted something the Go types cannot hold: a bug
		// in cc, not in the user's configuration.
		return nil, fmt.Errorf("internal error: decoding validated configuration: %w", err)
	}
	if p.lang == "cue" && ld.cfg == nil {
		markAllCUERefs(&cfg, ld.user)
		markAllDefaultCUERefs(&cfg, ld.defaults)
	}
	if p.lang == "cue" {
		if ds := dropBuiltinImages(&cfg, ld.loc); ds.HasErrors() {
			return fail(ds)
		}
	}
	tr.set("checking the rules that span fields")
	ds = append(check(&cfg, ld.loc), checkImages(&cfg, ld.loc)...)
	if ds := p.skipUnknown(append(ds, checkLifecycles(&cfg, ld.loc, p.schema(), ld.sensitive)...)); ds.HasErrors() {
		return fail(ds)
	}
	lock, err := readLock(p.root)
	if err != nil {
		return fail(diag.Diagnostics{diag.Errorf(&diag.Range{File: p.display(p.root + "/" + schema.LockFile)}, "%v", err)})
	}
	b := newBuilder(p, ld, lock, in.Offline)
	d, ds := b.build(&cfg)
	if tr.isStopped() {
		return nil, &DeadlineError{Doing: tr.get(), Err: ctx.Err()}
	}
	ds = p.skipUnknown(ds)
	res.Warnings = append(res.Warnings, ds...)
	if ds.HasErrors() {
		return fail(ds)
	}
	d.Outputs = ld.outputs
	res.Desired, res.Project = d, d.Project
	if p.unknownVars && p.name == "" && p.lang != "cue" {
		res.Project = "" // a placeholder for an unknown name
	}
	res.Warnings = p.scrub(res.Warnings)
	res.Unlocked = p.scrubStrings(b.unlocked())
	return res, nil
}

// Error is a configuration error: diagnostics, and the sources they point
// into so they can be shown with snippets.
type Error struct {
	Diagnostics diag.Diagnostics
	Files       map[string][]byte
}

func (e *Error) Error() string { return e.Diagnostics.Error() }

// Unwrap gives the diagnostics to errors.As.
func (e *Error) Unwrap() error { return e.Diagnostics }
