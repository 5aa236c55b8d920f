package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
)

// applyOnce applies the project in dir on a fresh embedded default (its
// .cc removed first) and checks that a plan is then a no-op
// (--detailed-exitcode: exit 2 would mean changes).
func (r *runner) applyOnce(ctx context.Context, n int, dir string) error {
	if err := os.RemoveAll(filepath.Join(dir, ".cc")); err != nil {
		return err
	}
	fmt.Fprintf(r.progress, "bench: applying %s resources once\n", commas(n))
	if _, err := r.child(ctx, "`cc apply --auto-approve main.hcl` (setup)", dir, []string{r.bin.cc, "apply", "--auto-approve", "main.hcl"}); err != nil {
		return err
	}
	_, err := r.child(ctx, "`cc plan --detailed-exitcode main.hcl` (the plan after the apply must be a no-op)", dir, []string{r.bin.cc, "plan", "--detailed-exitcode", "main.hcl"})
	return err
}

// noopSpecs are the no-op path's commands: the one state read as its own
// process, and cc plan of both languages.
func (r *runner) noopSpecs(n int, dir string) []cmdSpec {
	specs := []cmdSpec{
		{id: "getstate", label: "`getstate`", argv: []string{r.bin.getstate, "-project", "workload", dir}, dir: dir, resources: n},
		r.ccSpec("plan-hcl", n, dir, "plan", "main.hcl"),
		r.ccSpec("plan-cue", n, dir, "plan", "main.cue"),
	}
	if r.bin.noCachePlan {
		specs = append(specs, r.ccSpec("plan-hcl-nocache", n, dir, "plan", "--no-cache", "main.hcl"))
	}
	return specs
}

// noopPath measures the no-op plan against its one state read.
func (r *runner) noopPath(ctx context.Context) error {
	for _, n := range r.cfg.sizes {
		dir, err := r.project(n)
		if err != nil {
			return err
		}
		if err := r.applyOnce(ctx, n, dir); err != nil {
			return err
		}
		specs := r.noopSpecs(n, dir)
		res, err := r.measure(ctx, fmt.Sprintf("no-op plan %s", commas(n)), specs, r.cfg.rounds, true)
		if err != nil {
			return err
		}
		r.keep(n, res)
		r.tables = append(r.tables, &table{title: fmt.Sprintf("No-op plan, %s resources", commas(n)), rows: res, bases: res[:1],
			notes: []string{"The project applied once on the embedded default, one untimed warm-up round, then the commands in turn. `getstate` is internal/bench/getstate: open the same .cc/state.db as cc does and make the one GetState call a plan makes, as a process."}})
		if err := r.profileSpecs(ctx, n, specs); err != nil {
			return err
		}
	}
	return nil
}
