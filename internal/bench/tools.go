package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// binaries are the programs the paths run.
type binaries struct {
	cc, hclfloor, getstate, sha256floor string
	// cue is "" when cue export is left out.
	cue, cueVersion string
	// noCacheCompile and noCachePlan say cc compile and cc plan have
	// --no-cache (the compile cache, issue 13 aim 1).
	noCacheCompile, noCachePlan bool
}

// findRoot is the directory of cc's go.mod, at or above the working
// directory.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module cc.dev/cc\n")) {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("not inside the cc module (no go.mod of cc.dev/cc above the working directory)")
		}
		dir = up
	}
}

// goCmd runs go with args in root and returns its trimmed stdout.
func goCmd(ctx context.Context, root string, env []string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("go %s: %v\n%s", strings.Join(args, " "), err, indent(stderr.String(), "  "))
	}
	return strings.TrimSpace(string(out)), nil
}

// buildAll builds what the chosen paths need into WORK/bin.
func (r *runner) buildAll(ctx context.Context, root string) error {
	bin := filepath.Join(r.work, "bin")
	build := func(dst *string, pkg string) error {
		*dst = filepath.Join(bin, filepath.Base(pkg))
		fmt.Fprintf(r.progress, "bench: go build %s\n", pkg)
		_, err := goCmd(ctx, root, nil, "build", "-o", *dst, pkg)
		return err
	}
	p := r.cfg.paths
	steps := []struct {
		need bool
		dst  *string
		pkg  string
	}{
		{r.cfg.cc == "", &r.bin.cc, "./cmd/cc"},
		{p["compile"] || p["memory"], &r.bin.hclfloor, "./internal/bench/hclfloor"},
		{p["noop"], &r.bin.getstate, "./internal/bench/getstate"},
		{p["hash"], &r.bin.sha256floor, "./internal/bench/sha256floor"},
	}
	for _, s := range steps {
		if s.need {
			if err := build(s.dst, s.pkg); err != nil {
				return err
			}
		}
	}
	if r.cfg.cc != "" {
		abs, err := filepath.Abs(r.cfg.cc)
		if err != nil {
			return err
		}
		r.bin.cc = abs
	}
	r.bin.noCacheCompile = hasFlag(ctx, r.bin.cc, "compile", "--no-cache")
	r.bin.noCachePlan = hasFlag(ctx, r.bin.cc, "plan", "--no-cache")
	return nil
}

// hasFlag says whether cc's --help of sub names flag.
func hasFlag(ctx context.Context, cc, sub, flag string) bool {
	out, _ := exec.CommandContext(ctx, cc, sub, "--help").CombinedOutput()
	return bytes.Contains(out, []byte("  "+flag+"\n")) || bytes.Contains(out, []byte("  "+flag+" "))
}

// cueDir is where an installed cue is kept between runs.
const cueDir = "/tmp/cuebin"

// findCue sets bin.cue: -cue, else cue on PATH, else /tmp/cuebin/cue, else
// go install of go.mod's cuelang.org/go version into /tmp/cuebin.
func (r *runner) findCue(ctx context.Context, root string) error {
	if !r.cfg.paths["compile"] && !r.cfg.paths["memory"] || r.cfg.cue == "none" {
		return nil
	}
	path := r.cfg.cue
	if path == "" {
		path = lookCue()
	}
	if path == "" {
		v, err := goCmd(ctx, root, nil, "list", "-m", "-f", "{{.Version}}", "cuelang.org/go")
		if err != nil {
			return err
		}
		fmt.Fprintf(r.progress, "bench: installing cue %s into %s\n", v, cueDir)
		if _, err := goCmd(ctx, root, []string{"GOBIN=" + cueDir}, "install", "cuelang.org/go/cmd/cue@"+v); err != nil {
			return err
		}
		path = filepath.Join(cueDir, "cue")
	}
	out, err := exec.CommandContext(ctx, path, "version").Output()
	if err != nil {
		return fmt.Errorf("-cue %s: %w", path, err)
	}
	r.bin.cue = path
	r.bin.cueVersion, _, _ = strings.Cut(strings.TrimSpace(string(out)), "\n")
	return nil
}

// lookCue is cue on PATH, else /tmp/cuebin/cue, else "".
func lookCue() string {
	if p, err := exec.LookPath("cue"); err == nil {
		return p
	}
	p := filepath.Join(cueDir, "cue")
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return p
	}
	return ""
}
