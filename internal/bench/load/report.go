package main

import (
	"cmp"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"cc.dev/cc/service"
)

// topMethods is how many methods the per-method table shows.
const topMethods = 8

// summary is one round's figures.
type summary struct {
	wall, p50, p99      time.Duration
	calls, failed       int
	callsPerS, resPerS  float64
	converged, projects int
	compileWall         time.Duration
	applyP50            time.Duration
}

// summarize computes a round's figures for projects of n resources.
func summarize(r *round, n int) summary {
	s := summary{wall: r.wall, compileWall: r.compileWall, calls: len(r.calls.all), failed: r.calls.failed, projects: len(r.outcomes)}
	s.p50, s.p99 = percentile(r.calls.all, 50), percentile(r.calls.all, 99)
	if secs := r.wall.Seconds(); secs > 0 {
		s.callsPerS = float64(s.calls) / secs
		s.resPerS = float64(n*len(r.outcomes)) / secs
	}
	var apply []time.Duration
	for _, o := range r.outcomes {
		if o.converged && o.err == nil {
			s.converged++
		}
		apply = append(apply, o.apply)
	}
	slices.Sort(apply)
	s.applyP50 = percentile(apply, 50)
	return s
}

// medianOf is the lower median of f over the rounds.
func medianOf[T cmp.Ordered](ss []summary, f func(summary) T) T {
	xs := make([]T, len(ss))
	for i, s := range ss {
		xs[i] = f(s)
	}
	return lowerMedian(xs)
}

// redactArgs is the command line to print: a URL (-postgres URL, or
// -postgres=URL) with its password replaced.
func redactArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		k, v, ok := strings.Cut(a, "=")
		switch {
		case strings.HasPrefix(a, "-") && ok && strings.Contains(v, "://"):
			a = k + "=" + service.RedactDB(v)
		case strings.Contains(a, "://"):
			a = service.RedactDB(a)
		}
		out[i] = a
	}
	return out
}

// writeReport writes the Markdown.
func writeReport(b *strings.Builder, cfg *config, m *machine, results map[string][]*round) {
	fmt.Fprintf(b, "## Load (`.ci/load %s`)\n\n", strings.Join(redactArgs(cfg.args), " "))
	fmt.Fprintf(b, "- machine: %d cores (nproc), %s; load average (1, 5, 15 min) %s before, %s after\n", runtime.NumCPU(), m.model, m.loadBefore, m.loadAfter)
	bin := "built from the source tree"
	if m.ccBinary != "" {
		bin = "given with -cc: " + m.ccBinary
	}
	fmt.Fprintf(b, "- %s; load generator at commit %s; cc server binary %s\n", m.goVersion, m.commit, bin)
	if m.postgres != "" {
		fmt.Fprintf(b, "- %s (a fresh database per round, dropped after)\n", m.postgres)
	}
	fmt.Fprintf(b, "- started %s, took %s; %d %s, the setups interleaved, figures the median round\n", m.started.UTC().Format("2006-01-02 15:04 UTC"), m.took.Round(100*time.Millisecond), cfg.rounds, plural(cfg.rounds, "round", "rounds"))
	fmt.Fprintf(b, "- each client compiles its own %d-resource HCL project (compiler/workload), all at once (compile wall); then, all at once on the setup's fresh servers, each plans, locks, applies (--parallelism %d), releases, and plans again through the next server (a replica other than the one it applied through, when there are two): wall, calls/s and resources/s are of this apply phase; every call is timed by a gRPC client interceptor; the clients run in this one process, on the same machine as the servers (and the PostgreSQL)\n\n", cfg.resources, cfg.parallelism)
	b.WriteString("| setup | servers | clients | resources | compile wall | wall | calls | calls/s | resources/s | p50 call | p99 call | failed calls | client apply p50 | converged (all rounds) |\n")
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n")
	for _, name := range cfg.setups {
		writeSummaryRow(b, cfg, name, results[name])
	}
	for _, name := range cfg.setups {
		writeMethods(b, name, results[name])
	}
	b.WriteString("\n")
}

// writeSummaryRow writes a setup's row of medians.
func writeSummaryRow(b *strings.Builder, cfg *config, name string, rounds []*round) {
	var ss []summary
	for _, r := range rounds {
		ss = append(ss, summarize(r, cfg.resources))
	}
	if len(ss) == 0 {
		return
	}
	converged, projects := 0, 0
	for _, s := range ss {
		converged, projects = converged+s.converged, projects+s.projects
	}
	ok := fmt.Sprintf("%d/%d", converged, projects)
	if converged == projects {
		ok += " yes"
	} else {
		ok += " **NO**"
	}
	fmt.Fprintf(b, "| %s | %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %d | %s | %s |\n",
		setupTitle(name), rounds[0].servers, cfg.clients, commas(cfg.clients*cfg.resources),
		secs(medianOf(ss, func(s summary) time.Duration { return s.compileWall })),
		wallCell(ss),
		commas(medianOf(ss, func(s summary) int { return s.calls })),
		commas(int(medianOf(ss, func(s summary) float64 { return s.callsPerS })+0.5)),
		commas(int(medianOf(ss, func(s summary) float64 { return s.resPerS })+0.5)),
		millis(medianOf(ss, func(s summary) time.Duration { return s.p50 })),
		millis(medianOf(ss, func(s summary) time.Duration { return s.p99 })),
		medianOf(ss, func(s summary) int { return s.failed }),
		secs(medianOf(ss, func(s summary) time.Duration { return s.applyP50 })),
		ok)
}

// writeMethods writes a setup's table of its most called methods:
// calls per round, p50 and p99, each the median over the rounds.
func writeMethods(b *strings.Builder, name string, rounds []*round) {
	if len(rounds) == 0 {
		return
	}
	count := map[string]int{}
	for _, r := range rounds {
		for m, ds := range r.calls.byMethod {
			count[m] += len(ds)
		}
	}
	methods := make([]string, 0, len(count))
	for m := range count {
		methods = append(methods, m)
	}
	slices.SortFunc(methods, func(a, c string) int { return cmp.Or(count[c]-count[a], strings.Compare(a, c)) })
	fmt.Fprintf(b, "\n%s, per method (the %d most called):\n\n| method | calls | p50 | p99 |\n|---|---:|---:|---:|\n", setupTitle(name), min(topMethods, len(methods)))
	for _, m := range methods[:min(topMethods, len(methods))] {
		var n []int
		var p50, p99 []time.Duration
		for _, r := range rounds {
			ds := r.calls.byMethod[m]
			n, p50, p99 = append(n, len(ds)), append(p50, percentile(ds, 50)), append(p99, percentile(ds, 99))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", m, commas(lowerMedian(n)), millis(lowerMedian(p50)), millis(lowerMedian(p99)))
	}
}

// lowerMedian is the median of xs, the lower middle for an even count
// (a measured value, not a mean).
func lowerMedian[T cmp.Ordered](xs []T) T {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

// wallCell is the median wall time, and with several rounds their range.
func wallCell(ss []summary) string {
	walls := make([]time.Duration, len(ss))
	for i, s := range ss {
		walls[i] = s.wall
	}
	cell := secs(lowerMedian(walls))
	if len(walls) > 1 {
		cell += fmt.Sprintf(" (%.2f–%.2f)", slices.Min(walls).Seconds(), slices.Max(walls).Seconds())
	}
	return cell
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func millis(d time.Duration) string {
	return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
}

// commas writes n with thousands separators.
func commas(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
