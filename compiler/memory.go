package compiler

import (
	"bufio"
	"bytes"
	"fmt"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"time"

	"cc.dev/cc/schema"
)

// The memory watchdog is the last line of defence against a configuration
// that exhausts memory where no limit of its own applies (a CUE
// comprehension over comprehensions, say): while compiling, the heap is
// sampled, and past the limit compilation is stopped with an error that
// names it, rather than the process dying of "out of memory".

// DefaultMaxMemory is the default limit on the heap while compiling: a
// quarter of the machine's memory (or of its cgroup's limit), at least
// 1 GiB. A quarter, not more, because values grow by doubling: the step
// after a sample must still fit.
var DefaultMaxMemory = sync.OnceValue(func() int64 {
	total := MemoryAvailable()
	if total <= 0 {
		return 4 << 30
	}
	return max(total/4, 1<<30)
})

// MemoryAvailable is the memory this process may use, as far as Linux
// says (MemTotal, or a smaller cgroup v2 limit); 0 when unknown.
func MemoryAvailable() int64 {
	var total int64
	if b, err := schema.ReadRegular("/proc/meminfo", 1<<20); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		for sc.Scan() {
			if f := strings.Fields(sc.Text()); len(f) >= 2 && f[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
					total = kb << 10
				}
			}
		}
	}
	if b, err := schema.ReadRegular("/sys/fs/cgroup/memory.max", 1<<10); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	return total
}

// MemoryError: compilation was stopped because the heap passed the limit.
type MemoryError struct {
	Limit int64
	Doing string
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("compilation used more than %s of memory, the limit, and was stopped while %s", schema.FormatSize(e.Limit), e.Doing)
}

// heapBytes is the memory held by heap objects, live or not yet swept.
func heapBytes() int64 {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// watchMemory samples the heap until done is closed; past limit it stops
// the compilation and sends a *MemoryError on the returned channel.
func watchMemory(limit int64, tr *tracker, done <-chan struct{}) <-chan error {
	ch := make(chan error, 1)
	go func() {
		t := time.NewTicker(10 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				if heapBytes() > limit {
					doing := tr.get()
					tr.stop()
					ch <- &MemoryError{Limit: limit, Doing: doing}
					return
				}
			}
		}
	}()
	return ch
}
