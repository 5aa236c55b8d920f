package main

import (
	"bytes"
	"flag"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestInterspersedFlags: issue 12, the command line. Flags come before or
// after the positional arguments, "--" ends them, a value flag takes the
// next argument unless its value is joined, a bool flag never does, and a
// lone "-" is an argument.
func TestInterspersedFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		out  string
		on   bool
		pos  []string
	}{
		{[]string{"dir", "--out", "p"}, "p", false, []string{"dir"}},
		{[]string{"--out=p", "dir", "--on"}, "p", true, []string{"dir"}},
		{[]string{"-on", "dir", "-out", "-"}, "-", true, []string{"dir"}},
		{[]string{"--on", "a", "--", "--out", "b"}, "", true, []string{"a", "--out", "b"}},
		{[]string{"-", "--on=false", "x"}, "", false, []string{"-", "x"}},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		out := fs.String("out", "", "")
		on := fs.Bool("on", false, "")
		args, err := interspersed(fs, tc.args)
		if err == nil {
			err = fs.Parse(args)
		}
		if err != nil || *out != tc.out || *on != tc.on || !reflect.DeepEqual(append([]string{}, fs.Args()...), tc.pos) {
			t.Errorf("%q: out %q on %v args %q err %v, want %q %v %q", tc.args, *out, *on, fs.Args(), err, tc.out, tc.on, tc.pos)
		}
	}
}

// TestFlagErrorsSpellDoubleDash: issue 12, the command line. The flag
// package's errors name flags --name; an unknown flag names the closest.
func TestFlagErrorsSpellDoubleDash(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(&bytes.Buffer{})
	fs.Var(&stringList{}, "target", "")
	fs.Duration("lock-timeout", 0, "")
	fs.Bool("offline", false, "")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--taget", "x"}, "unknown flag --taget; did you mean --target?"},
		{[]string{"-lock-timout=1s"}, "unknown flag --lock-timout; did you mean --lock-timeout?"},
		{[]string{"--zzzzzz"}, "unknown flag --zzzzzz"},
		{[]string{"--lock-timeout", "soon"}, `invalid value "soon" for flag --lock-timeout: parse error`},
		{[]string{"--offline=maybe"}, `invalid boolean value "maybe" for --offline: parse error`},
		{[]string{"x", "--target"}, "flag needs an argument: --target"},
	} {
		args, err := interspersed(fs, tc.args)
		if err == nil {
			err = fs.Parse(args)
		}
		if err == nil || flagError(err) != tc.want {
			t.Errorf("%q: error %v, want %q", tc.args, err, tc.want)
		}
	}
}

// TestPrintFlagsDoubleDash: issue 12, the command line. The flag list
// spells --name, with the argument's name and a non-zero default.
func TestPrintFlagsDoubleDash(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.String("format", "text", "output `FORMAT`")
	fs.String("out", "", "save to `FILE`")
	fs.Bool("json", false, "print JSON")
	fs.Duration("timeout", 10*time.Minute, "stop after `DURATION`")
	fs.Var(&stringList{}, "target", "plan only `ADDR`")
	var b bytes.Buffer
	printFlags(&b, fs)
	want := `  --format FORMAT
    	output FORMAT (default "text")
  --json
    	print JSON
  --out FILE
    	save to FILE
  --target ADDR
    	plan only ADDR
  --timeout DURATION
    	stop after DURATION (default 10m0s)
`
	if b.String() != want {
		t.Errorf("printFlags:\n%s\nwant:\n%s", b.String(), want)
	}
}

// oneDash finds a flag of a help's flag list spelt -name.
// oneDash is a long flag spelt with one dash; a one-letter flag (-t) is
// spelt so on purpose.
var oneDash = regexp.MustCompile(`(?m)^  -[a-z][-a-z]`)

// TestEveryCommandHasColorFlags: issue 12, the command line. Every
// command (and state subcommand) takes --color and --no-color, and its
// help, as cc help prints it, lists them: each command's run reaches
// e.parse before doing anything (probeFlags relies on it).
func TestEveryCommandHasColorFlags(t *testing.T) {
	for _, name := range visibleCommands() {
		out, _ := mustCC(t, 0, "help", name)
		if !strings.Contains(out, "\n  --color\n") || !strings.Contains(out, "\n  --no-color\n") {
			t.Errorf("cc help %s lists no --color/--no-color:\n%s", name, out)
		}
		if oneDash.MatchString(out) {
			t.Errorf("cc help %s spells a flag with one dash:\n%s", name, out)
		}
	}
	for _, sub := range commands["state"].subcommands {
		if out, _ := mustCC(t, 0, "state", sub.name, "-h"); !strings.Contains(out, "\n  --no-color\n") {
			t.Errorf("cc state %s -h lists no --no-color", sub.name)
		}
	}
}
