package compiler

import (
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The hashing benchmark (issue 13, aim 4): cc's hashing of a copied tree
// against the floor, a plain Go sha256 of the same files by one worker
// and by GOMAXPROCS workers, interleaved in each iteration. The tree is
// made once under the temporary directory and kept for later runs:
// CC_HASH_BENCH=big makes the 1 GB one (1,603 files of mixed sizes, as
// in the issue); the default is a 64 MiB tree of 100 files.
//
//	CC_HASH_BENCH=big go test ./compiler -run '^$' -bench HashTree -benchtime 7x

// hashBenchSizes average 650 KiB: 1,603 of them make 1 GB.
var hashBenchSizes = []int{2 << 10, 40 << 10, 300 << 10, 700 << 10, 1 << 20, 1200 << 10, 1300 << 10}

// hashBenchRoot is the root of the benchmark's project; its tree is ctx.
func hashBenchRoot(b *testing.B) string {
	n, name := 100, "small"
	if os.Getenv("CC_HASH_BENCH") == "big" {
		n, name = 1603, "big"
	} else {
		b.Log("a 64 MiB tree; CC_HASH_BENCH=big hashes the 1 GB one")
	}
	root := filepath.Join(os.TempDir(), "cc-hashbench-"+name)
	if _, err := os.Stat(filepath.Join(root, "done")); err == nil {
		return root
	}
	os.RemoveAll(root)
	writeHashTree(b, filepath.Join(root, "ctx"), n, hashBenchSizes)
	if err := os.WriteFile(filepath.Join(root, "done"), nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return root
}

// benchFiles lists the regular files under dir.
func benchFiles(b *testing.B, dir string) []string {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return files
}

// floorHash is the floor: the sha256 of every file, with 1 MiB reads, by
// workers goroutines.
func floorHash(b *testing.B, files []string, workers int) {
	next := make(chan string)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 1<<20)
			for p := range next {
				f, err := os.Open(p)
				if err != nil {
					b.Error(err)
					continue
				}
				_, err = io.CopyBuffer(sha256.New(), f, buf)
				f.Close()
				if err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for _, p := range files {
		next <- p
	}
	close(next)
	wg.Wait()
}

// BenchmarkHashTree: per iteration, the one-worker floor, the
// GOMAXPROCS-worker floor and cc's hashing of the tree (a new fileHasher,
// as each compile has), interleaved, their order rotated; reports the
// medians, the median of cc's per-iteration ratio to the one-worker floor
// (the aim: at most 0.5 on 2 cores), and the CPU time each takes (which a
// busy machine does not skew as it does wall time).
func BenchmarkHashTree(b *testing.B) {
	root := hashBenchRoot(b)
	files := benchFiles(b, filepath.Join(root, "ctx"))
	ccHash := func() {
		h, err := newFileHasher(root)
		if err != nil {
			b.Fatal(err)
		}
		h.track = &tracker{}
		if s := h.tree([]string{"ctx"}, "ctx", nil, nil); s.err != nil {
			b.Fatal(s.err)
		}
	}
	runs := []func(){
		func() { floorHash(b, files, 1) },
		func() { floorHash(b, files, runtime.GOMAXPROCS(0)) },
		ccHash,
	}
	var wall, cpu [3][]time.Duration
	var ratios []time.Duration // cc/floor1 per iteration, in thousandths
	for i := 0; b.Loop(); i++ {
		var w [3]time.Duration
		for k := range runs {
			j := (i + k) % len(runs)
			start, c0 := time.Now(), cpuTime()
			runs[j]()
			w[j] = time.Since(start)
			wall[j] = append(wall[j], w[j])
			cpu[j] = append(cpu[j], cpuTime()-c0)
		}
		ratios = append(ratios, 1000*w[2]/w[0])
	}
	b.ReportMetric(float64(median(wall[0]).Milliseconds()), "floor1-ms")
	b.ReportMetric(float64(median(wall[1]).Milliseconds()), fmt.Sprintf("floor%d-ms", runtime.GOMAXPROCS(0)))
	b.ReportMetric(float64(median(wall[2]).Milliseconds()), "cc-ms")
	b.ReportMetric(float64(median(ratios))/1000, "cc/floor1")
	b.ReportMetric(float64(median(cpu[0]).Milliseconds()), "floor1-cpu-ms")
	b.ReportMetric(float64(median(cpu[1]).Milliseconds()), fmt.Sprintf("floor%d-cpu-ms", runtime.GOMAXPROCS(0)))
	b.ReportMetric(float64(median(cpu[2]).Milliseconds()), "cc-cpu-ms")
	b.ReportMetric(0, "ns/op")
}

// cpuTime is the CPU time the process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}
