package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"time"
)

// machine is what the output says of the machine and the code measured.
type machine struct {
	started              time.Time
	model, goVersion     string
	commit, loadBefore   string
	loadAfter, cueBinary string
	args                 []string
	// ccBinary is -cc, when given: the commit is then only the source
	// tree's, not necessarily the binary's.
	ccBinary string
}

// describeMachine reads the machine before the runs.
func describeMachine(ctx context.Context, root string, args []string) *machine {
	m := &machine{started: time.Now(), model: cpuModel(), loadBefore: loadAvg(), args: args}
	m.goVersion, _ = goCmd(ctx, root, nil, "version")
	m.commit = gitCommit(ctx, root)
	return m
}

// header is the Markdown the output starts with.
func (m *machine) header(b *strings.Builder) {
	fmt.Fprintf(b, "## Benchmarks (`.ci/bench %s`)\n\n", strings.Join(m.args, " "))
	fmt.Fprintf(b, "- machine: %d cores (nproc), %s\n", runtime.NumCPU(), m.model)
	fmt.Fprintf(b, "- load average (1, 5, 15 min): %s before, %s after\n", m.loadBefore, m.loadAfter)
	if m.ccBinary != "" {
		fmt.Fprintf(b, "- %s; cc binary %s (given with -cc; the source tree is at %s)\n", m.goVersion, m.ccBinary, m.commit)
	} else {
		fmt.Fprintf(b, "- %s; cc commit %s\n", m.goVersion, m.commit)
	}
	if m.cueBinary != "" {
		fmt.Fprintf(b, "- %s\n", m.cueBinary)
	}
	fmt.Fprintf(b, "- started %s, took %s\n\n", m.started.UTC().Format("2006-01-02 15:04 UTC"), time.Since(m.started).Round(time.Second))
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU model"
}

// loadAvg is the three load averages of /proc/loadavg.
func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

// gitCommit is HEAD's short hash, "+dirty" with uncommitted changes.
func gitCommit(ctx context.Context, root string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "-C", root, "status", "--porcelain").Output(); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
}
