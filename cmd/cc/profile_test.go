package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// issue 13: --cpuprofile and --memprofile (and $CC_CPUPROFILE,
// $CC_MEMPROFILE) write profiles go tool pprof reads: gzipped protocol
// buffers, there when the command has returned.
func TestProfileFlags(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.pprof"), filepath.Join(dir, "mem.pprof")
	mustCC(t, 0, "compile", "../../examples/quickstart/main.hcl", "--cpuprofile", cpu, "--memprofile", mem)
	for _, f := range []string{cpu, mem} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte{0x1f, 0x8b}) {
			t.Errorf("%s is not a gzipped profile (%d bytes)", filepath.Base(f), len(b))
		}
	}
	envCPU := filepath.Join(dir, "env-cpu.pprof")
	t.Setenv("CC_CPUPROFILE", envCPU)
	mustCC(t, 0, "validate", "../../examples/quickstart/main.hcl")
	if fi, err := os.Stat(envCPU); err != nil || fi.Size() == 0 {
		t.Errorf("CC_CPUPROFILE wrote no profile: %v", err)
	}
	t.Setenv("CC_CPUPROFILE", "")
	_, errs := mustCC(t, 2, "compile", "../../examples/quickstart/main.hcl", "--cpuprofile", filepath.Join(dir, "no", "such", "dir"))
	if !bytes.Contains([]byte(errs), []byte("--cpuprofile: ")) {
		t.Errorf("stderr = %q, want the --cpuprofile error", errs)
	}
}
