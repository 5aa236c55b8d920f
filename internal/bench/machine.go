package main

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"time"

	"cc.dev/cc/internal/bench/host"
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
	m := &machine{started: time.Now(), model: host.CPUModel(), loadBefore: host.LoadAvg(), args: args}
	m.goVersion, _ = goCmd(ctx, root, nil, "version")
	m.commit = host.GitCommit(ctx, root)
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
