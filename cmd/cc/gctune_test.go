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
	dir := t.TempDir()
	big := make([]byte, 2<<20)
	os.WriteFile(filepath.Join(dir, "main.hcl"), big, 0o644)
	os.WriteFile(filepath.Join(dir, "vars.tfvars"), big[:1<<20], 0o644)
	os.WriteFile(filepath.Join(dir, "data.bin"), big, 0o644) // not configuration
	os.Mkdir(filepath.Join(dir, "sub.hcl"), 0o755)
	if n := configBytes(dir); n != 3<<20 {
		t.Errorf("configBytes(dir) = %d, want %d (the .hcl and .tfvars files)", n, 3<<20)
	}
	if n := configBytes(filepath.Join(dir, "main.hcl")); n != 2<<20 {
		t.Errorf("configBytes(file) = %d, want %d", n, 2<<20)
	}

	percent, limit := gcPacing()
	restore := tuneCompileGC(dir, 0)
	if p, l := gcPacing(); p != gcPercent || l != 3<<20*gcHeapPerConfigByte {
		t.Errorf("while compiling: GOGC=%d, limit %d; want %d and %d", p, l, gcPercent, 3<<20*gcHeapPerConfigByte)
	}
	restore()
	if p, l := gcPacing(); p != percent || l != limit {
		t.Errorf("after the compile: GOGC=%d, limit %d; want %d and %d back", p, l, percent, limit)
	}

	// Two compiles at once, ending in the order they began: the larger
	// limit holds until both are done, then the defaults are back.
	first := tuneCompileGC(filepath.Join(dir, "main.hcl"), 0)
	second := tuneCompileGC(dir, 0)
	if _, l := gcPacing(); l != 3<<20*gcHeapPerConfigByte {
		t.Errorf("two compiles: limit %d, want the larger, %d", l, 3<<20*gcHeapPerConfigByte)
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
	os.WriteFile(filepath.Join(small, "main.hcl"), big[:100<<10], 0o644)
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
// quarters of the limit gets the default pacing back while it runs (under the limit, the
// collector would run again and again), and the end of the compile
// leaves the defaults.
func TestTuneCompileGCBacksOff(t *testing.T) {
	if gcEnvSet {
		t.Skip("GOGC or GOMEMLIMIT is set in the test's environment")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.hcl"), make([]byte, 1<<20), 0o644) // a 64 MiB limit
	percent, limit := gcPacing()
	restore := tuneCompileGC(dir, 0)
	defer restore()
	if p, _ := gcPacing(); p != gcPercent {
		t.Fatalf("while compiling: GOGC=%d, want %d", p, gcPercent)
	}
	live := make([][]byte, 56)
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
			t.Fatalf("56 MiB live under a 64 MiB limit: GOGC=%d, limit %d after 10 s; want the defaults back (%d, %d)", p, l, percent, limit)
		}
		time.Sleep(gcWatchEvery)
	}
	runtime.KeepAlive(live)
	restore()
	if p, l := gcPacing(); p != percent || l != limit {
		t.Errorf("after the compile: GOGC=%d, limit %d; want %d and %d", p, l, percent, limit)
	}
}
