package compiler

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/compiler/workload"
)

// cacheProbe counts compile cache hits and content reads (issue 13:
// compile cache, stat cache).
type cacheProbe struct {
	mu    sync.Mutex
	hits  int
	reads []string
}

func probeCache(t *testing.T) *cacheProbe {
	p := &cacheProbe{}
	cacheHitHook = func() { p.mu.Lock(); p.hits++; p.mu.Unlock() }
	contentReadHook = func(abs string) { p.mu.Lock(); p.reads = append(p.reads, abs); p.mu.Unlock() }
	t.Cleanup(func() { cacheHitHook, contentReadHook = nil, nil })
	return p
}

// take gives the hits and reads since the last take.
func (p *cacheProbe) take() (int, []string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h, r := p.hits, p.reads
	p.hits, p.reads = 0, nil
	return h, r
}

// compileColdCached compiles in cold (no cache) and through the cache in dir,
// and fails unless the two results are the same: desired state (canonical
// bytes and every position), warnings, sources, unlocked images.
func compileColdCached(t *testing.T, in Input, dir string) *Result {
	t.Helper()
	cold, err := Compile(context.Background(), in)
	if err != nil {
		t.Fatalf("cold Compile(%s): %v", in.Path, err)
	}
	in.CacheDir = dir
	warm, err := Compile(context.Background(), in)
	if err != nil {
		t.Fatalf("cached Compile(%s): %v", in.Path, err)
	}
	sameResult(t, cold, warm)
	return warm
}

func sameResult(t *testing.T, cold, warm *Result) {
	t.Helper()
	cb, err1 := cold.Desired.MarshalCanonical()
	wb, err2 := warm.Desired.MarshalCanonical()
	if err1 != nil || err2 != nil || !bytes.Equal(cb, wb) {
		t.Fatalf("cached desired state differs from a cold compile (%v %v):\ncold %.300s\nwarm %.300s", err1, err2, cb, wb)
	}
	if d := cmp.Diff(cold, warm); d != "" {
		t.Fatalf("cached result differs from a cold compile:\n%s", d)
	}
}

// backdate sets every file's mtime an hour back, so that none is racily
// clean when the stat cache records it.
func backdate(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(p, "/.cc/") {
			os.Chtimes(p, old, old)
		}
		return nil
	})
}

// TestCompileCacheSameAsCold: issue 13: compile cache. Over every example
// in both languages and a generated project, a cached compile gives what
// a cold one gives, after touching, editing (same size too) and
// restoring a file; an unchanged project is a hit.
func TestCompileCacheSameAsCold(t *testing.T) {
	dirs, _ := filepath.Glob("../examples/*")
	gen := t.TempDir()
	if err := workload.Write(gen, workload.Options{N: 100}); err != nil {
		t.Fatal(err)
	}
	dirs = append(dirs, gen)
	for _, src := range dirs {
		for _, lang := range []string{"main.cue", "main.hcl"} {
			t.Run(filepath.Base(src)+"/"+lang, func(t *testing.T) {
				dir := t.TempDir()
				copyTree(t, src, dir)
				cacheRoundTrip(t, dir, lang)
			})
		}
	}
}

func cacheRoundTrip(t *testing.T, dir, lang string) {
	p := probeCache(t)
	cache := filepath.Join(dir, ".cc", "cache")
	in := Input{Path: filepath.Join(dir, lang)}
	main := filepath.Join(dir, lang)
	orig, _ := os.ReadFile(main)
	step := func(name string, wantHit bool) {
		t.Helper()
		compileColdCached(t, in, cache)
		if hits, _ := p.take(); (hits == 1) != wantHit {
			t.Fatalf("%s: %d cache hits, want hit %v", name, hits, wantHit)
		}
	}
	step("first compile", false)
	step("unchanged", true)
	later := time.Now().Add(time.Minute)
	os.Chtimes(main, later, later)
	step("touched", true)
	os.WriteFile(main, append(append([]byte{}, orig...), "\n//a\n"...), 0o644)
	step("edited", false)
	os.WriteFile(main, append(append([]byte{}, orig...), "\n//b\n"...), 0o644)
	step("edited, same size", false)
	os.WriteFile(main, orig, 0o644)
	step("restored", false)
	step("restored, unchanged", true)
}
