package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// project is one client's generated project.
type project struct {
	name, dir string
	resources int
}

// writeProject generates client i's project of n resources in
// dir/NAME: compiler/workload's project, its content varied by i, under
// its own project name.
func writeProject(dir string, i, n int) (project, error) {
	p := project{name: fmt.Sprintf("load-%02d", i), resources: n}
	p.dir = filepath.Join(dir, p.name)
	if err := workload.Write(p.dir, workload.Options{N: n, Seed: i}); err != nil {
		return p, err
	}
	file := filepath.Join(p.dir, "main.hcl")
	src, err := os.ReadFile(file)
	if err != nil {
		return p, err
	}
	old := []byte(`project = "workload"`)
	if !bytes.Contains(src, old) {
		return p, fmt.Errorf("%s: no %s to rename", file, old)
	}
	src = bytes.Replace(src, old, []byte(fmt.Sprintf("project = %q", p.name)), 1)
	return p, os.WriteFile(file, src, 0o644)
}

// outcome is what one client did.
type outcome struct {
	project string
	// apply is the client's own time planning, applying under the lock
	// and releasing it.
	apply time.Duration
	// changes is how many changes the first plan had; unchanged how many
	// resources the second plan found unchanged.
	changes, unchanged int
	converged          bool
	err                error
	desired            *schema.Desired
}

// secretValue is the value of every secret of the generated projects
// (from_env KEY_n): a fixed stand-in, never printed.
func secretValue(name string) (string, bool) { return "load-generator-value-of-" + name, true }

// compileClient compiles p, as cc apply does before it talks to the
// service.
func compileClient(ctx context.Context, p project) outcome {
	out := outcome{project: p.name}
	res, err := compiler.Compile(ctx, compiler.Input{Path: filepath.Join(p.dir, "main.hcl")})
	if err != nil {
		out.err = fmt.Errorf("compile %s: %w", p.name, err)
		return out
	}
	out.desired = res.Desired
	return out
}

// applyClient applies the compiled project of out through the service at
// applyAddr, then plans it again through checkAddr: converged when that
// plan has no changes and every one of its n resources unchanged. Every
// call goes through rec.
func applyClient(ctx context.Context, out *outcome, n int, applyAddr, checkAddr string, parallelism int, rec *recorder) {
	d := out.desired
	start := time.Now()
	var err error
	if out.changes, err = applyOnce(ctx, d, applyAddr, parallelism, rec); err != nil {
		out.err = fmt.Errorf("apply %s through %s: %w", out.project, applyAddr, err)
		return
	}
	out.apply = time.Since(start)
	plan, err := planOnce(ctx, d, checkAddr, rec)
	if err != nil {
		out.err = fmt.Errorf("plan %s again through %s: %w", out.project, checkAddr, err)
		return
	}
	out.unchanged = plan.Summary.Unchanged
	out.converged = !plan.Changed() && plan.Summary.Unchanged == n
}

// dial opens a client of the service at addr whose calls rec times.
func dial(addr string, rec *recorder) (*service.Client, error) {
	return service.Dial(addr, service.WithGRPCOptions(rec.dialOptions()...))
}

// newApplier is an applier as cc apply makes one, reading the generated
// projects' secret values from secretValue.
func newApplier(c *service.Client, d *schema.Desired, parallelism int) (*applier.Applier, error) {
	return applier.New(c,
		applier.WithParallelism(parallelism),
		applier.WithLockTimeout(time.Minute),
		applier.WithHolder(service.CurrentHolder("cc load")),
		applier.WithSecrets(applier.LocalSecrets{Root: d.Root, LookupEnv: secretValue}))
}

// applyOnce plans d, and applies the plan under the project's lock (as
// cc apply --auto-approve does), returning how many changes it made.
func applyOnce(ctx context.Context, d *schema.Desired, addr string, parallelism int, rec *recorder) (int, error) {
	c, err := dial(addr, rec)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	a, err := newApplier(c, d, parallelism)
	if err != nil {
		return 0, err
	}
	p, _, err := a.Plan(ctx, d, planner.Options{})
	if err != nil {
		return 0, err
	}
	lk, err := a.Lock(ctx, d.Project)
	if err != nil {
		return 0, err
	}
	r, err := applyLocked(ctx, a, lk, d, p)
	if rerr := lk.Release(); err == nil && rerr != nil {
		err = fmt.Errorf("release the lock: %w", rerr)
	}
	if err != nil {
		return 0, err
	}
	return len(r.Changes), nil
}

// applyLocked plans again when another apply came between plan p and
// the lock, and carries the plan out.
func applyLocked(ctx context.Context, a *applier.Applier, lk *applier.Lock, d *schema.Desired, p *planner.Plan) (*planner.Plan, error) {
	var err error
	if lk.Serial() != p.Serial {
		if p, _, err = a.Plan(ctx, d, planner.Options{}); err != nil {
			return nil, err
		}
	}
	if err := applier.MissingSecretValues(p, d, applier.LocalSecrets{Root: d.Root, LookupEnv: secretValue}); err != nil {
		return nil, err
	}
	return p, a.Apply(ctx, lk, p, d).Err()
}

// planOnce plans d through the service at addr: one state read.
func planOnce(ctx context.Context, d *schema.Desired, addr string, rec *recorder) (*planner.Plan, error) {
	c, err := dial(addr, rec)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	a, err := newApplier(c, d, 1)
	if err != nil {
		return nil, err
	}
	p, _, err := a.Plan(ctx, d, planner.Options{})
	return p, err
}
