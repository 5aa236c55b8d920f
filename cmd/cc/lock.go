package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cc.dev/cc/buildkit"
	"cc.dev/cc/compiler"
	"cc.dev/cc/schema"
)

func init() {
	register(&command{
		name:    "lock",
		args:    "[flags] [PATH]",
		summary: "pin base image references to digests in cc.lock",
		help: `Lock resolves every floating base image reference of the project at PATH
(a directory, or one .cue or .hcl file; default .), such as
"python:3.12-slim", to the digest it names now, and writes them to cc.lock
in the project root. Compile, plan and build then use the locked digests, so
content hashes stay put when a tag moves; --offline uses nothing else.

References already in cc.lock keep their digest unless --update is given;
entries no image uses any more are dropped. Registries are reached as crane
and ko reach them: credentials from the default keychain (docker login,
credential helpers), plain HTTP for localhost and loopback addresses and for
each --insecure-registry.`,
		run: runLock,
	})
}

func runLock(e *env, args []string) int {
	c := commands["lock"]
	fs := e.flags(c)
	var cf compileFlags
	var envName string
	cf.register(fs)
	registerEnv(fs, &envName)
	update := fs.Bool("update", false, "resolve references that are already locked again")
	var insecure, mirrors stringList
	fs.Var(&insecure, "insecure-registry", "reach registry `HOST` over plain HTTP (repeatable)")
	fs.Var(&mirrors, "registry-mirror", "resolve references of a registry at a mirror, `REGISTRY=HOST` (docker.io=localhost:5000; repeatable)")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	path, rc := e.pathArg(c, fs)
	if rc >= 0 {
		return rc
	}
	reg := &buildkit.Registry{Insecure: insecure, Mirrors: map[string]string{}}
	for _, m := range mirrors {
		k, v, ok := strings.Cut(m, "=")
		if !ok || k == "" || v == "" {
			return e.usageError(c, "--registry-mirror %q: want REGISTRY=HOST", m)
		}
		reg.Mirrors[k] = v
	}
	res, rc := e.compile(c, path, e.withEnvironment(compiler.Input{Vars: cf.vars, VarFiles: cf.varFiles, Tags: cf.tags}, envName), false)
	if rc >= 0 {
		return rc
	}
	file := filepath.Join(res.Desired.Root, schema.LockFile)
	old := &schema.Lock{Version: schema.LockVersion, Bases: map[string]string{}}
	if b, err := os.ReadFile(file); err == nil {
		if old, err = schema.ParseLock(b); err != nil {
			fmt.Fprintf(e.stderr, "cc lock: %v\n", err)
			return exitError
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(e.stderr, "cc lock: %v\n", err)
		return exitError
	}
	lock, changes, err := buildkit.Lock(e.ctx, reg, res.Desired, old, *update)
	if err != nil {
		fmt.Fprintf(e.stderr, "cc lock: %v\n", err)
		return exitError
	}
	if err := writeFileAtomic(file, lock.Marshal()); err != nil {
		fmt.Fprintf(e.stderr, "cc lock: %v\n", err)
		return exitError
	}
	for _, ch := range changes {
		switch {
		case ch.New == "":
			fmt.Fprintf(e.stdout, "removed %s\n", ch.Ref)
		case ch.Old == "":
			fmt.Fprintf(e.stdout, "locked %s@%s\n", ch.Ref, ch.New)
		default:
			fmt.Fprintf(e.stdout, "updated %s@%s (was %s)\n", ch.Ref, ch.New, ch.Old)
		}
	}
	fmt.Fprintf(e.stdout, "%s: %d base image(s) locked\n", schema.LockFile, len(lock.Bases))
	return exitOK
}

func writeFileAtomic(name string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".cc.lock-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(f.Name(), name)
}
