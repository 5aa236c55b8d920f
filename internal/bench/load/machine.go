package main

import (
	"context"
	"runtime"
	"slices"
	"time"

	"cc.dev/cc/internal/bench/host"
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
	m := &machine{started: time.Now(), model: host.CPUModel(), loadBefore: host.LoadAvg(), goVersion: runtime.Version(), ccBinary: cfg.cc}
	m.commit = host.GitCommit(ctx, "")
	if slices.Contains(cfg.setups, "postgres") {
		m.postgres = describePostgres(ctx, cfg.postgres)
	}
	return m
}

// finish reads the machine after the runs.
func (m *machine) finish() {
	m.took = time.Since(m.started)
	m.loadAfter = host.LoadAvg()
}
