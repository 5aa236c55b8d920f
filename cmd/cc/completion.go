package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"strings"
	"time"

	"cc.dev/cc/compiler"
)

// Shell completion (issue 12, the command line): cc completion SHELL prints
// a script that calls the hidden cc __complete WORDS..., which prints the
// candidates for the last word, one a line.

var (
	//go:embed completion/cc.bash
	bashCompletion string
	//go:embed completion/cc.zsh
	zshCompletion string
	//go:embed completion/cc.fish
	fishCompletion string
)

// completionScripts are the scripts of cc completion, by shell.
var completionScripts = map[string]string{"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}

func init() {
	register(&command{
		name:    "completion",
		args:    "bash | zsh | fish",
		summary: "print a shell completion script",
		help: `Completion prints the completion script for a shell: it completes commands,
each command's flags, and the resource addresses of the project in the
current directory (after --target, --exclude, --replace and the like, and for
the ADDR of state show, versions, rollback and import). To install it:

	bash:  echo 'source <(cc completion bash)' >> ~/.bashrc
	zsh:   echo 'source <(cc completion zsh)' >> ~/.zshrc
	fish:  cc completion fish > ~/.config/fish/completions/cc.fish

Addresses come from compiling the project in the current directory, for the
environment the line names with --env, else $CC_ENV; nothing is asked of a
service. An address such as sandbox.worker["a"] is inserted quoted for the
shell.`,
		run: runCompletion,
	})
	register(&command{
		name:    "__complete",
		args:    "WORDS...",
		summary: "print the completions of a command line (for the completion scripts)",
		help:    "__complete prints the candidates for the last of WORDS, the words after cc, one a line.",
		hidden:  true,
		run: func(e *env, args []string) int {
			for _, c := range e.complete(args) {
				fmt.Fprintln(e.stdout, c)
			}
			return exitOK
		},
	})
}

func runCompletion(e *env, args []string) int {
	c := commands["completion"]
	fs := e.flags(c)
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() != 1 || completionScripts[fs.Arg(0)] == "" {
		return e.usageError(c, "want one shell: bash, zsh or fish")
	}
	fmt.Fprint(e.stdout, completionScripts[fs.Arg(0)])
	return exitOK
}

// addressArg says which positional arguments of a command are addresses:
// the first n, of addresses starting with prefix.
type addressArg struct {
	n      int
	prefix string
}

// addressArgs are the commands (and subcommands) that take addresses as
// positional arguments.
var addressArgs = map[string]addressArg{
	"state show": {1, ""}, "state mv": {1, ""}, "state rm": {1, ""},
	"versions": {1, ""}, "rollback": {1, ""}, "import": {1, ""},
	"build": {1 << 20, "image."},
}

// complete is the candidates for the last of words (the words after cc,
// the last one being completed, possibly empty) that start with it.
func (e *env) complete(words []string) []string {
	if len(words) == 0 {
		words = []string{""}
	}
	cur, prev := shellUnquote(words[len(words)-1]), words[:len(words)-1]
	if len(prev) == 0 {
		return withPrefix(append(visibleCommands(), "help"), cur)
	}
	switch prev[0] {
	case "help":
		if len(prev) == 1 {
			return withPrefix(helpNames(), cur)
		}
		return nil
	case "completion":
		if len(prev) == 1 {
			return withPrefix([]string{"bash", "fish", "zsh"}, cur)
		}
		return nil
	}
	c := commands[prev[0]]
	if c == nil || c.hidden {
		return nil
	}
	return e.completeArgs(c, prev[1:], cur)
}

// completeArgs completes cur after args, the words after command c's name.
func (e *env) completeArgs(c *command, args []string, cur string) []string {
	key, sub := c.name, ""
	if len(c.subcommands) > 0 {
		if len(args) == 0 {
			var names []string
			for _, s := range c.subcommands {
				names = append(names, s.name)
			}
			return withPrefix(names, cur)
		}
		sub, args = args[0], args[1:]
		if !c.hasSubcommand(sub) {
			return nil
		}
		key += " " + sub
	}
	fs := e.probeFlags(c, sub)
	if fs == nil {
		return nil
	}
	if name, value, joined := strings.Cut(cur, "="); joined && strings.HasPrefix(name, "-") {
		if f := fs.Lookup(strings.TrimLeft(name, "-")); f != nil && takesAddress(f) {
			return withPrefix(prefixed(name+"=", e.projectAddresses(wordsEnv(args))), name+"="+value)
		}
		return nil
	}
	if strings.HasPrefix(cur, "-") {
		var names []string
		fs.VisitAll(func(f *flag.Flag) { names = append(names, dashed(f.Name)) })
		return withPrefix(names, cur)
	}
	n, value := positionals(fs, args)
	if value != nil {
		if takesAddress(value) {
			return withPrefix(e.projectAddresses(wordsEnv(args)), cur)
		}
		return nil
	}
	if a, ok := addressArgs[key]; ok && n < a.n {
		return withPrefix(withPrefix(e.projectAddresses(wordsEnv(args)), a.prefix), cur)
	}
	return nil
}

// positionals counts the positional arguments in args, and returns the
// value flag the last of args is, whose value comes next, if it is one.
func positionals(fs *flag.FlagSet, args []string) (int, *flag.Flag) {
	n := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return n + len(args) - i - 1, nil
		}
		if len(a) < 2 || a[0] != '-' {
			n++
			continue
		}
		name, _, joined := strings.Cut(strings.TrimPrefix(a[1:], "-"), "=")
		f := fs.Lookup(name)
		if f == nil || joined || isBoolFlag(f) {
			continue
		}
		if i+1 == len(args) {
			return n, f
		}
		i++
	}
	return n, nil
}

