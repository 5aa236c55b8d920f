package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// runHelp is cc help [COMMAND [SUBCOMMAND] | TOPIC]: a command's help with
// its flags, as cc COMMAND -h prints it, or a topic.
func (e *env) runHelp(args []string) int {
	if len(args) == 0 {
		usage(e.stdout)
		return exitOK
	}
	name := args[0]
	if name == "help" {
		helpHelp(e.stdout)
		return exitOK
	}
	if c := commands[name]; c != nil && !c.hidden {
		sub := ""
		if len(args) > 1 && c.hasSubcommand(args[1]) {
			sub = args[1]
		}
		commandUsage(e.stdout, c, e.probeFlags(c, sub))
		return exitOK
	}
	if t := topics[name]; t != nil {
		t(e.stdout)
		return exitOK
	}
	hint := ""
	if best := closest(name, helpNames()); best != "" {
		hint = fmt.Sprintf("; did you mean %q?", best)
	}
	fmt.Fprintf(e.stderr, "cc help: unknown command or topic %q%s\nRun 'cc help' for usage.\n", name, hint)
	return e.usageCode()
}

// helpHelp is cc help help.
func helpHelp(w io.Writer) {
	fmt.Fprint(w, `Usage: cc help [COMMAND [SUBCOMMAND] | TOPIC]

Help prints a command's help and flags (as cc COMMAND -h does), or a help
topic. Without an argument it lists the commands.

Topics:

`)
	for _, t := range sortedTopics() {
		fmt.Fprintf(w, "\t%s\n", t)
	}
}

// visibleCommands are the names of the commands the command list shows,
// sorted.
func visibleCommands() []string {
	var names []string
	for n, c := range commands {
		if !c.hidden {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func sortedTopics() []string {
	var names []string
	for n := range topics {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// helpNames are the words cc help takes.
func helpNames() []string {
	return append(append(visibleCommands(), sortedTopics()...), "help")
}

func (c *command) hasSubcommand(name string) bool {
	for _, s := range c.subcommands {
		if s.name == name {
			return true
		}
	}
	return false
}

// printSubcommands lists c's subcommands, if it has any.
func printSubcommands(w io.Writer, c *command) {
	if len(c.subcommands) == 0 {
		return
	}
	fmt.Fprint(w, "\nSubcommands:\n\n")
	for _, s := range c.subcommands {
		fmt.Fprintf(w, "\t%-6s %s\n", s.name, s.summary)
	}
}

// isHelpArg reports whether a is one of the spellings of -h.
func isHelpArg(a string) bool {
	return a == "-h" || a == "-help" || a == "--help" || a == "--h"
}

// subcommandArgs splits c's subcommand from args, where flags may come
// before it (cc state --project p list): it is the first argument that is
// neither a flag nor a flag's value. A help flag before any subcommand
// leaves sub "".
func (e *env) subcommandArgs(c *command, args []string) (sub string, rest []string) {
	if len(args) == 0 || isHelpArg(args[0]) {
		return "", args
	}
	if e.probing || args[0] == "" || args[0][0] != '-' {
		return args[0], args[1:]
	}
	var sets []*flag.FlagSet
	for _, s := range c.subcommands {
		if fs := e.probeFlags(c, s.name); fs != nil {
			sets = append(sets, fs)
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
		}
		if a == "--" || len(a) < 2 || a[0] != '-' {
			if i >= len(args) {
				break
			}
			return args[i], append(append([]string(nil), args[:i]...), args[i+1:]...)
		}
		if isHelpArg(a) {
			return "", args
		}
		if takesValue(sets, a) {
			i++
		}
	}
	return "", args
}

// takesValue reports whether arg is a value flag, without its value
// joined, of one of sets.
func takesValue(sets []*flag.FlagSet, arg string) bool {
	name, _, joined := strings.Cut(strings.TrimPrefix(arg[1:], "-"), "=")
	for _, fs := range sets {
		if f := fs.Lookup(name); f != nil {
			return !joined && !isBoolFlag(f)
		}
	}
	return false
}

// suggestSubcommand is "; did you mean NAME?" for the subcommand of c
// closest to name, or "".
func (c *command) suggestSubcommand(name string) string {
	var names []string
	for _, s := range c.subcommands {
		names = append(names, s.name)
	}
	if best := closest(name, names); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}
