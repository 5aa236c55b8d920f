package main

import (
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"cc.dev/cc/internal/bench/host"
)

// allPaths are the measured paths, in the order they run.
var allPaths = []string{"compile", "noop", "hash", "apply", "memory"}

// config is the parsed command line.
type config struct {
	sizes       []int
	rounds      int
	applyRounds int
	paths       map[string]bool
	cue         string // "" finds or installs it; "none" leaves cue export out
	work        string // "" is a temporary directory removed at the end
	cc          string // "" builds ./cmd/cc into the work directory
	profile     string
	out         string
	hashBytes   int64
	timeout     time.Duration
}

// usageError is bad arguments: the command exits 2.
type usageError = host.UsageError

// parseArgs parses the command line; help and bad arguments return a
// *usageError (flag's own message already written to stderr).
func parseArgs(args []string, stderr io.Writer) (*config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: .ci/bench [flags]\n\nBench runs cc against its floors and peers on the same generated projects,\ninterleaved, and prints Markdown tables of medians and ratios (BENCHMARKS.md).\n\nFlags:")
		fs.PrintDefaults()
	}
	c := &config{}
	sizes := fs.String("sizes", "1000,10000,40000", "comma-separated project sizes `N` (resources)")
	paths := fs.String("paths", strings.Join(allPaths, ","), "comma-separated subset of "+strings.Join(allPaths, ","))
	fs.IntVar(&c.rounds, "rounds", 5, "interleaved rounds of each path (`N`)")
	fs.IntVar(&c.applyRounds, "apply-rounds", 3, "interleaved rounds of the apply path (`N`)")
	fs.StringVar(&c.cue, "cue", "", "the cue `BINARY` (default: cue on PATH, else /tmp/cuebin/cue, else go install it there at go.mod's version); none leaves cue export out")
	fs.StringVar(&c.work, "work", "", "keep generated projects and binaries in `DIR` (default: a temporary directory, removed at the end)")
	fs.StringVar(&c.cc, "cc", "", "the cc `BINARY` to measure (default: build ./cmd/cc into the work directory)")
	fs.StringVar(&c.profile, "profile", "", "run each cc command once more with --cpuprofile into `DIR` and print pprof's top 8 (flat)")
	fs.StringVar(&c.out, "o", "", "also write the Markdown to `FILE`")
	fs.Int64Var(&c.hashBytes, "hash-bytes", 1<<30, "total size of the tree the hash path copies (`BYTES`)")
	fs.DurationVar(&c.timeout, "timeout", 10*time.Minute, "the longest one child may run")
	if err := fs.Parse(args); err != nil {
		return nil, &usageError{Msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return nil, &usageError{Msg: fmt.Sprintf("unexpected argument %q (bench takes only flags)", fs.Arg(0))}
	}
	var err error
	if c.sizes, err = parseSizes(*sizes); err != nil {
		return nil, err
	}
	if c.paths, err = parsePaths(*paths); err != nil {
		return nil, err
	}
	if c.rounds < 1 || c.applyRounds < 1 {
		return nil, &usageError{Msg: "-rounds and -apply-rounds must be at least 1"}
	}
	if c.hashBytes < 1<<10 || c.timeout <= 0 {
		return nil, &usageError{Msg: "-hash-bytes must be at least 1024 and -timeout positive"}
	}
	return c, nil
}

// parseSizes parses "1000,10000": positive, distinct, kept in order.
func parseSizes(s string) ([]int, error) {
	var out []int
	seen := map[int]bool{}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, &usageError{Msg: fmt.Sprintf("-sizes: %q is not a positive number of resources", f)}
		}
		if seen[n] {
			return nil, &usageError{Msg: fmt.Sprintf("-sizes: %d given twice", n)}
		}
		seen[n] = true
		out = append(out, n)
	}
	return out, nil
}

// parsePaths parses "compile,noop" into a set of known paths.
func parsePaths(s string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		known := false
		for _, p := range allPaths {
			known = known || p == f
		}
		if !known {
			return nil, &usageError{Msg: fmt.Sprintf("-paths: unknown path %q (known: %s)", f, strings.Join(allPaths, ","))}
		}
		out[f] = true
	}
	return out, nil
}

// maxSize is the largest of the sizes.
func (c *config) maxSize() int {
	m := 0
	for _, n := range c.sizes {
		m = max(m, n)
	}
	return m
}
