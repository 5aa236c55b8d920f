package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"cc.dev/cc/schema"
)

// hashTreeSizes are file sizes around the read sizes, old and new, and
// around where files are mapped and the mapping's window.
var hashTreeSizes = []int{0, 1, 100, 32<<10 - 1, 32 << 10, 32<<10 + 1, mapMin - 1, mapMin, hashBufSize - 1, hashBufSize, hashBufSize + 1, 3*hashBufSize + 5, mapWindow + 1}

// writeHashTree writes n files of the given sizes (cycled) under dir, in
// nested directories, every third executable.
func writeHashTree(t testing.TB, dir string, n int, sizes []int) {
	t.Helper()
	r := rand.NewChaCha8([32]byte{1, 2})
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%d/e%d/f%04d", i%7, i%3, i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		b := make([]byte, sizes[i%len(sizes)])
		r.Read(b)
		mode := os.FileMode(0o644)
		if i%3 == 0 {
			mode = 0o755
		}
		if err := os.WriteFile(p, b, mode); err != nil {
			t.Fatal(err)
		}
	}
}

// serialTreeEntries is the tree of dir as a plain serial walk sees it: the
// reference the parallel hashing must match byte for byte.
func serialTreeEntries(t *testing.T, dir string) []schema.TreeEntry {
	t.Helper()
	var list []schema.TreeEntry
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(p)
			sum := sha256.Sum256([]byte(target))
			list = append(list, schema.TreeEntry{Path: rel, Mode: "link", Size: int64(len(target)), Digest: "sha256:" + hex.EncodeToString(sum[:])})
			return err
		}
		b, err := os.ReadFile(p)
		fi, _ := d.Info()
		sum := sha256.Sum256(b)
		list = append(list, schema.TreeEntry{Path: rel, Mode: modeOf(fi.Mode()), Size: int64(len(b)), Digest: "sha256:" + hex.EncodeToString(sum[:])})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	return list
}

func testHasher(t testing.TB, root string, workers int) *fileHasher {
	t.Helper()
	h, err := newFileHasher(root)
	if err != nil {
		t.Fatal(err)
	}
	h.track = &tracker{}
	h.pool = newHashPool(workers)
	return h
}

// setHook sets a test hook for the test's length.
func setHook[T any](t *testing.T, hook *T, v T) {
	var zero T
	*hook = v
	t.Cleanup(func() { *hook = zero })
}

// TestParallelTreeMatchesSerial: issue 13, hashing in parallel: a tree
// hashed by the pool, with 1, 2 and 8 workers, has the entries and the
// digest a serial walk gives.
func TestParallelTreeMatchesSerial(t *testing.T) {
	root := t.TempDir()
	ctx := filepath.Join(root, "ctx")
	writeHashTree(t, ctx, 3*len(hashTreeSizes), hashTreeSizes)
	if err := os.Symlink("d1/e1/f0001", filepath.Join(ctx, "link")); err != nil {
		t.Fatal(err)
	}
	want := serialTreeEntries(t, ctx)
	wantDigest, _, err := schema.HashOf(want)
	if err != nil {
		t.Fatal(err)
	}
	for _, workers := range []int{1, 2, 8} {
		h := testHasher(t, root, workers)
		s := h.tree([]string{"ctx"}, "ctx", nil, nil)
		if s.err != nil {
			t.Fatal(s.err)
		}
		if s.digest != wantDigest {
			t.Errorf("%d workers: digest %s, want %s", workers, s.digest, wantDigest)
		}
		got := h.entries[s.digest]
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%d workers: entries differ:\n got %v\nwant %v", workers, got, want)
		}
	}
}

// TestHashPoolHashesConcurrently: issue 13, hashing in parallel: with two
// workers, two files of one tree are hashed at the same time (each
// worker waits, in the hook, for the other to arrive).
func TestHashPoolHashesConcurrently(t *testing.T) {
	root := t.TempDir()
	writeHashTree(t, filepath.Join(root, "ctx"), 4, []int{10})
	var arrived sync.WaitGroup
	arrived.Add(2)
	var n atomic.Int32
	var timedOut atomic.Bool
	setHook(t, &hashHook, func(string) {
		if n.Add(1) > 2 {
			return
		}
		arrived.Done()
		done := make(chan struct{})
		go func() { arrived.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			timedOut.Store(true)
		}
	})
	h := testHasher(t, root, 2)
	if s := h.tree([]string{"ctx"}, "ctx", nil, nil); s.err != nil {
		t.Fatal(s.err)
	}
	if timedOut.Load() {
		t.Fatal("the two workers never hashed at the same time")
	}
}

