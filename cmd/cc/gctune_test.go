package main

import (
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

// gcPacing is the collector's GOGC and memory limit, read without
// changing them.
func gcPacing() (percent int, limit int64) {
	percent = debug.SetGCPercent(100)
	debug.SetGCPercent(percent)
	return percent, debug.SetMemoryLimit(-1)
}

// TestTuneCompileGC: the compile of a large project lets the heap grow to
// 64 bytes per byte of its configuration files (GOGC=400 under that
// soft limit), and the defaults are back once it is done; a small
// project, or a user's GOGC or GOMEMLIMIT, keeps the default pacing.
func TestTuneCompileGC(t *testing.T) {
	if gcEnvSet {
		t.Skip("GOGC or GOMEMLIMIT is set in the test's environment")
	}
	// Sparse files, large enough that the test process's own live heap
	// stays far under three quarters of the limits (the watcher would
	// back off).
	dir := t.TempDir()
	sized := func(name string, n int64) {
		t.Helper()
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := f.Truncate(n); err != nil {
			t.Fatal(err)
		}
		f.Close()
	}
	sized("main.hcl", 8<<20)
	sized("vars.tfvars", 4<<20)
	sized("data.bin", 8<<20) // not configuration
	os.Mkdir(filepath.Join(dir, "sub.hcl"), 0o755)
	if n := configBytes(dir); n != 12<<20 {
		t.Errorf("configBytes(dir) = %d, want %d (the .hcl and .tfvars files)", n, 12<<20)
	}
	if n := configBytes(filepath.Join(dir, "main.hcl")); n != 8<<20 {
		t.Errorf("configBytes(file) = %d, want %d", n, 8<<20)
	}
	whole, _ := compileHeapLimit(12<<20, 0)
	part, _ := compileHeapLimit(8<<20, 0)
	if whole != 12<<20*gcHeapPerConfigByte || part != 8<<20*gcHeapPerConfigByte {
		t.Skipf("this machine caps the limits (%d, %d): too small for this test", whole, part)
	}

	percent, limit := gcPacing()
	restore := tuneCompileGC(dir, 0)
	if p, l := gcPacing(); p != gcPercent || l != whole {
		t.Errorf("while compiling: GOGC=%d, limit %d; want %d and %d", p, l, gcPercent, whole)
	}
	restore()
	if p, l := gcPacing(); p != percent || l != limit {
		t.Errorf("after the compile: GOGC=%d, limit %d; want %d and %d back", p, l, percent, limit)
	}

	// Two compiles at once, ending in the order they began: the larger
	// limit holds until both are done, then the defaults are back.
	first := tuneCompileGC(filepath.Join(dir, "main.hcl"), 0)
	second := tuneCompileGC(dir, 0)
	if _, l := gcPacing(); l != whole {
		t.Errorf("two compiles: limit %d, want the larger, %d", l, whole)
	}
	first()
	first() // once
	if p, _ := gcPacing(); p != gcPercent {
		t.Errorf("one of two compiles done: GOGC=%d, want %d", p, gcPercent)
	}
	second()
	if p, l := gcPacing(); p != percent || l != limit {
		t.Errorf("both compiles done: GOGC=%d, limit %d; want %d and %d back", p, l, percent, limit)
	}

	small := t.TempDir()
	os.WriteFile(filepath.Join(small, "main.hcl"), make([]byte, 100<<10), 0o644)
	restore = tuneCompileGC(small, 0)
	if p, l := gcPacing(); p != percent || l != limit {
		t.Errorf("a small project: GOGC=%d, limit %d; want the defaults", p, l)
	}
	restore()

	gcEnvSet = true
	defer func() { gcEnvSet = false }()
	restore = tuneCompileGC(dir, 0)
	if p, l := gcPacing(); p != percent || l != limit {
		t.Errorf("with GOGC set: GOGC=%d, limit %d; want the user's", p, l)
	}
	restore()
}

// TestCompileHeapLimit: the limit stays under half of --max-memory and
// a quarter of the machine's (or cgroup's) memory, and none is set below
// gcTuneFrom.
func TestCompileHeapLimit(t *testing.T) {
	for _, c := range []struct {
		n, max, memory, want int64
		ok                   bool
	}{
		{2 << 20, 0, 0, 128 << 20, true},
		{100 << 10, 0, 0, 100 << 10 * gcHeapPerConfigByte, false},
		{10 << 20, 300 << 20, 0, 150 << 20, true},
		{10 << 20, 100 << 20, 0, 50 << 20, false},
		{10 << 20, -1, 0, 640 << 20, true},
		{10 << 20, -1, 512 << 20, 128 << 20, true}, // a 512 MiB container
		{10 << 20, -1, 24 << 30, 640 << 20, true},
		{2 << 20, 0, 200 << 20, 50 << 20, false},
	} {
		got, ok := heapLimitOn(c.n, c.max, c.memory)
		if got != c.want || ok != c.ok {
			t.Errorf("heapLimitOn(%d, %d, %d) = %d, %v; want %d, %v", c.n, c.max, c.memory, got, ok, c.want, c.ok)
		}
	}
}

// TestTuneCompileGCBacksOff: a compile whose live heap passes three
// quarters of the limit gets the default pacing back while it runs
// (under the limit, the collector would run again and again), and the
// end of the compile leaves the defaults.
func TestTuneCompileGCBacksOff(t *testing.T) {
	if gcEnvSet {
		t.Skip("GOGC or GOMEMLIMIT is set in the test's environment")
	}
	// A sparse 4 MiB file: a 256 MiB limit, far over what the test
	// process holds live by itself.
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "main.hcl"))
	if err != nil {
		t.Fatal(err)
	}
	f.Truncate(4 << 20)
	f.Close()
	if l, _ := compileHeapLimit(4<<20, 0); l != 256<<20 {
		t.Skipf("this machine caps the limit at %d: too small for this test", l)
	}
	percent, limit := gcPacing()
	restore := tuneCompileGC(dir, 0)
	defer restore()
	if p, _ := gcPacing(); p != gcPercent {
		t.Fatalf("while compiling: GOGC=%d, want %d", p, gcPercent)
	}
	live := make([][]byte, 224)
	for i := range live {
		live[i] = make([]byte, 1<<20)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		runtime.GC()
		if p, l := gcPacing(); p == percent && l == limit {
			break
		}
		if time.Now().After(deadline) {
			p, l := gcPacing()
			t.Fatalf("224 MiB live under a 256 MiB limit: GOGC=%d, limit %d after 10 s; want the defaults back (%d, %d)", p, l, percent, limit)
		}
		time.Sleep(gcWatchEvery)
	}
	runtime.KeepAlive(live)
	restore()
	if p, l := gcPacing(); p != percent || l != limit {
		t.Errorf("after the compile: GOGC=%d, limit %d; want %d and %d", p, l, percent, limit)
	}
}
