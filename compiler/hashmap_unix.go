//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package compiler

import (
	"hash"
	"os"
	"runtime/debug"
	"syscall"
)

// Hashing maps a large file's pages instead of reading them (issue 13,
// aim 4a): a read copies every byte from the page cache into a buffer
// before sha256 sees it, a fifth of the CPU that hashing a large tree
// takes; a mapping lets sha256 read the page cache itself. A file is
// mapped a window at a time, so at most mapWindow bytes per worker are
// mapped at once, and the mapping ends with the window.

// mapMin is the size from which a file is mapped rather than read; a
// smaller one is read whole in one call.
const mapMin = 256 << 10

// mapWindow is how much of a file is mapped at once.
const mapWindow = 4 << 20

// sumMapped feeds the first size bytes of f to sum through mappings.
// mapped is false when it could not: the file cannot be mapped (some
// file systems refuse), or it shrank meanwhile, so that a page was gone
// when sha256 touched it (SIGBUS, turned into a panic for this goroutine
// by SetPanicOnFault and recovered here); the caller then starts again
// with reads. err is set only when the compilation was stopped.
func sumMapped(f *os.File, size int64, sum hash.Hash, tr *tracker) (mapped bool, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			if _, fault := r.(interface{ Addr() uintptr }); !fault {
				panic(r)
			}
			mapped, err = false, nil
		}
	}()
	for off := int64(0); off < size; off += mapWindow {
		if tr.isStopped() {
			return true, errStopped
		}
		if readHook != nil {
			readHook()
		}
		if !sumWindow(f, off, int(min(mapWindow, size-off)), sum) {
			return false, nil
		}
	}
	return true, nil
}

// sumWindow feeds n bytes of f from off to sum through one mapping,
// unmapped however it ends.
func sumWindow(f *os.File, off int64, n int, sum hash.Hash) bool {
	b, err := syscall.Mmap(int(f.Fd()), off, n, syscall.PROT_READ, syscall.MAP_SHARED)
	if err != nil {
		return false
	}
	defer syscall.Munmap(b)
	sum.Write(b)
	return true
}
