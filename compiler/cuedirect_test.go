package compiler

import (
	"context"
	"testing"

	"cc.dev/cc/compiler/workload"
)

// loadDirect loads the CUE project at path the direct way, failing the
// test when it does not take it.
func loadDirect(t *testing.T, path string) *loaded {
	t.Helper()
	p, err := locate(path, DefaultMaxConfigSize)
	if err != nil {
		t.Fatal(err)
	}
	inst, _, ds := loadCUEInstance(p)
	if ds != nil {
		t.Fatal(ds)
	}
	verdict := cueGateVerdict(p, inst)
	if !verdict.plain {
		t.Fatalf("%s: the gate refuses: %s", path, verdict.why)
	}
	tree, err := newDirectTree(inst)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !tree.topLevelDirect() {
		t.Fatalf("%s: top level not direct", path)
	}
	if _, err := tree.collect(compiledSchemaOf(p.schema())); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	ld := directCUE(p, inst, verdict)
	if ld == nil {
		t.Fatalf("%s: not loaded the direct way", path)
	}
	return ld
}

// TestDirectCUEWorkload: the generated projects take the direct way, and
// (crossCheck) CUE's way gives the same (issue 13: CUE compile).
func TestDirectCUEWorkload(t *testing.T) {
	for _, o := range []workload.Options{{N: 3}, {N: 200}, {N: 1000, ImageShare: 0.5, CopyBytes: 4096}} {
		dir := t.TempDir()
		if err := workload.Write(dir, o); err != nil {
			t.Fatal(err)
		}
		loadDirect(t, dir+"/main.cue")
		p, err := locate(dir+"/main.cue", DefaultMaxConfigSize)
		if err != nil {
			t.Fatal(err)
		}
		if _, ds := loadCUE(context.Background(), p); ds.HasErrors() {
			t.Fatal(ds)
		}
	}
}
