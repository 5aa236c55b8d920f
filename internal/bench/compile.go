package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"cc.dev/cc/compiler/workload"
)

// project generates the workload of n resources into WORK/wl-N (main.hcl
// and main.cue of the same project) and returns the directory.
func (r *runner) project(n int) (string, error) {
	dir := filepath.Join(r.work, fmt.Sprintf("wl-%d", n))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if err := workload.Write(dir, workload.Options{N: n}); err != nil {
		return "", fmt.Errorf("generate %d resources: %w", n, err)
	}
	return dir, nil
}

// ccSpec is a cc command on the project in dir: cc SUB ARGS... FILE.
func (r *runner) ccSpec(id string, n int, dir string, args ...string) cmdSpec {
	return cmdSpec{id: id, label: "`cc " + strings.Join(args, " ") + "`", argv: append([]string{r.bin.cc}, args...), dir: dir, resources: n, cc: true}
}

// compileArgs are cc compile's, with --no-cache when cc has it (the
// compile path measures the compiler, not the cache).
func (r *runner) compileArgs(args ...string) []string {
	out := []string{"compile"}
	if r.bin.noCacheCompile {
		out = append(out, "--no-cache")
	}
	return append(out, args...)
}

// compileSpecs are the compile path's commands: cue export and cc on
// main.cue, hclfloor and cc on main.hcl.
func (r *runner) compileSpecs(n int, dir string) (cue, hcl []cmdSpec) {
	if r.bin.cue != "" {
		cue = append(cue, cmdSpec{id: "cue-export", label: "`cue export main.cue`", argv: []string{r.bin.cue, "export", "main.cue"}, dir: dir, resources: n})
	}
	cue = append(cue,
		r.ccSpec("compile-cue", n, dir, r.compileArgs("main.cue")...),
		r.ccSpec("compile-cue-json", n, dir, r.compileArgs("--json", "main.cue")...))
	hcl = []cmdSpec{
		{id: "hclfloor", label: "`hclfloor main.hcl`", argv: []string{r.bin.hclfloor, "main.hcl"}, dir: dir, resources: n},
		r.ccSpec("compile-hcl", n, dir, r.compileArgs("main.hcl")...),
		r.ccSpec("compile-hcl-json", n, dir, r.compileArgs("--json", "main.hcl")...),
	}
	return cue, hcl
}

// compilePath measures compile at every size: both languages' commands in
// the same interleaved rounds.
func (r *runner) compilePath(ctx context.Context) error {
	for _, n := range r.cfg.sizes {
		dir, err := r.project(n)
		if err != nil {
			return err
		}
		cue, hcl := r.compileSpecs(n, dir)
		res, err := r.measure(ctx, fmt.Sprintf("compile %s", commas(n)), append(cue, hcl...), r.cfg.rounds, true)
		if err != nil {
			return err
		}
		r.keep(n, res)
		cueRes, hclRes := res[:len(cue)], res[len(cue):]
		t := &table{title: fmt.Sprintf("Compile, %s resources, CUE", commas(n)), rows: cueRes}
		if r.bin.cue != "" {
			t.bases = cueRes[:1]
		} else {
			t.notes = []string{"(no cue binary: `cue export` left out)"}
		}
		r.tables = append(r.tables, t,
			&table{title: fmt.Sprintf("Compile, %s resources, HCL", commas(n)), rows: hclRes, bases: hclRes[:1],
				notes: []string{"Same rounds as the CUE table above (all six commands interleaved, after one untimed warm-up round). `hclfloor` is internal/bench/hclfloor: bare hcl/v2 parse + evaluate of the same file."}})
		if err := r.profileSpecs(ctx, n, append(cue, hcl...)); err != nil {
			return err
		}
	}
	return nil
}

// keep records results for the memory and linearity tables.
func (r *runner) keep(n int, res []*result) {
	for _, x := range res {
		r.results[resultKey(n, x.spec.id)] = x
	}
}

func resultKey(n int, id string) string { return fmt.Sprintf("%d/%s", n, id) }
