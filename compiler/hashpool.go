package compiler

import (
	"errors"
	"runtime"
	"sync"
	"sync/atomic"

	"cc.dev/cc/schema"
)

// Hashing local inputs runs on every core (issue 13, aim 4): a tree walk
// hands the regular files it meets to a bounded pool of workers shared
// by every tree of one compile, and assembles the result in walk order,
// so the entries, the digest and the error for bad input are those of a
// serial walk. Each file is read in large chunks from a pooled buffer.

// hashBufSize is the read size of content hashing: a file up to this size
// is read whole in one call, a larger one in few.
const hashBufSize = 1 << 20

var hashBufs = sync.Pool{New: func() any { b := make([]byte, hashBufSize); return &b }}

// hashPool bounds how many files are hashed at once, across all the trees
// of a compile: a walk waits for a free slot before it starts a worker.
type hashPool struct{ slots chan struct{} }

func newHashPool(n int) *hashPool {
	return &hashPool{slots: make(chan struct{}, max(n, 1))}
}

// hashWorkers is the number of workers of a compile's pool.
func hashWorkers() int { return runtime.GOMAXPROCS(0) }

// Set by tests: hashHook runs in a worker before it hashes rel, readHook
// before each read of content hashing.
var (
	hashHook func(rel string)
	readHook func()
)

// sumCall is one file's hash, computed once: sum is set when done closes.
type sumCall struct {
	done chan struct{}
	sum  fileSum
}

// once returns rel's memoized sum, computed by f if no one has started it;
// a caller that finds it under way waits for it, so one file is hashed
// once per compile, never twice at the same time.
func (h *fileHasher) once(rel string, f func() fileSum) fileSum {
	h.mu.Lock()
	c, ok := h.files[rel]
	if !ok {
		c = &sumCall{done: make(chan struct{})}
		h.files[rel] = c
	}
	h.mu.Unlock()
	if ok {
		<-c.done
		return c.sum
	}
	defer close(c.done)
	c.sum = f()
	return c.sum
}

// started is rel's hash when someone has started it, done or not.
func (h *fileHasher) started(rel string) (*sumCall, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c, ok := h.files[rel]
	return c, ok
}

// hashed is rel's sum when it is already computed.
func (h *fileHasher) hashed(rel string) (fileSum, bool) {
	c, ok := h.started(rel)
	if !ok {
		return fileSum{}, false
	}
	select {
	case <-c.done:
		return c.sum, true
	default:
		return fileSum{}, false
	}
}

// treeBatch collects a tree's entries in walk order while its files are
// hashed by the pool; finish waits for them and gives the entries, or the
// first error in walk order: what a serial walk would have stopped at.
type treeBatch struct {
	h     *fileHasher
	slots []*treeSlot
	wg    sync.WaitGroup
	// bad is set when a file failed: the walk need not go on, since
	// everything before that file is already in slots.
	bad      atomic.Bool
	mu       sync.Mutex
	panicked []any // what workers panicked with
}

// treeSlot is one entry, ready or being hashed, or the error met there.
type treeSlot struct {
	name   string
	entry  schema.TreeEntry
	walked bool     // a file met by a walk: sum, and its error is worded by namedPathError
	sum    fileSum  // set by a worker, or from call
	call   *sumCall // the hash another tree or file() has under way
	err    error    // an error at this point of the walk
}

// errWalkCut ends a walk early when a file it handed over failed.
var errWalkCut = errors.New("walk cut short by a failed file")

// add records an entry that needs no hashing (a link, a single file).
func (t *treeBatch) add(name string, e schema.TreeEntry) {
	t.slots = append(t.slots, &treeSlot{name: name, entry: e})
}

// fail records an error at this point of the walk.
func (t *treeBatch) fail(err error) {
	t.slots = append(t.slots, &treeSlot{err: err})
}

// hash adds the regular file rel met by a walk, hashed by a worker
// through walkedFile (memoized by path) unless someone has already
// started it: then its sum is awaited in finish, holding no worker.
func (t *treeBatch) hash(name, rel, abs string) {
	s := &treeSlot{name: name, walked: true}
	t.slots = append(t.slots, s)
	if c, ok := t.h.started(rel); ok {
		s.call = c
		return
	}
	pool := t.h.pool
	pool.slots <- struct{}{}
	t.wg.Add(1)
	go func() {
		defer t.wg.Done()
		defer func() { <-pool.slots }()
		defer t.catch()
		if hashHook != nil {
			hashHook(rel)
		}
		s.sum = t.h.walkedFile(rel, abs)
		if s.sum.err != nil {
			t.bad.Store(true)
		}
	}()
}

// catch keeps a worker's panic (a bug in cc) for finish to raise on the
// walk's goroutine, where Compile passes it on to its caller.
func (t *treeBatch) catch() {
	if r := recover(); r != nil {
		t.bad.Store(true)
		t.mu.Lock()
		t.panicked = append(t.panicked, r)
		t.mu.Unlock()
	}
}

// finish waits for the workers and returns the entries by name, or the
// first error in walk order.
func (t *treeBatch) finish() (map[string]schema.TreeEntry, error) {
	t.wg.Wait()
	if len(t.panicked) > 0 {
		panic(t.panicked[0])
	}
	entries := make(map[string]schema.TreeEntry, len(t.slots))
	for _, s := range t.slots {
		if s.call != nil {
			<-s.call.done
			s.sum = s.call.sum
		}
		switch {
		case s.err != nil:
			return nil, s.err
		case s.walked && s.sum.err != nil:
			return nil, t.h.namedPathError(s.sum.err)
		case s.walked:
			entries[s.name] = schema.TreeEntry{Path: s.name, Mode: s.sum.mode, Size: s.sum.size, Digest: s.sum.digest}
		default:
			entries[s.name] = s.entry
		}
	}
	return entries, nil
}
