// Command bench is cc's benchmark script (issue 13), run as .ci/bench: it
// runs cc against its floors and peers on the same generated projects,
// interleaved (A B C A B C ...), and prints Markdown tables of medians,
// ranges, ratios from the same run, peak RSS and the cost per resource,
// which BENCHMARKS.md quotes:
//
//   - compile: cue export vs cc compile of main.cue; internal/bench/hclfloor
//     (bare hcl/v2) vs cc compile of main.hcl;
//
//   - noop: cc plan of an applied project vs internal/bench/getstate, the
//     one state read it makes, as a process;
//
//   - hash: cc compiling a project that copies a ~1 GB tree vs
//     internal/bench/sha256floor with one and two workers;
//
//   - apply: every resource a create, on the embedded default vs on cc
//     server --sync full;
//
//   - memory: peak RSS per resource; and the linearity table across sizes.
//
//     .ci/bench -sizes 1000,10000 -rounds 5 -o /tmp/bench.md
//
// It is not part of .ci/test; go test ./internal/bench checks its pure
// parts and one tiny run.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"cc.dev/cc/internal/bench/host"
)

func main() { host.Main("bench", run) }

// renderer is one part of the output.
type renderer interface{ markdown(*strings.Builder) }

// run is the whole script: parse, build, measure the chosen paths, print.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	cfg, err := parseArgs(args, stderr)
	if err != nil {
		return err
	}
	root, err := findRoot()
	if err != nil {
		return err
	}
	r := &runner{cfg: cfg, env: childEnv(cfg.maxSize() / 100), progress: stderr, results: map[string]*result{}}
	if r.work, err = workDir(cfg.work); err != nil {
		return err
	}
	if cfg.work == "" {
		defer os.RemoveAll(r.work)
	}
	if cfg.profile != "" {
		if cfg.profile, err = filepath.Abs(cfg.profile); err == nil {
			err = os.MkdirAll(cfg.profile, 0o755)
		}
		if err != nil {
			return err
		}
	}
	m := describeMachine(ctx, root, args)
	m.ccBinary = cfg.cc
	defer func() {
		if werr := r.write(m, stdout); err == nil {
			err = werr
		}
	}()
	if err := r.buildAll(ctx, root); err != nil {
		return err
	}
	if err := r.findCue(ctx, root); err != nil {
		return err
	}
	m.cueBinary = r.bin.cueVersion
	if err := r.paths(ctx); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted: children and the server stopped (%w)", err)
		}
		return err
	}
	return nil
}

// paths runs the chosen paths in their fixed order.
func (r *runner) paths(ctx context.Context) error {
	steps := map[string]func(context.Context) error{
		"compile": r.compilePath, "noop": r.noopPath, "hash": r.hashPath, "apply": r.applyPath, "memory": r.memoryPath,
	}
	defer r.linearity()
	for _, p := range allPaths {
		if r.cfg.paths[p] {
			if err := steps[p](ctx); err != nil {
				return fmt.Errorf("%s path: %w", p, err)
			}
		}
	}
	return nil
}

// workDir is -work (made absolute and created) or a new temporary
// directory.
func workDir(dir string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "cc-bench-")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	return abs, os.MkdirAll(abs, 0o755)
}

// write prints the Markdown of what was measured (even when a path
// failed) to stdout, and to -o.
func (r *runner) write(m *machine, stdout io.Writer) error {
	m.loadAfter = host.LoadAvg()
	var b strings.Builder
	m.header(&b)
	for _, t := range r.tables {
		t.markdown(&b)
	}
	r.profilesMarkdown(&b)
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return err
	}
	if r.cfg.out != "" {
		return os.WriteFile(r.cfg.out, []byte(b.String()), 0o644)
	}
	return nil
}
