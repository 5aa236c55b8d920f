package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"cc.dev/cc/compiler"
	"cc.dev/cc/schema"
)

func init() {
	register(&command{
		name:    "fmt",
		args:    "[--check] [--diff] [--recursive] [PATH | -]",
		summary: "format CUE and HCL configuration files",
		help: `Fmt rewrites the configuration files at PATH (a directory's .cue and .hcl
files, or one file; default .) in their language's canonical format: CUE's
formatter for .cue files, hclwrite's for .hcl files. It prints the name of
each file it changed. A directory's subdirectories are left alone unless
--recursive is given (then every subdirectory's files are formatted too,
except hidden directories and cue.mod).

With --check it changes nothing: it prints the files that are not formatted
and exits 1 if there are any. With --diff it changes nothing and prints a
unified diff of what formatting would change (patch -p1 applies it); with
--check too it exits 1 if there is any. A file with a syntax error is
reported with its position and left alone, and the exit status is 1.

With PATH - it reads one file from stdin and writes it formatted to stdout,
for an editor's format-on-save: --lang hcl or --lang cue names its
language; without --lang it is HCL when it parses as HCL, else CUE. With a
syntax error it writes nothing to stdout and exits 1.`,
		run: runFmt,
	})
}

// fmtFlags are cc fmt's flags.
type fmtFlags struct {
	check, diff, recursive bool
	lang                   string
}

func runFmt(e *env, args []string) int {
	c := commands["fmt"]
	fs := e.flags(c)
	var ff fmtFlags
	fs.BoolVar(&ff.check, "check", false, "list unformatted files and exit 1 if any; change nothing")
	fs.BoolVar(&ff.diff, "diff", false, "print a unified diff of what formatting would change; change nothing")
	fs.BoolVar(&ff.recursive, "recursive", false, "format the files of PATH's subdirectories too")
	fs.StringVar(&ff.lang, "lang", "", "with PATH -, the language of stdin: `hcl` or cue (default: detected)")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	path, rc := e.pathArg(c, fs)
	if rc >= 0 {
		return rc
	}
	if path == "-" {
		return e.fmtStdin(c, ff)
	}
	if ff.lang != "" {
		return e.usageError(c, "--lang applies to PATH - (stdin) only; a file's extension names its language")
	}
	files, err := configFiles(path, ff.recursive)
	if err != nil {
		fmt.Fprintf(e.stderr, "cc fmt: %v\n", err)
		return exitError
	}
	rc = exitOK
	for _, f := range files {
		rc = max(rc, e.fmtFile(f, ff))
	}
	return rc
}

// fmtFile formats one file as ff says and returns its exit status.
func (e *env) fmtFile(f string, ff fmtFlags) int {
	src, err := schema.ReadRegular(f, compiler.DefaultMaxConfigSize)
	if err != nil {
		fmt.Fprintf(e.stderr, "cc fmt: %s: %v\n", f, err)
		return exitError
	}
	out, ferr := compiler.Format(f, src)
	if ferr != nil {
		e.printDiagnostics(ferr.Diagnostics, ferr.Files, false)
		return exitError
	}
	if bytes.Equal(src, out) {
		return exitOK
	}
	if ff.diff {
		fmt.Fprint(e.stdout, unifiedDiff(filepath.ToSlash(f), string(src), string(out)))
	} else {
		fmt.Fprintln(e.stdout, f)
	}
	switch {
	case ff.check:
		return exitError
	case ff.diff:
		return exitOK
	}
	fi, err := os.Stat(f)
	if err == nil {
		err = os.WriteFile(f, out, fi.Mode().Perm())
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "cc fmt: %v\n", err)
		return exitError
	}
	return exitOK
}

// configFiles lists the .cue and .hcl files at path: the file itself, or
// those in the directory, and with recursive those of its subdirectories
// but hidden ones (.cc, .git) and cue.mod.
func configFiles(path string, recursive bool) ([]string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.IsDir() {
		switch filepath.Ext(path) {
		case ".cue", ".hcl":
			return []string{path}, nil
		}
		return nil, fmt.Errorf("%s: not a .cue or .hcl file", path)
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != path && (!recursive || strings.HasPrefix(d.Name(), ".") || d.Name() == "cue.mod") {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(p); ext == ".cue" || ext == ".hcl" {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}
