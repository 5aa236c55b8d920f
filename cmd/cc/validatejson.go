package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cc.dev/cc/compiler"
	"cc.dev/cc/diag"
)

// validateJSON compiles the project at path for cc validate --json and
// prints one document in the shape of terraform validate -json on stdout,
// valid or not (issue 12: validate --json). It exits 1 when the
// configuration has errors. Snippets show the configuration's source text
// only, never an evaluated value, and only of the files the compiler
// kept for snippets (it drops a -var-file holding a sensitive value).
func (e *env) validateJSON(path string, in compiler.Input) int {
	in.Path = path
	ctx, cancel, timeout := e.compileLimits(&in)
	defer cancel()
	res, err := compiler.Compile(ctx, in)
	var ds diag.Diagnostics
	var files map[string][]byte
	var cerr *compiler.Error
	switch {
	case errors.As(err, &cerr):
		ds, files = cerr.Diagnostics, cerr.Files
	case err != nil:
		ds = diag.Diagnostics{diag.Errorf(nil, "%s", compileFailure(err, timeout))}
	default:
		ds, files = res.Warnings, res.Files
	}
	doc := diag.NewValidateDocument(ds, func(name string) []byte { return files[name] }, compiler.BlockContexts(), relativeTo(path))
	if err := diag.WriteValidateJSON(e.stdout, doc); err != nil {
		fmt.Fprintf(e.stderr, "cc validate: %v\n", err)
		return exitError
	}
	if !doc.Valid {
		return exitError
	}
	return exitOK
}

// relativeTo renames a diagnostic's file, named as the user pointed cc at
// the project (bad/main.hcl for cc validate bad), to its name relative to
// the project root (main.hcl), as Terraform names a module's files. A
// file outside the root (a -var-file elsewhere) keeps its name.
func relativeTo(path string) func(string) string {
	root := path
	if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
		root = filepath.Dir(path)
	}
	return func(name string) string {
		rel, err := filepath.Rel(root, name)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(name) != filepath.IsAbs(root) {
			return name
		}
		return filepath.ToSlash(rel)
	}
}
