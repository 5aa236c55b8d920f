package main

import (
	"context"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"time"
)

// machine is what the output says of the machine and the code measured.
type machine struct {
	started               time.Time
	took                  time.Duration
	model, goVersion      string
	commit, ccBinary      string
	loadBefore, loadAfter string
	// postgres describes the PostgreSQL server, "" without the postgres
	// setup.
	postgres string
}

// describeMachine reads the machine before the runs.
func describeMachine(ctx context.Context, cfg *config) *machine {
	m := &machine{started: time.Now(), model: cpuModel(), loadBefore: loadAvg(), goVersion: runtime.Version(), ccBinary: cfg.cc}
	m.commit = gitCommit(ctx)
	if slices.Contains(cfg.setups, "postgres") {
		m.postgres = describePostgres(ctx, cfg.postgres)
	}
	return m
}

// finish reads the machine after the runs.
func (m *machine) finish() {
	m.took = time.Since(m.started)
	m.loadAfter = loadAvg()
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

// gitCommit is the working directory's HEAD, "+dirty" with uncommitted
// changes.
func gitCommit(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	if st, err := exec.CommandContext(ctx, "git", "status", "--porcelain").Output(); err == nil && len(st) > 0 {
		c += "+dirty"
	}
	return c
}
