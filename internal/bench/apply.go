package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"cc.dev/cc/internal/bench/host"
)

// server is a cc server --sync full the apply path starts before each
// full-sync round and stops after it, on a fresh database.
type server struct {
	r     *runner
	addr  string
	dir   string
	proc  *host.Server
	round int
	// cpuprofile, when set, profiles the server of the next round.
	cpuprofile string
}

// start starts the server on a new database and waits until it accepts
// connections.
func (s *server) start(ctx context.Context) error {
	s.round++
	db, err := filepath.Abs(filepath.Join(s.dir, fmt.Sprintf("round-%d", s.round), "state.db"))
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		return err
	}
	cc, err := filepath.Abs(s.r.bin.cc)
	if err != nil {
		return err
	}
	args := []string{"--sync", "full", "--db", db}
	if s.cpuprofile != "" {
		prof, err := filepath.Abs(s.cpuprofile)
		if err != nil {
			return err
		}
		args = append(args, "--cpuprofile", prof)
	}
	if s.proc, err = host.StartServer(ctx, cc, filepath.Join(s.dir, "server.log"), s.r.env, args...); err != nil {
		return err
	}
	s.addr = s.proc.Addr
	return nil
}

// stop interrupts the server, waits for it and removes its database.
func (s *server) stop() error {
	if s.proc == nil {
		return nil
	}
	p := s.proc
	s.proc = nil
	if err := p.Stop(); err != nil {
		return err
	}
	return os.RemoveAll(filepath.Join(s.dir, fmt.Sprintf("round-%d", s.round)))
}

// applySpecs are the apply path's commands: every resource a create, on a
// fresh embedded default and on a fresh cc server --sync full. Both remove
// the project's .cc first, so both compile cold.
func (r *runner) applySpecs(n int, dir string, srv *server) []cmdSpec {
	fresh := func(context.Context) error { return os.RemoveAll(filepath.Join(dir, ".cc")) }
	embedded := r.ccSpec("apply-embedded", n, dir, "apply", "--auto-approve", "main.hcl")
	embedded.prepare = fresh
	full := r.ccSpec("apply-full", n, dir, "apply", "--auto-approve", "--server", "ADDR", "main.hcl")
	full.label = "`cc apply --auto-approve --server ADDR main.hcl` (`cc server --sync full`)"
	full.prepare = func(ctx context.Context) error {
		if err := fresh(ctx); err != nil {
			return err
		}
		if err := srv.start(ctx); err != nil {
			return err
		}
		full.argv[4] = srv.addr
		return nil
	}
	full.cleanup = srv.stop
	full.alsoProfile = func(path string) string {
		srv.cpuprofile = path
		return "the `cc server --sync full` it applied to"
	}
	return []cmdSpec{embedded, full}
}

// applyPath measures applies of every size's creates, embedded default
// against a cc server --sync full.
func (r *runner) applyPath(ctx context.Context) error {
	for _, n := range r.cfg.sizes {
		dir, err := r.project(n)
		if err != nil {
			return err
		}
		srv := &server{r: r, dir: filepath.Join(r.work, fmt.Sprintf("server-%d", n))}
		defer srv.stop()
		specs := r.applySpecs(n, dir, srv)
		res, err := r.measure(ctx, fmt.Sprintf("apply %s", commas(n)), specs, r.cfg.applyRounds, false)
		if err != nil {
			return err
		}
		r.keep(n, res)
		r.tables = append(r.tables, &table{title: fmt.Sprintf("Apply, %s creates", commas(n)), rows: res, bases: res[:1],
			notes: []string{"Each round on a fresh state: the project's .cc removed, and for `--sync full` a new database of a `cc server` started before the round and stopped after it (its own memory not counted)."}})
		if err := r.profileSpecs(ctx, n, specs); err != nil {
			return err
		}
	}
	return nil
}