// TestHashLargeReads: issue 13, large reads: a file is read in chunks of
// hashBufSize (a file up to it in one read, plus the read that finds the
// end), not 32 KiB; from mapMin on it is mapped, a window of mapWindow at
// a time (readHook runs before each), plus the read that finds the end.
func TestHashLargeReads(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ size, reads, mapped int }{{0, 1, 1}, {1000, 2, 2}, {mapMin - 1, 2, 2}, {mapMin, 2, 2}, {hashBufSize, 2, 2}, {3*hashBufSize + 1, 5, 2}, {3*mapWindow + 1, 14, 5}} {
		if c.size >= mapMin {
			c.reads = c.mapped
		}
		p := filepath.Join(dir, fmt.Sprint(c.size))
		if err := os.WriteFile(p, make([]byte, c.size), 0o644); err != nil {
			t.Fatal(err)
		}
		var reads atomic.Int32
		setHook(t, &readHook, func() { reads.Add(1) })
		s := hashContent(p, &tracker{})
		if s.err != nil || s.size != int64(c.size) {
			t.Fatalf("%d bytes: %+v", c.size, s)
		}
		if int(reads.Load()) != c.reads {
			t.Errorf("%d bytes: %d reads, want %d", c.size, reads.Load(), c.reads)
		}
	}
}

// TestHashFirstErrorInWalkOrder: issue 13, hashing in parallel: of
// several bad files, the tree's error is the first in walk order, as a
// serial walk reports, even when a later one fails first. Files are
// turned into FIFOs between the walk and the read (the hook), so the
// worker's hashContent refuses them; a FIFO the walk itself meets later
// does not win either.
func TestHashFirstErrorInWalkOrder(t *testing.T) {
	root := t.TempDir()
	ctx := filepath.Join(root, "ctx")
	for _, name := range []string{"a", "b.bad", "c", "d.bad", "e", "f.bad", "g"} {
		if err := os.MkdirAll(ctx, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ctx, name), []byte(name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(ctx, "z"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	var h *fileHasher
	var laterFirst atomic.Bool
	setHook(t, &hashHook, func(rel string) {
		if !strings.HasSuffix(rel, ".bad") {
			return
		}
		abs := filepath.Join(root, rel)
		os.Remove(abs)
		if err := syscall.Mkfifo(abs, 0o644); err != nil {
			panic(err)
		}
		if rel == "ctx/b.bad" { // let a later bad file fail first
			deadline := time.Now().Add(10 * time.Second)
			for time.Now().Before(deadline) {
				if s, ok := h.hashed("ctx/d.bad"); ok && s.err != nil {
					laterFirst.Store(true)
					break
				}
				time.Sleep(time.Millisecond)
			}
		}
	})
	h = testHasher(t, root, 3)
	s := h.tree([]string{"ctx"}, "ctx", nil, nil)
	if want := "ctx/b.bad is a named pipe (FIFO), not a regular file"; s.err == nil || s.err.Error() != want {
		t.Fatalf("error %v, want %q", s.err, want)
	}
	if !laterFirst.Load() {
		t.Error("d.bad did not fail before b.bad: the case was not tested")
	}
}

// TestHashStopEndsWorkers: issue 13, hashing in parallel: stopping the
// compile while a tree is hashed ends the walk and every worker (no
// goroutine is left), and the tree fails as stopped.
func TestHashStopEndsWorkers(t *testing.T) {
	root := t.TempDir()
	writeHashTree(t, filepath.Join(root, "ctx"), 200, []int{10, 5000})
	before := runtime.NumGoroutine()
	h := testHasher(t, root, 4)
	var hashed atomic.Int32
	setHook(t, &hashHook, func(string) {
		if hashed.Add(1) == 20 {
			h.track.stop()
		}
	})
	s := h.tree([]string{"ctx"}, "ctx", nil, nil)
	if !errors.Is(s.err, errStopped) {
		t.Fatalf("error %v, want %v", s.err, errStopped)
	}
	if n := hashed.Load(); n > 30 {
		t.Errorf("%d files handed to workers after the stop at 20", n)
	}
	if after := runtime.NumGoroutine(); after > before {
		t.Errorf("%d goroutines before, %d after", before, after)
	}
}

// TestHashOncePerCompile: issue 13, hashing in parallel: trees that share
// files, hashed at the same time with the single-file path, read each
// file once.
func TestHashOncePerCompile(t *testing.T) {
	root := t.TempDir()
	writeHashTree(t, filepath.Join(root, "ctx"), 40, []int{10, 2000})
	var reads atomic.Int32
	setHook(t, &readHook, func() { reads.Add(1) })
	h := testHasher(t, root, 4)
	var wg sync.WaitGroup
	var failed atomic.Value
	for _, p := range []string{"ctx", "ctx/d1", "ctx", "ctx/d1/e1", "ctx/d1/e1/f0001"} {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if s := h.tree([]string{p}, p, nil, nil); s.err != nil {
				failed.Store(s.err)
			}
		}()
		go func() {
			defer wg.Done()
			if s := h.file("ctx/d1/e1/f0001"); s.err != nil {
				failed.Store(s.err)
			}
		}()
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		t.Fatal(err)
	}
	if n := reads.Load(); n != 2*40 { // a content read and the end, per file
		t.Errorf("%d reads for 40 small files, want 80", n)
	}
}

// TestHashWorkerPanicReachesCaller: issue 13, hashing in parallel: a
// panic in a worker (a bug in cc) is raised on the goroutine that hashes
// the tree, where Compile hands it to its caller, not in a goroutine of
// its own that would end the process.
func TestHashWorkerPanicReachesCaller(t *testing.T) {
	root := t.TempDir()
	writeHashTree(t, filepath.Join(root, "ctx"), 10, []int{10})
	setHook(t, &hashHook, func(rel string) {
		if rel == "ctx/d3/e0/f0003" {
			panic("boom")
		}
	})
	h := testHasher(t, root, 2)
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want boom", r)
		}
	}()
	h.tree([]string{"ctx"}, "ctx", nil, nil)
	t.Fatal("no panic")
}

