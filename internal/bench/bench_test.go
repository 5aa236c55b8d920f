package main

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// issue 13: benchmark script — the median of an odd and an even count.
func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	in := []float64{3, 1, 2}
	median(in)
	if in[0] != 3 {
		t.Errorf("median sorted its argument: %v", in)
	}
}

func secs(xs ...float64) *result {
	r := &result{spec: cmdSpec{label: "`x`", resources: 1000}}
	for _, x := range xs {
		r.samples = append(r.samples, sample{wall: time.Duration(x * float64(time.Second)), rssKiB: 2048})
	}
	return r
}

// issue 13: benchmark script — ratios pair the rounds (interleaved, so
// each pair saw the same load) and divide the medians.
func TestRatiosPairRounds(t *testing.T) {
	per, m := ratios(secs(2, 6, 3), secs(1, 2, 3))
	if len(per) != 3 || per[0] != 2 || per[1] != 3 || per[2] != 1 {
		t.Errorf("per-round ratios = %v, want [2 3 1]", per)
	}
	if m != 1.5 {
		t.Errorf("ratio of medians = %v, want 3/2", m)
	}
}

// issue 13: benchmark script — the Markdown rows BENCHMARKS.md quotes.
func TestTableMarkdown(t *testing.T) {
	base := secs(1.0, 1.2, 1.1)
	base.spec.label = "`floor`"
	cc := secs(1.5, 1.8, 1.65)
	cc.spec.label = "`cc compile main.hcl`"
	var b strings.Builder
	(&table{title: "Compile", notes: []string{"A note."}, rows: []*result{base, cc}, bases: []*result{base}}).markdown(&b)
	want := "### Compile\n\nA note.\n\n" +
		"| command | median | range | ratio to `floor` | peak RSS | per resource |\n" +
		"| --- | --- | --- | --- | --- | --- |\n" +
		"| `floor` | 1.10 s | 1.00 s–1.20 s | 1.00 | 2 MiB | 1100 µs, 2.05 KiB |\n" +
		"| `cc compile main.hcl` | 1.65 s | 1.50 s–1.80 s | 1.50 (1.50–1.50) | 2 MiB | 1650 µs, 2.05 KiB |\n\n"
	if b.String() != want {
		t.Errorf("markdown =\n%s\nwant\n%s", b.String(), want)
	}
}

// issue 13: benchmark script — durations in three significant digits.
func TestFmtDur(t *testing.T) {
	for in, want := range map[float64]string{0.0089: "8.90 ms", 0.0891: "89.1 ms", 0.124: "124 ms", 1.067: "1.07 s", 23.3: "23.3 s", 123.4: "123 s"} {
		if got := fmtDur(in); got != want {
			t.Errorf("fmtDur(%v) = %q, want %q", in, got, want)
		}
	}
	if got := commas(40000); got != "40,000" {
		t.Errorf("commas(40000) = %q", got)
	}
}

