package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"cc.dev/cc/internal/bench/host"
)

// server is a cc server --sync full the apply path starts before each
// full-sync round and stops after it, on a fresh database.
type server struct {
	r     *runner
	addr  string
	dir   string
	cmd   *exec.Cmd
	log   *os.File
	round int
	// cpuprofile, when set, profiles the server of the next round.
	cpuprofile string
}

// start starts the server on a new database and waits until it accepts
// connections.
func (s *server) start(ctx context.Context) error {
	addr, err := host.FreeAddr()
	if err != nil {
		return err
	}
	s.round++
	db := filepath.Join(s.dir, fmt.Sprintf("round-%d", s.round), "state.db")
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		return err
	}
	if s.log, err = os.Create(filepath.Join(s.dir, "server.log")); err != nil {
		return err
	}
	args := []string{"server", "--sync", "full", "--listen", addr, "--db", db}
	if s.cpuprofile != "" {
		args = append(args, "--cpuprofile", s.cpuprofile)
	}
	s.cmd = exec.CommandContext(ctx, s.r.bin.cc, args...)
	s.cmd.Env, s.cmd.Stdout, s.cmd.Stderr = s.r.env, s.log, s.log
	s.cmd.Cancel = func() error { return s.cmd.Process.Signal(os.Interrupt) }
	s.cmd.WaitDelay = 10 * time.Second
	if err := s.cmd.Start(); err != nil {
		return err
	}
	s.addr = addr
	return s.wait(ctx)
}

// wait polls the address until the server accepts a connection.
func (s *server) wait(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", s.addr, time.Second); err == nil {
			c.Close()
			return nil
		}
		if s.cmd.ProcessState != nil || ctx.Err() != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	err := s.stop()
	return fmt.Errorf("cc server did not start listening on %s (%v); its log:\n%s", s.addr, err, indent(s.logTail(), "  "))
}

// stop interrupts the server, waits for it and removes its database.
func (s *server) stop() error {
	if s.cmd == nil {
		return nil
	}
	cmd := s.cmd
	s.cmd = nil
	defer s.log.Close()
	if err := cmd.Process.Signal(os.Interrupt); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("cc server: %v; its log:\n%s", err, indent(s.logTail(), "  "))
		}
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
		return errors.New("cc server did not stop within 30 s of SIGINT")
	}
	return os.RemoveAll(filepath.Join(s.dir, fmt.Sprintf("round-%d", s.round)))
}

// logTail is the end of the server's log.
func (s *server) logTail() string {
	b, _ := os.ReadFile(filepath.Join(s.dir, "server.log"))
	var t tailBuffer
	t.Write(b)
	return t.lines(15)
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