// TestHashPoolRefusesAsBefore: issue 13, hashing in parallel: with
// several workers, a FIFO in a copied tree, a link out of the root and an
// ignored path are refused with the messages of the serial walk, and an
// ignored file inside a tree is left out.
func TestHashPoolRefusesAsBefore(t *testing.T) {
	root := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".ccignore", "**/secret.txt\n")
	for _, d := range []string{"fifo", "link", "ign"} {
		for i := range 20 {
			write(fmt.Sprintf("%s/f%02d", d, i), "x")
		}
	}
	write("ign/secret.txt", "s")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo/f10p"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	if err := os.Symlink("../../outside", filepath.Join(root, "link/f10l")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"fifo", "fifo/f10p is a named pipe (FIFO), not a regular file"},
		{"link", "link/f10l: leaves the project root (through a symbolic link to ../../outside)"},
		{"ign/secret.txt", "ign/secret.txt is excluded by .ccignore"},
	} {
		h := testHasher(t, root, 4)
		s := h.tree([]string{c.path}, c.path, nil, nil)
		if s.err == nil || s.err.Error() != c.want {
			t.Errorf("%s: error %v, want %q", c.path, s.err, c.want)
		}
	}
	h := testHasher(t, root, 4)
	s := h.tree([]string{"ign"}, "ign", nil, nil)
	if s.err != nil {
		t.Fatal(s.err)
	}
	if n := len(h.entries[s.digest]); n != 20 {
		t.Errorf("%d entries, want the 20 not ignored", n)
	}
}

// TestHashMappedFileThatChanges: issue 13, hashing mapped files: a file
// that shrinks while it is mapped (its later pages are gone: SIGBUS) is
// hashed again by reads, and gives the digest and size of what it holds
// then, rather than killing cc; one that grows is read on to its end.
func TestHashMappedFileThatChanges(t *testing.T) {
	if mapMin > 1<<40 {
		t.Skip("files are not mapped here")
	}
	content := make([]byte, 3*mapWindow)
	rand.NewChaCha8([32]byte{7}).Read(content)
	for _, c := range []struct {
		name   string
		change func(f *os.File) error
		want   []byte
	}{
		{"shrinks", func(f *os.File) error { return f.Truncate(mapWindow / 2) }, content[:mapWindow/2]},
		{"grows", func(f *os.File) error { _, err := f.WriteAt([]byte("more"), int64(len(content))); return err }, append(slices.Clone(content), "more"...)},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "f")
			if err := os.WriteFile(p, content, 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(p, os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			var calls atomic.Int32
			setHook(t, &readHook, func() {
				if calls.Add(1) == 2 { // before the second window is mapped
					if err := c.change(f); err != nil {
						t.Error(err)
					}
				}
			})
			s := hashContent(p, &tracker{})
			sum := sha256.Sum256(c.want)
			if s.err != nil || s.size != int64(len(c.want)) || s.digest != "sha256:"+hex.EncodeToString(sum[:]) {
				t.Fatalf("got %+v, want %d bytes, sha256:%x", s, len(c.want), sum)
			}
		})
	}
}
