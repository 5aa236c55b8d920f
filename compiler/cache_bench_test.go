package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"cc.dev/cc/compiler/workload"
)

var (
	benchOnce sync.Once
	benchIn   Input
)

// BenchmarkCompileCacheHit: issue 13: compile cache. A compile of a
// generated project of CC_BENCH_N resources (default 10,000) that hits the
// cache: the key (a walk of the root through the stat cache) and the
// decoding of the result.
func BenchmarkCompileCacheHit(b *testing.B) {
	n := 10000
	if s := os.Getenv("CC_BENCH_N"); s != "" {
		if _, err := fmt.Sscan(s, &n); err != nil {
			b.Fatal(err)
		}
	}
	benchOnce.Do(func() {
		dir, err := os.MkdirTemp("", "cc-cache-bench")
		if err == nil {
			err = workload.Write(dir, workload.Options{N: n})
		}
		if err != nil {
			b.Fatal(err)
		}
		benchIn = Input{Path: filepath.Join(dir, "main.hcl"), CacheDir: filepath.Join(dir, ".cc", "cache")}
		if _, err := Compile(b.Context(), benchIn); err != nil {
			b.Fatal(err)
		}
	})
	in := benchIn
	hits := 0
	cacheHitHook = func() { hits++ }
	defer func() { cacheHitHook = nil }()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Compile(b.Context(), in); err != nil {
			b.Fatal(err)
		}
	}
	if hits != b.N {
		b.Fatalf("%d hits in %d compiles", hits, b.N)
	}
}
