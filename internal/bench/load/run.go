package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// run is the whole generator: parse, build, generate, measure, print.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) (err error) {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	// A password in the PostgreSQL URL is never printed, even when a
	// server's log quotes the URL.
	defer func() { err = scrub(err, cfg.postgres) }()
	work, err := os.MkdirTemp("", "cc-load-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	m := describeMachine(ctx, cfg)
	cc := cfg.cc
	if cc == "" {
		fmt.Fprintln(stderr, "load: building cc")
		if cc, err = buildCC(ctx, work); err != nil {
			return err
		}
	}
	projects, err := writeProjects(filepath.Join(work, "projects"), cfg.clients, cfg.resources)
	if err != nil {
		return err
	}
	results, err := measureAll(ctx, cfg, cc, work, projects, stderr)
	if err != nil {
		return err
	}
	var b strings.Builder
	m.finish()
	writeReport(&b, cfg, m, results)
	if _, err := io.WriteString(stdout, b.String()); err != nil {
		return err
	}
	if cfg.out != "" {
		if err := os.WriteFile(cfg.out, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	return notConverged(results)
}

// buildCC builds cc from this module into dir.
func buildCC(ctx context.Context, dir string) (string, error) {
	bin := filepath.Join(dir, "cc")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "cc.dev/cc/cmd/cc")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build cc.dev/cc/cmd/cc: %v\n%s", err, out)
	}
	return bin, nil
}

// writeProjects generates one project per client.
func writeProjects(dir string, clients, resources int) ([]project, error) {
	var out []project
	for i := range clients {
		p, err := writeProject(dir, i, resources)
		if err != nil {
			return nil, fmt.Errorf("generate project %d: %w", i, err)
		}
		out = append(out, p)
	}
	return out, nil
}

// round is one setup's measurement in one round.
type round struct {
	setup   string
	servers int
	// compileWall is the time of the compile phase, wall that of the
	// apply phase, from the first call to the last client's end.
	compileWall, wall time.Duration
	calls             calls
	outcomes          []outcome
}

// measureAll runs every round, the setups interleaved within each (in
// -setups order, reversed every other round so neither always goes
// first), each on fresh servers and a fresh database.
func measureAll(ctx context.Context, cfg *config, cc, work string, projects []project, stderr io.Writer) (map[string][]*round, error) {
	results := map[string][]*round{}
	for i := range cfg.rounds {
		order := cfg.setups
		if i%2 == 1 {
			order = reversed(order)
		}
		for _, name := range order {
			fmt.Fprintf(stderr, "load: round %d/%d: %s, %d clients x %d resources\n", i+1, cfg.rounds, name, cfg.clients, cfg.resources)
			r, err := measure(ctx, cfg, cc, filepath.Join(work, fmt.Sprintf("%s-%d", name, i)), name, projects)
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", i+1, name, err)
			}
			results[name] = append(results[name], r)
		}
	}
	return results, nil
}

func reversed(xs []string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[len(xs)-1-i] = x
	}
	return out
}

// measure runs one round of a setup: every client compiles its project
// at once; then, on the setup's fresh servers, every client applies at
// once (client i through server i mod n, its second plan through the
// next one), and the servers are stopped.
func measure(ctx context.Context, cfg *config, cc, dir, name string, projects []project) (r *round, err error) {
	r = &round{setup: name, outcomes: make([]outcome, len(projects))}
	start := time.Now()
	eachClient(len(projects), func(i int) { r.outcomes[i] = compileClient(ctx, projects[i]) })
	r.compileWall = time.Since(start)
	d, err := deploy(ctx, cfg, cc, name, dir)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, d.stop(ctx)) }()
	addrs := d.addrs()
	r.servers = len(addrs)
	rec := newRecorder()
	start = time.Now()
	eachClient(len(projects), func(i int) {
		if o := &r.outcomes[i]; o.err == nil {
			applyClient(ctx, o, cfg.resources, addrs[i%len(addrs)], addrs[(i+1)%len(addrs)], cfg.parallelism, rec)
		}
	})
	r.wall = time.Since(start)
	r.calls = rec.snapshot()
	return r, ctx.Err()
}

// eachClient runs f(0) ... f(n-1) at once and waits for them.
func eachClient(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i)
		}()
	}
	wg.Wait()
}

// notConverged is an error naming the projects that failed or did not
// converge, in any round.
func notConverged(results map[string][]*round) error {
	var errs []error
	for _, name := range knownSetups {
		for i, r := range results[name] {
			for _, o := range r.outcomes {
				switch {
				case o.err != nil:
					errs = append(errs, fmt.Errorf("%s, round %d: %w", name, i+1, o.err))
				case !o.converged:
					errs = append(errs, fmt.Errorf("%s, round %d: project %s did not converge: the second plan found %d of its resources unchanged", name, i+1, o.project, o.unchanged))
				}
			}
		}
	}
	return errors.Join(errs...)
}
