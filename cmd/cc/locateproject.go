package main

import (
	"os"
	"path/filepath"

	"cc.dev/cc/compiler"
	"cc.dev/cc/schema"
)

// projectName compiles the project at path only to learn its name
// (scoped to in.Env) and root, for the commands that read or change
// stored state without planning (cc state, cc output): like Terraform's
// state commands they need no values for required HCL variables, which
// are unknown (issue 12: where unknown variables meet state commands).
// Only a name that itself depends on an unset variable needs it set: the
// error then is the plan's.
func (e *env) projectName(c *command, path string, in compiler.Input) (string, string, int) {
	known := in
	in.UnknownVariables = true
	res, rc := e.compile(c, path, in, false)
	if rc >= 0 {
		return "", "", rc
	}
	if res.Project == "" {
		if res, rc = e.compile(c, path, known, false); rc >= 0 {
			return "", "", rc
		}
		res.Project = res.Desired.Project
	}
	root := ""
	if res.Desired != nil {
		root = res.Desired.Root
	} else if root, rc = e.pathRoot(c, path); rc >= 0 {
		return "", "", rc
	}
	return schema.Scope(res.Project, in.Env), root, -1
}

// pathRoot is the directory of a project path: path itself, or the
// directory of a file.
func (e *env) pathRoot(c *command, path string) (string, int) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", e.fail(c, err)
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		return filepath.Dir(abs), -1
	}
	return abs, -1
}
