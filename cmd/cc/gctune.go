package main

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"time"

	"cc.dev/cc/compiler"
)

// The garbage collector's pacing for a compile (issue 13). With Go's
// default (GOGC=100) a large HCL compile collects 16 times: its live heap
// is small next to what it allocates, so the heap goal stays low, and the
// collector took a tenth of the compile's CPU. The compile of a project
// may use about 64 bytes of heap per byte of its configuration files
// (about 150 MiB at the generated 10,000 resources, under the 20 KiB per
// resource of the memory aim, with the process's own 30 MiB): cc lets
// the heap grow to that limit before it collects (GOGC=400, the limit
// as Go's soft memory limit), then puts the defaults back for the rest
// of the command. A user's GOGC or GOMEMLIMIT is left alone, and so are
// projects too small for it to matter.

const (
	// gcHeapPerConfigByte is the heap a compile may use per byte of
	// configuration.
	gcHeapPerConfigByte = 64
	// gcTuneFrom is the least heap limit worth setting: below it, the
	// default's few collections cost next to nothing.
	gcTuneFrom = 64 << 20
	// gcPercent is GOGC while compiling: the limit, not it, sets when the
	// collector runs for a project large enough to be tuned.
	gcPercent = 400
)

// gcEnvSet reports whether the user chose the collector's pacing.
var gcEnvSet = os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != ""

// gcPacer is the pacing set for compiles running at once: the first
// saves the defaults, the last puts them back, and the largest limit
// holds meanwhile.
type gcPacer struct {
	sync.Mutex
	running       int
	limit         int64
	percent       int
	previousLimit int64
	// backedOff: the live heap came near the limit, and the defaults are
	// back until every compile running is done.
	backedOff bool
}

// gcTuning is the process's pacer.
var gcTuning gcPacer

// gcWatchEvery is how often a tuned compile's live heap is looked at.
const gcWatchEvery = 10 * time.Millisecond

// tuneCompileGC sets the collector's pacing for the compile of the
// project at path, whose memory limit (the watchdog's, --max-memory) is
// maxMemory (0: the default, below 0: none), and returns what puts it
// back. Near the limit the collector would run without end, each
// collection finding little to free: a project whose configuration
// expands more than most (for_each over large collections) gets the
// defaults back as soon as its live heap passes three quarters of the
// limit. (Past half, the limit already leaves less room to the next
// collection than the default pacing would, as much again as is live;
// the generated 10,000 resources peak at half, and the default would
// take more memory there.)
func tuneCompileGC(path string, maxMemory int64) (restore func()) {
	limit, ok := compileHeapLimit(configBytes(path), maxMemory)
	if !ok || gcEnvSet {
		return func() {}
	}
	g := &gcTuning
	g.Lock()
	defer g.Unlock()
	switch {
	case g.running == 0:
		g.percent = debug.SetGCPercent(gcPercent)
		g.previousLimit, g.limit, g.backedOff = debug.SetMemoryLimit(limit), limit, false
	case !g.backedOff && limit > g.limit:
		debug.SetMemoryLimit(limit)
		g.limit = limit
	}
	g.running++
	done := make(chan struct{})
	go watchLiveHeap(done)
	var once sync.Once
	return func() {
		once.Do(func() {
			close(done)
			g.Lock()
			defer g.Unlock()
			if g.running--; g.running == 0 && !g.backedOff {
				g.backOff()
			}
		})
	}
}

// backOff puts the default pacing back; g is locked.
func (g *gcPacer) backOff() {
	debug.SetGCPercent(g.percent)
	debug.SetMemoryLimit(g.previousLimit)
	g.backedOff = true
}

// watchLiveHeap backs off when the live heap passes three quarters of
// the limit, until done is closed.
func watchLiveHeap(done <-chan struct{}) {
	t := time.NewTicker(gcWatchEvery)
	defer t.Stop()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	for {
		select {
		case <-done:
			return
		case <-t.C:
		}
		metrics.Read(s)
		if s[0].Value.Kind() != metrics.KindUint64 {
			return
		}
		live := int64(s[0].Value.Uint64())
		g := &gcTuning
		g.Lock()
		if !g.backedOff && g.running > 0 && live > g.limit/4*3 {
			g.backOff()
		}
		stop := g.backedOff
		g.Unlock()
		if stop {
			return
		}
	}
}

// compileHeapLimit is the heap limit of a compile of configuration files
// of n bytes; false when the default pacing is kept. The limit stays
// under half the watchdog's, so that the garbage the collector leaves
// never trips it, and under a quarter of the machine's memory (or its
// cgroup's limit: in a container of 512 MiB, letting the heap of a large
// project grow to 512 MiB would have it killed where the default pacing
// fits).
func compileHeapLimit(n, maxMemory int64) (int64, bool) {
	return heapLimitOn(n, maxMemory, compiler.MemoryAvailable())
}

// heapLimitOn is compileHeapLimit on a machine with memory bytes (0:
// unknown).
func heapLimitOn(n, maxMemory, memory int64) (int64, bool) {
	limit := n * gcHeapPerConfigByte
	if maxMemory == 0 {
		maxMemory = compiler.DefaultMaxMemory()
	}
	if maxMemory > 0 {
		limit = min(limit, maxMemory/2)
	}
	if memory > 0 {
		limit = min(limit, memory/4)
	}
	return limit, limit >= gcTuneFrom
}

// configBytes is the size of the configuration files at path: the file,
// or the .hcl, .cue and .tfvars files of the directory (an estimate: the
// compiler reads what it reads, and files it imports are left out).
func configBytes(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	if !fi.IsDir() {
		return fi.Size()
	}
	es, err := os.ReadDir(path)
	if err != nil {
		return 0
	}
	var n int64
	for _, e := range es {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".hcl", ".cue", ".tfvars":
		default:
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			n += fi.Size()
		}
	}
	return n
}
