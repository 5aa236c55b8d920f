package main

import (
	"bytes"
	"fmt"
	"io"
	"regexp"

	"cuelang.org/go/cue/format"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"cc.dev/cc/compiler"
)

// stdinName names stdin in cc fmt -'s diagnostics and diff.
const stdinName = "<stdin>"

// fmtStdin is cc fmt -: it formats stdin to stdout, for an editor's
// format-on-save (issue 12). With --check it prints nothing and exits 1
// when stdin is not formatted; with --diff it prints the diff instead of
// the text. A syntax error prints positioned diagnostics on stderr,
// nothing on stdout, and exits 1.
func (e *env) fmtStdin(c *command, ff fmtFlags) int {
	if ff.recursive {
		return e.usageError(c, "--recursive formats directories; it does not apply to PATH - (stdin)")
	}
	src, err := io.ReadAll(io.LimitReader(e.stdin, compiler.DefaultMaxConfigSize+1))
	if err != nil {
		fmt.Fprintf(e.stderr, "cc fmt: reading stdin: %v\n", err)
		return exitError
	}
	if len(src) > compiler.DefaultMaxConfigSize {
		fmt.Fprintf(e.stderr, "cc fmt: stdin is larger than the %d-byte limit on a configuration file\n", compiler.DefaultMaxConfigSize)
		return exitError
	}
	lang := ff.lang
	switch lang {
	case "":
		lang = detectLang(src)
	case "hcl", "cue":
	default:
		return e.usageError(c, "--lang %q: want hcl or cue", ff.lang)
	}
	out, ferr := compiler.FormatAs(lang, stdinName, src)
	if ferr != nil {
		e.printDiagnostics(ferr.Diagnostics, ferr.Files, false)
		return exitError
	}
	switch {
	case ff.diff:
		fmt.Fprint(e.stdout, unifiedDiff(stdinName, string(src), string(out)))
	case !ff.check:
		e.stdout.Write(out)
	}
	if ff.check && !bytes.Equal(src, out) {
		return exitError
	}
	return exitOK
}

// detectLang is the language of a file with no name: HCL when it parses
// as HCL, CUE when it parses as CUE (CUE's "name: value" is no HCL; a file
// of HCL attributes alone could be read either way and is taken as HCL).
// Text that is neither is taken as HCL when its first word is followed by
// "=", a block label or "{", so the diagnostics of a broken HCL file are
// HCL's.
func detectLang(src []byte) string {
	if _, hd := hclsyntax.ParseConfig(src, stdinName, hcl.InitialPos); !hd.HasErrors() {
		return "hcl"
	}
	if _, err := format.Source(src); err == nil || !hclStart.Match(src) {
		return "cue"
	}
	return "hcl"
}

// hclStart matches text whose first line (past blank and comment lines)
// starts the way an HCL attribute or block does.
var hclStart = regexp.MustCompile(`^(?:\s*(?:#|//)[^\n]*\n|\s*\n)*\s*[A-Za-z_][\w-]*\s*(?:=[^=]|"|\{)`)
