package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
)

// Exit codes.
const (
	exitOK     = 0
	exitError  = 1 // a configuration or operational error
	exitUsage  = 2 // bad flags or arguments (1 with --detailed-exitcode)
	exitChange = 2 // plan --detailed-exitcode: changes present
)

// env is what a command runs with: its streams and working directory.
// Commands never touch os.Stdout and friends directly, so tests can run
// them in-process.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// fs is the command's flag set, for the flags shared by every command
	// that compiles (compileLimits).
	fs *flag.FlagSet
	// detailed: the command line has --detailed-exitcode, where 2 means
	// "changes present", so a usage error exits 1 (usageCode).
	detailed bool
	// ui writes the events of cc apply --json, nil without it (jsonui.go).
	ui *jsonUI
	// cn is the service at --server the command opened, whose failures
	// fail explains (unreachable.go); nil before.
	cn *conn
	// colorOn and colorOff are --color and --no-color (registerColor).
	colorOn, colorOff bool
	// probing makes parse return at once, leaving the command's flag set
	// in fs (probeFlags).
	probing bool
	// prof are --cpuprofile and --memprofile (profile.go).
	prof profiles
}

// command is one subcommand. run gets the arguments after the command name
// and returns the exit code. run makes its flag set with e.flags and calls
// e.parse before doing anything else: cc help and completion run it with
// e.probing set to read its flags (probeFlags).
type command struct {
	name    string
	args    string // synopsis of the arguments, for usage
	summary string // one line for the command list
	help    string // paragraphs for cc help NAME
	run     func(e *env, args []string) int
	// hidden leaves the command out of the command list (cc __complete).
	hidden bool
	// subcommands are the words that must follow the command's name (cc
	// state list), listed by its help.
	subcommands []subcommand
}

// subcommand is one of a command's subcommands, for its help.
type subcommand struct{ name, summary string }

// commands is the table of subcommands; each lives in its own file.
var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// A bug in cc must not greet the user with a goroutine dump: say what
	// happened and how to get the trace for a report.
	defer func() {
		if r := recover(); r != nil {
			if os.Getenv("CC_TRACEBACK") != "" {
				panic(r)
			}
			fmt.Fprintf(stderr, "cc: internal error: %v\nThis is a bug in cc. Run again with CC_TRACEBACK=1 for the stack trace to report.\n", r)
			code = exitError
		}
	}()
	e := &env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr, getenv: os.Getenv, detailed: hasDetailedExitcode(args)}
	defer e.stopProfiles()
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	name := args[0]
	switch name {
	case "-h", "-help", "--help", "help":
		return e.runHelp(args[1:])
	case "-version", "--version":
		name = "version"
	}
	c := commands[name]
	if c == nil {
		fmt.Fprintf(stderr, "cc: unknown command %q%s\nRun 'cc help' for usage.\n", name, suggestCommand(name))
		return e.usageCode()
	}
	return c.run(e, args[1:])
}

// hasDetailedExitcode reports whether a command line sets
// --detailed-exitcode (in any spelling the flag package takes, before a
// "--"), even where the flags fail to parse: a CI script reads exit 2 as
// "changes present", so a typo beside the flag must not exit 2.
func hasDetailedExitcode(args []string) bool {
	on := false
	for _, a := range args {
		if a == "--" {
			break
		}
		name, value, hasValue := strings.Cut(strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-"), "=")
		if !strings.HasPrefix(a, "-") || name != "detailed-exitcode" {
			continue
		}
		b, err := strconv.ParseBool(value)
		on = !hasValue || err != nil || b
	}
	return on
}

// usageCode is the exit status of a usage error: exitUsage, or exitError
// when the command line has --detailed-exitcode, whose 2 means "changes
// present" (as Terraform does).
func (e *env) usageCode() int {
	if e.detailed {
		return exitError
	}
	return exitUsage
}

func suggestCommand(name string) string {
	best := closest(name, visibleCommands())
	if best == "" {
		return ""
	}
	return fmt.Sprintf("; did you mean %q?", best)
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func usage(w io.Writer) {
	fmt.Fprint(w, `cc compiles a project's images, secrets, volumes, datasets, suites,
sandboxes, functions, containers, scaling groups, trainings and evaluations,
described in CUE or HCL, into content-hashed specs, plans the changes
against the platform's service, and applies them.

Usage:

	cc <command> [flags] [arguments]

Commands:

`)
	for _, n := range visibleCommands() {
		fmt.Fprintf(w, "\t%-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprint(w, `
PATH is a project directory or one .cue or .hcl file; the default is the
current directory. Flags go before or after the arguments; -- ends them. Run 'cc help <command>' or 'cc <command> -h' for details,
and 'cc help functions' for the functions of HCL configurations.
`)
}

func commandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: cc %s %s\n\n%s\n", c.name, c.args, strings.TrimSpace(c.help))
	printSubcommands(w, c)
	if fs == nil {
		fs = flag.NewFlagSet(c.name, flag.ContinueOnError)
	}
	has := false
	fs.VisitAll(func(*flag.Flag) { has = true })
	if has {
		fmt.Fprint(w, "\nFlags:\n")
		printFlags(w, fs)
	}
}

// flags makes a FlagSet for c whose -h prints c's help on stdout and whose
// errors go to stderr with the usage hint.
func (e *env) flags(c *command) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	e.registerColor(fs)
	e.registerProfiles(fs)
	e.fs = fs
	return fs
}

// parse parses args into fs. It returns -1 to go on, or the exit code.
// Flags may come before or after the positional arguments (interspersed).
func (e *env) parse(c *command, fs *flag.FlagSet, args []string) int {
	if e.probing {
		return exitOK
	}
	ordered, err := interspersed(fs, args)
	if err == nil {
		err = fs.Parse(ordered)
	}
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			commandUsage(e.stdout, c, fs)
			return exitOK
		}
		fmt.Fprintf(e.stderr, "cc %s: %s\nRun 'cc help %s' for usage.\n", c.name, flagError(err), c.name)
		return e.usageCode()
	}
	if rc := e.checkColor(c); rc >= 0 {
		return rc
	}
	if err := e.startProfiles(); err != nil {
		return e.usageError(c, "%v", err)
	}
	return -1
}

// usageError reports bad arguments and returns the usage error's exit
// status (usageCode).
func (e *env) usageError(c *command, format string, args ...any) int {
	fmt.Fprintf(e.stderr, "cc %s: %s\nRun 'cc help %s' for usage.\n", c.name, fmt.Sprintf(format, args...), c.name)
	return e.usageCode()
}
