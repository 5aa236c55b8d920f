package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"cc.dev/cc/compiler"
	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// stringList is a repeatable flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// compileFlags are the flags of every command that compiles a project.
type compileFlags struct {
	vars     stringList
	varFiles stringList
	// tags are CUE's -t values (environments.go).
	tags stringList
	json bool
}

func (f *compileFlags) register(fs *flag.FlagSet) {
	fs.Var(&f.vars, "var", "set an HCL variable, `name=value` (repeatable)")
	fs.Var(&f.varFiles, "var-file", "read HCL variable values from `FILE` (repeatable)")
	registerTags(fs, &f.tags)
	registerLimits(fs)
	registerNoCache(fs)
}

// compile compiles the project at path and prints its diagnostics. It
// returns the result and -1, or nil and the exit code to return.
func (e *env) compile(c *command, path string, in compiler.Input, jsonDiags bool) (*compiler.Result, int) {
	in.Path = path
	if in.CacheDir == "" {
		in.CacheDir = e.cacheDir(c, path)
	}
	if in.CacheDir != "" && in.SealDir == "" {
		in.SealDir = e.sealDir()
	}
	ctx, cancel, timeout := e.compileLimits(&in)
	defer cancel()
	res, err := compiler.Compile(ctx, in)
	var cerr *compiler.Error
	if errors.As(err, &cerr) {
		e.printDiagnostics(cerr.Diagnostics, cerr.Files, jsonDiags)
		return nil, exitError
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "cc %s: %s\n", c.name, compileFailure(err, timeout))
		return nil, exitError
	}
	if len(res.Warnings) > 0 {
		e.printDiagnostics(res.Warnings, res.Files, jsonDiags)
	}
	return res, -1
}

// compileFailure says what went wrong in a compilation that failed with
// an error other than a *compiler.Error's diagnostics.
func compileFailure(err error, timeout time.Duration) string {
	var de *compiler.DeadlineError
	if errors.As(err, &de) && errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("compiling took longer than %v, the --timeout limit, and was stopped while %s; raise it with --timeout", timeout, de.Doing)
	}
	var me *compiler.MemoryError
	if errors.As(err, &me) {
		return fmt.Sprintf("%v; raise it with --max-memory", err)
	}
	return err.Error()
}

func (e *env) printDiagnostics(ds diag.Diagnostics, files map[string][]byte, asJSON bool) {
	if e.ui != nil {
		// cc apply --json: as events too (issue 12).
		e.ui.configDiagnostics(ds)
	}
	if asJSON {
		diag.WriteJSON(e.stderr, ds)
		return
	}
	diag.WriteText(e.stderr, ds, func(name string) []byte {
		if b, ok := files[name]; ok {
			return b
		}
		b, _ := schema.ReadRegular(name, compiler.DefaultMaxConfigSize)
		return b
	})
}

// pathArg returns the single optional PATH argument.
func (e *env) pathArg(c *command, fs *flag.FlagSet) (string, int) {
	switch fs.NArg() {
	case 0:
		return ".", -1
	case 1:
		return fs.Arg(0), -1
	}
	return "", e.usageError(c, "want at most one PATH, got %d arguments", fs.NArg())
}