// issue 13: benchmark script — flags: defaults, a subset of paths, and
// usage errors for bad ones.
func TestParseArgs(t *testing.T) {
	c, err := parseArgs(nil, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.sizes) != 3 || c.sizes[2] != 40000 || c.rounds != 5 || c.applyRounds != 3 || len(c.paths) != len(allPaths) || c.hashBytes != 1<<30 {
		t.Errorf("defaults = %+v", c)
	}
	c, err = parseArgs([]string{"-sizes", "50, 100", "-paths", "compile,noop", "-rounds", "1", "-cue", "none"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.sizes) != 2 || c.sizes[1] != 100 || !c.paths["noop"] || c.paths["apply"] || c.cue != "none" || c.maxSize() != 100 {
		t.Errorf("parsed = %+v", c)
	}
	for _, bad := range [][]string{
		{"-sizes", "10,x"}, {"-sizes", "0"}, {"-sizes", "5,5"}, {"-paths", "compile,bogus"},
		{"-rounds", "0"}, {"extra"}, {"-nosuchflag"}, {"-hash-bytes", "10"},
	} {
		_, err := parseArgs(bad, &bytes.Buffer{})
		var ue *usageError
		if !errors.As(err, &ue) {
			t.Errorf("parseArgs(%q) = %v, want a usage error", bad, err)
		}
	}
}

// issue 13: benchmark script — the hashed tree has 1,600 files of mixed
// sizes adding up to -hash-bytes.
func TestHashSizes(t *testing.T) {
	s := hashSizes(1 << 30)
	var sum int64
	for _, n := range s {
		sum += n
	}
	if len(s) != hashFiles || sum != 1<<30 || s[0]*1000 > s[11] {
		t.Errorf("%d files, %d bytes, smallest %d, largest %d", len(s), sum, s[0], s[11])
	}
}

// issue 13: benchmark script — a failing child is reported with the
// tail of its stderr; a child past -timeout is stopped and says so.
func TestChildFailure(t *testing.T) {
	r := &runner{cfg: &config{timeout: time.Minute}}
	_, err := r.child(context.Background(), "`failing`", t.TempDir(), []string{"sh", "-c", "echo one >&2; echo boom >&2; exit 3"})
	if err == nil || !strings.Contains(err.Error(), "boom") || !strings.Contains(err.Error(), "exit status 3") {
		t.Errorf("err = %v, want the stderr tail and the exit status", err)
	}
	r.cfg.timeout = 200 * time.Millisecond
	_, err = r.child(context.Background(), "`slow`", t.TempDir(), []string{"sleep", "30"})
	if err == nil || !strings.Contains(err.Error(), "timed out after 200ms") {
		t.Errorf("err = %v, want a timeout", err)
	}
	smp, err := r.child(context.Background(), "`ok`", t.TempDir(), []string{"true"})
	if err != nil || smp.rssKiB <= 0 {
		t.Errorf("true: %+v, %v; want a peak RSS", smp, err)
	}
}

// issue 13: benchmark script — the children's environment has the
// workload's secrets and nothing pointing cc at another service.
func TestChildEnv(t *testing.T) {
	t.Setenv("CC_SERVER", "example.com:1")
	env := strings.Join(childEnv(400), "\n")
	if strings.Contains(env, "CC_SERVER=") || !strings.Contains(env, "KEY_0=") || !strings.Contains(env, "KEY_399=") {
		t.Errorf("env lacks the secrets or keeps CC_SERVER")
	}
}

// issue 13: benchmark script — one tiny end-to-end run of the compile
// path (cue export only when a cue binary is found), so the script cannot
// rot.
func TestTinyCompileRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cc")
	}
	cue := lookCue()
	if cue == "" {
		cue = "none"
	}
	var out, progress bytes.Buffer
	err := run(context.Background(), []string{"-sizes", "50", "-rounds", "1", "-paths", "compile", "-cue", cue, "-work", t.TempDir()}, &out, &progress)
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	md := out.String()
	for _, want := range []string{"- machine: ", "### Compile, 50 resources, HCL", "| `hclfloor main.hcl` |", "`cc compile --no-cache main.hcl` |", "`cc compile --no-cache --json main.cue` |"} {
		if !strings.Contains(md, want) {
			t.Errorf("output lacks %q:\n%s", want, md)
		}
	}
	if cue != "none" && !strings.Contains(md, "| `cue export main.cue` | ") {
		t.Errorf("output lacks cue export:\n%s", md)
	}
}

// issue 13: benchmark script — Ctrl-C (the context cancelled) stops a
// running child at once.
func TestChildStopsOnCancel(t *testing.T) {
	r := &runner{cfg: &config{timeout: time.Minute}}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := r.child(ctx, "`sleep`", t.TempDir(), []string{"sleep", "30"})
	if err == nil || time.Since(start) > 10*time.Second {
		t.Errorf("err = %v after %s, want the child stopped", err, time.Since(start))
	}
}

// issue 13: benchmark script — the linearity table: per-resource cost at
// each size, and how it grew from the smallest to the largest.
func TestLinearityGrid(t *testing.T) {
	small, large := secs(1, 1, 1), secs(12, 12, 12)
	small.spec.label, large.spec.label = "`cc compile main.hcl`", "`cc compile main.hcl`"
	large.spec.resources = 10000
	r := &runner{cfg: &config{sizes: []int{1000, 10000}}, results: map[string]*result{
		resultKey(1000, "compile-hcl"): small, resultKey(10000, "compile-hcl"): large,
		resultKey(10000, "plan-hcl"): large,
	}}
	r.linearity()
	var b strings.Builder
	r.tables[0].markdown(&b)
	for _, want := range []string{
		"| command | 1,000 | 10,000 | µs per resource, 10,000 / 1,000 |",
		"| `cc compile main.hcl` | 1000 µs, 2.05 KiB | 1200 µs, 0.20 KiB | 1.20 |",
		"| `cc compile main.hcl` | — | 1200 µs, 0.20 KiB | — |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "apply") {
		t.Errorf("rows never measured are shown:\n%s", b.String())
	}
}
