package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"cc.dev/cc/compiler"
	"cc.dev/cc/schema"
)

func init() {
	register(&command{
		name:    "fmt",
		args:    "[--check] [PATH]",
		summary: "format CUE and HCL configuration files",
		help: `Fmt rewrites the configuration files at PATH (a directory's .cue and .hcl
files, or one file; default .) in their language's canonical format: CUE's
formatter for .cue files, hclwrite's for .hcl files. It prints the name of
each file it changed.

With --check it changes nothing: it prints the files that are not formatted
and exits 1 if there are any. A file with a syntax error is reported with its
position and left alone.`,
		run: runFmt,
	})
}

func runFmt(e *env, args []string) int {
	c := commands["fmt"]
	fs := e.flags(c)
	check := fs.Bool("check", false, "list unformatted files and exit 1 if any; change nothing")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	path, rc := e.pathArg(c, fs)
	if rc >= 0 {
		return rc
	}
	files, err := configFiles(path)
	if err != nil {
		fmt.Fprintf(e.stderr, "cc fmt: %v\n", err)
		return exitError
	}
	rc = exitOK
	for _, f := range files {
		src, err := schema.ReadRegular(f, compiler.DefaultMaxConfigSize)
		if err != nil {
			fmt.Fprintf(e.stderr, "cc fmt: %s: %v\n", f, err)
			rc = exitError
			continue
		}
		out, ferr := compiler.Format(f, src)
		if ferr != nil {
			e.printDiagnostics(ferr.Diagnostics, ferr.Files, false)
			rc = exitError
			continue
		}
		if bytes.Equal(src, out) {
			continue
		}
		fmt.Fprintln(e.stdout, f)
		if *check {
			rc = exitError
			continue
		}
		fi, err := os.Stat(f)
		if err == nil {
			err = os.WriteFile(f, out, fi.Mode().Perm())
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "cc fmt: %v\n", err)
			rc = exitError
		}
	}
	return rc
}

// configFiles lists the .cue and .hcl files at path: the file itself, or
// those directly in the directory.
func configFiles(path string) ([]string, error) {
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
	ents, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, ent := range ents {
		if ext := filepath.Ext(ent.Name()); !ent.IsDir() && (ext == ".cue" || ext == ".hcl") {
			out = append(out, filepath.Join(path, ent.Name()))
		}
	}
	sort.Strings(out)
	return out, nil
}
