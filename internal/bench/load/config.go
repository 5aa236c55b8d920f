package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"cc.dev/cc/internal/bench/host"
)

// config is what the flags say.
type config struct {
	clients, resources, rounds, parallelism int
	setups                                  []string
	// cc is a cc binary to run; "" builds one from this module.
	cc string
	// postgres is the URL of a PostgreSQL server (a user that may create
	// databases); "" is $CC_TEST_POSTGRES.
	postgres string
	// out is a file the Markdown also goes to.
	out  string
	args []string
}

// usageError is a bad command line.
type usageError = host.UsageError

// knownSetups are the setups -setups accepts, in the order they run.
var knownSetups = []string{"sqlite", "postgres"}

// parseFlags parses the command line.
func parseFlags(args []string, stderr io.Writer) (*config, error) {
	cfg := &config{args: args}
	fs := flag.NewFlagSet("load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: .ci/load [flags]\n\n"+
			"Runs -clients concurrent clients, each applying its own project of -resources\n"+
			"resources with the cc library, through cc servers it starts: sqlite is one\n"+
			"cc server --db FILE --sync full, postgres two replicas on one fresh PostgreSQL\n"+
			"database. Prints Markdown: throughput, p50/p99 call latency, convergence.\n\nFlags:\n")
		fs.PrintDefaults()
	}
	fs.IntVar(&cfg.clients, "clients", 20, "`N` concurrent clients, each with its own project")
	fs.IntVar(&cfg.resources, "resources", 200, "`P` resources in each client's project")
	fs.IntVar(&cfg.rounds, "rounds", 1, "`N` rounds, the setups interleaved within each; figures are medians")
	fs.IntVar(&cfg.parallelism, "parallelism", 10, "each client's apply makes at most `N` changes at once (cc apply --parallelism)")
	setups := fs.String("setups", "sqlite,postgres", "the setups to measure, comma-separated: sqlite (one cc server), postgres (two replicas)")
	fs.StringVar(&cfg.cc, "cc", "", "the cc `BINARY` to run as cc server (default: go build ./cmd/cc into a temporary directory)")
	fs.StringVar(&cfg.postgres, "postgres", "", "PostgreSQL `URL` of a user that may create databases, for the postgres setup (default $CC_TEST_POSTGRES); a fresh database is created on it per round and dropped after")
	fs.StringVar(&cfg.out, "o", "", "also write the Markdown to `FILE`")
	if err := fs.Parse(args); err != nil {
		return nil, &usageError{Msg: err.Error()}
	}
	if fs.NArg() > 0 {
		return nil, &usageError{Msg: fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	for name, v := range map[string]int{"clients": cfg.clients, "resources": cfg.resources, "rounds": cfg.rounds, "parallelism": cfg.parallelism} {
		if v < 1 {
			return nil, &usageError{Msg: fmt.Sprintf("-%s %d: want at least 1", name, v)}
		}
	}
	var err error
	if cfg.setups, err = parseSetups(*setups); err != nil {
		return nil, err
	}
	if cfg.postgres == "" {
		cfg.postgres = os.Getenv("CC_TEST_POSTGRES")
	}
	if slices.Contains(cfg.setups, "postgres") && cfg.postgres == "" {
		return nil, &usageError{Msg: "-setups postgres needs a PostgreSQL server: -postgres URL or $CC_TEST_POSTGRES (source .ci/pg/up.sh && cc_pg_up starts one)"}
	}
	return cfg, nil
}

// parseSetups parses -setups: known names, each once, in knownSetups'
// order.
func parseSetups(s string) ([]string, error) {
	seen := map[string]bool{}
	for _, name := range strings.Split(s, ",") {
		name = strings.TrimSpace(name)
		if !slices.Contains(knownSetups, name) {
			return nil, &usageError{Msg: fmt.Sprintf("-setups: unknown setup %q: want %s", name, strings.Join(knownSetups, " or "))}
		}
		seen[name] = true
	}
	var out []string
	for _, name := range knownSetups {
		if seen[name] {
			out = append(out, name)
		}
	}
	return out, nil
}
