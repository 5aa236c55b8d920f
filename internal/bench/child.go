package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"time"
)

// cmdSpec is one command a path measures.
type cmdSpec struct {
	// id names it in the memory and linearity tables and profile files:
	// "compile-hcl", "plan-hcl", ...
	id string
	// label is the command as the tables show it (Markdown).
	label string
	argv  []string
	dir   string
	// resources is the size of the project, for the per-resource cost.
	resources int
	// cc marks a cc command, profiled with -profile.
	cc bool
	// prepare and cleanup run, untimed, before and after each run.
	prepare func(ctx context.Context) error
	cleanup func() error
	// alsoProfile, when set, has a process other than the child (the
	// server) write a CPU profile to path on the next run ("" stops it),
	// and names that process.
	alsoProfile func(path string) string
}

// runner runs children for the paths.
type runner struct {
	cfg      *config
	env      []string
	progress io.Writer
	work     string
	bin      binaries
	// results are every measured command, by resultKey (size/id), for
	// the memory and linearity tables.
	results  map[string]*result
	tables   []renderer
	profiles []profileTop
}

// measure runs specs in interleaved rounds (A B C A B C ...), after one
// untimed warm-up round when warmup is set (the page cache, and cc's own
// caches for the commands measured warm).
func (r *runner) measure(ctx context.Context, what string, specs []cmdSpec, rounds int, warmup bool) ([]*result, error) {
	out := make([]*result, len(specs))
	for i, s := range specs {
		out[i] = &result{spec: s}
	}
	if warmup {
		fmt.Fprintf(r.progress, "bench: %s, warm-up round\n", what)
		for _, s := range specs {
			if _, err := r.runOnce(ctx, s); err != nil {
				return nil, err
			}
		}
	}
	for round := 1; round <= rounds; round++ {
		fmt.Fprintf(r.progress, "bench: %s, round %d of %d\n", what, round, rounds)
		for i, s := range specs {
			smp, err := r.runOnce(ctx, s)
			if err != nil {
				return nil, err
			}
			out[i].samples = append(out[i].samples, smp)
		}
	}
	return out, nil
}

// runOnce prepares, runs and cleans up s once; extra arguments go after
// the subcommand (argv[1]).
func (r *runner) runOnce(ctx context.Context, s cmdSpec, extra ...string) (smp sample, err error) {
	if s.prepare != nil {
		if err := s.prepare(ctx); err != nil {
			return sample{}, fmt.Errorf("%s: prepare: %w", s.label, err)
		}
	}
	if s.cleanup != nil {
		defer func() {
			if cerr := s.cleanup(); err == nil && cerr != nil {
				err = fmt.Errorf("%s: %w", s.label, cerr)
			}
		}()
	}
	argv := s.argv
	if len(extra) > 0 {
		argv = slices.Concat(argv[:2], extra, argv[2:])
	}
	return r.child(ctx, s.label, s.dir, argv)
}

// child runs argv in dir with the bench's environment, stdout discarded,
// within the timeout; a failure carries the tail of its stderr.
func (r *runner) child(ctx context.Context, label, dir string, argv []string) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, r.env
	var tail tailBuffer
	cmd.Stderr = &tail
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if err != nil {
		why := err.Error()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			why = fmt.Sprintf("timed out after %s", r.cfg.timeout)
		}
		return sample{}, &childError{label: label, argv: argv, why: why, tail: tail.lines(15)}
	}
	smp := sample{wall: wall}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		smp.rssKiB = ru.Maxrss
	}
	return smp, nil
}

// childError is a child that failed, with the end of what it said.
type childError struct {
	label, why string
	argv       []string
	tail       string
}

func (e *childError) Error() string {
	return fmt.Sprintf("%s failed: %s\n  command: %s\n  stderr (tail):\n%s", e.label, e.why, strings.Join(e.argv, " "), indent(e.tail, "    "))
}

func indent(s, prefix string) string {
	if s == "" {
		return prefix + "(nothing)"
	}
	return prefix + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// tailBuffer keeps the last 16 KiB written to it.
type tailBuffer struct{ b []byte }

const tailMax = 16 << 10

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > tailMax {
		t.b = append(t.b[:0], t.b[len(t.b)-tailMax:]...)
	}
	return len(p), nil
}

// lines is the last n lines.
func (t *tailBuffer) lines(n int) string {
	ls := strings.Split(strings.TrimRight(string(t.b), "\n"), "\n")
	if len(ls) > n {
		ls = ls[len(ls)-n:]
	}
	return strings.Join(ls, "\n")
}

// childEnv is the bench's environment for children: the workload's
// secrets KEY_0 ... KEY_{secrets-1} set, and nothing that would point cc
// elsewhere (CC_SERVER, CC_TOKEN) or profile every run.
func childEnv(secrets int) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "CC_SERVER", k == "CC_TOKEN", k == "CC_CPUPROFILE", k == "CC_MEMPROFILE":
		case strings.HasPrefix(k, "KEY_"):
		default:
			env = append(env, kv)
		}
	}
	for i := range max(secrets, 100) {
		env = append(env, fmt.Sprintf("KEY_%d=bench-secret-%d", i, i))
	}
	return env
}
