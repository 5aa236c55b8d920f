package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// Flag conventions (issue 12, the command line): every command takes its
// flags before or after its positional arguments, "--" ends the flags, a
// value flag's value follows it ("--out p") or is joined ("--out=p"), a bool
// flag never takes the next argument, and help and errors spell flags
// "--name".

// interspersed reorders args so that the flag package, which stops at the
// first positional argument, sees every flag: the flags (with the values of
// value flags) first, then "--", then the positional arguments in their
// order. An unknown flag is an error naming the closest known one.
func interspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if len(a) < 2 || a[0] != '-' {
			pos = append(pos, a)
			continue
		}
		flags = append(flags, a)
		name, _, joined := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			if name == "h" || name == "help" {
				continue
			}
			return nil, unknownFlag(fs, name)
		}
		if joined || isBoolFlag(f) {
			continue
		}
		if i+1 == len(args) {
			return nil, fmt.Errorf("flag needs an argument: --%s", name)
		}
		i++
		flags = append(flags, args[i])
	}
	return append(append(flags, "--"), pos...), nil
}

// isBoolFlag reports whether f takes no value, as the flag package decides.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// unknownFlag is the error for a flag fs does not define, with the closest
// flag it does define.
func unknownFlag(fs *flag.FlagSet, name string) error {
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	msg := "unknown flag " + dashed(name)
	if best := closest(name, names); best != "" {
		msg += "; did you mean " + dashed(best) + "?"
	}
	return errors.New(msg)
}

// closest is the candidate nearest to name, at most two edits away (the
// first in order of a tie), or "".
func closest(name string, candidates []string) string {
	sorted := append([]string(nil), candidates...)
	sort.Strings(sorted)
	best, bestD := "", 3
	for _, n := range sorted {
		if d := editDistance(name, n); d < bestD && d < max(len(name), 2) {
			best, bestD = n, d
		}
	}
	return best
}

// flagMention is a flag named in one of the flag package's errors.
var flagMention = regexp.MustCompile(`(flag|for|argument:) -([A-Za-z0-9][\w.-]*)`)

// flagError spells the flag named in one of the flag package's errors
// "--name", as the rest of cc's text does.
func flagError(err error) string {
	msg := err.Error()
	if m := flagMention.FindStringSubmatchIndex(msg); m != nil {
		msg = msg[:m[3]] + " " + dashed(msg[m[4]:m[5]]) + msg[m[5]:]
	}
	return msg
}

// dashed spells a flag as cc's text does: "--name", and a one-letter
// flag "-t", as cue and the other tools that have one spell it.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// printFlags lists the flags of fs as flag.PrintDefaults does, spelt
// "--name" ("-t" for a one-letter flag).
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		line := "  " + dashed(f.Name)
		if arg != "" {
			line += " " + arg
		}
		fmt.Fprintf(w, "%s\n    \t%s", line, strings.ReplaceAll(usage, "\n", "\n    \t"))
		if !isZeroDefault(f) {
			if g, ok := f.Value.(flag.Getter); ok {
				if _, isString := g.Get().(string); isString {
					fmt.Fprintf(w, " (default %q)", f.DefValue)
					fmt.Fprintln(w)
					return
				}
			}
			fmt.Fprintf(w, " (default %v)", f.DefValue)
		}
		fmt.Fprintln(w)
	})
}

// isZeroDefault reports whether f's default is its type's zero value, which
// the flag list leaves unsaid (as flag.PrintDefaults does).
func isZeroDefault(f *flag.Flag) (zero bool) {
	defer func() {
		if recover() != nil {
			zero = f.DefValue == ""
		}
	}()
	t := reflect.TypeOf(f.Value)
	var z reflect.Value
	if t.Kind() == reflect.Pointer {
		z = reflect.New(t.Elem())
	} else {
		z = reflect.Zero(t)
	}
	v, ok := z.Interface().(flag.Value)
	return !ok || f.DefValue == v.String()
}

// registerColor registers --color and --no-color, which every command
// takes.
func (e *env) registerColor(fs *flag.FlagSet) {
	fs.BoolVar(&e.colorOn, "color", false, "colour the output even when it is not a terminal (overrides NO_COLOR and TERM=dumb)")
	fs.BoolVar(&e.colorOff, "no-color", false, "never colour the output")
}

// checkColor refuses --color with --no-color; -1 to go on.
func (e *env) checkColor(c *command) int {
	if e.colorOn && e.colorOff {
		return e.usageError(c, "--color and --no-color: give one")
	}
	return -1
}

// probeFlags is the flag set of command c (of its subcommand sub, if it
// has subcommands), made by running it in a mode where its parse returns
// at once: the flags are made inside each command's run.
func (e *env) probeFlags(c *command, sub string) *flag.FlagSet {
	p := &env{ctx: e.ctx, stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: e.getenv, probing: true}
	var args []string
	if sub != "" {
		args = []string{sub}
	} else if len(c.subcommands) > 0 {
		args = []string{c.subcommands[0].name}
	}
	c.run(p, args)
	return p.fs
}
