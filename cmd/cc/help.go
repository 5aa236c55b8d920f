package main

import (
	"fmt"
	"io"
	"sort"
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