// projectAddresses are the resource addresses of the project in the current
// directory, compiled for environment envName (else $CC_ENV), or none when it does not compile (silently: completion must
// not print errors), in bounded time. A compile asks no service.
func (e *env) projectAddresses(envName string) []string {
	ctx, cancel := context.WithTimeout(e.ctx, 5*time.Second)
	defer cancel()
	// Addresses need no variable values (issue 12): unset ones are unknown.
	res, err := compiler.Compile(ctx, e.withEnvironment(compiler.Input{Path: ".", UnknownVariables: true}, envName))
	if err != nil || res == nil || res.Desired == nil {
		return nil
	}
	var addrs []string
	for _, r := range res.Desired.Resources {
		addrs = append(addrs, r.Address)
	}
	return addrs
}

// addressFlags are the flags whose value is a resource address.
var addressFlags = map[string]bool{"target": true, "exclude": true, "replace": true, "new-version": true}

// takesAddress reports whether flag f's value is a resource address.
func takesAddress(f *flag.Flag) bool { return addressFlags[f.Name] }

// prefixed puts prefix before each of words.
func prefixed(prefix string, words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = prefix + w
	}
	return out
}

// withPrefix are the candidates that start with prefix.
func withPrefix(candidates []string, prefix string) []string {
	var out []string
	for _, c := range candidates {
		if strings.HasPrefix(c, prefix) {
			out = append(out, c)
		}
	}
	return out
}

// shellUnquote is a word as the shell will read it (issue 12: instance
// addresses meet completion): bash passes the word at the cursor as typed,
// so sandbox.worker\["a or 'sandbox.worker["a' stands for the address
// prefix sandbox.worker["a. Backslashes escape the next character outside
// single quotes; quotes are dropped; an unclosed quote runs to the end.
func shellUnquote(w string) string {
	var b strings.Builder
	var quote rune
	escaped := false
	for _, r := range w {
		switch {
		case escaped:
			b.WriteRune(r)
			escaped = false
		case r == '\\' && quote != '\'':
			escaped = true
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '\'' || r == '"'):
			quote = r
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// wordsEnv is the environment the words of a command line name with
// --env NAME or --env=NAME, the last one, or "" (issue 12: environments
// meet completion: the addresses are that environment's).
func wordsEnv(args []string) string {
	env := ""
	for i, a := range args {
		switch {
		case (a == "--env" || a == "-env") && i+1 < len(args):
			env = args[i+1]
		case strings.HasPrefix(a, "--env="), strings.HasPrefix(a, "-env="):
			_, env, _ = strings.Cut(a, "=")
		}
	}
	return env
}
