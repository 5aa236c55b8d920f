package compiler

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/gob"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"cc.dev/cc/localfs"
)

// The stat cache (issue 13: stat cache) maps a local file's stat data
// (size, mtime and ctime in ns, inode, device, mode) to its content
// digest, as git's index and BuildKit's contenthash do, so that a compile
// of an unchanged tree reads no file contents. It is sound under git's
// "racily clean" rule: an entry whose file was modified within the file
// system's timestamp granularity of the moment it was read (a write in
// the same clock tick leaves the same mtime) is never trusted, and is
// hashed again.
//
// An entry keeps the content digest only for a file that is a local
// input (its digest is in the desired state anyway); for any other file
// of the project (an env file, say) it keeps only an HMAC of the digest
// under the project's cache key, so that no cache file holds an unkeyed
// hash of a secret.

// statKey is the stat data compared (statOf).
type statKey struct {
	Size, Mtime, Ctime int64
	Ino, Dev           uint64
	Mode               uint32
}

// statEntry is what the stat cache knows of one file.
type statEntry struct {
	St statKey
	// ReadAt is when the stat was taken (wall clock, ns), for the racy
	// rule.
	ReadAt int64
	// Digest is the content digest, kept on disk only when Input is set.
	Digest string
	Input  bool
	// Keyed is HMAC(key, Digest).
	Keyed []byte
}

const statMagic = "cc-statcache-1\n"

// statCache is one project's stat cache, loaded from dir/stat and saved
// back when it changed.
type statCache struct {
	mu    sync.Mutex
	dir   string
	key   []byte
	old   map[string]statEntry
	now   map[string]statEntry
	dirty bool
	// again is set for the look after a compile (compileCache.finish):
	// a file this run read racily clean is hashed again then, since a
	// second write within the same clock tick at the same size leaves
	// its stat data as it was.
	again bool
}

// statKeyHook, when set (by tests), gives the stat data the cache sees of
// abs in place of st: what a file system shows of two writes within one
// clock tick at the same size.
var statKeyHook func(abs string, st statKey) statKey

// contentReadHook, when set (by tests), is told of every file whose
// content the compiler reads to hash it.
var contentReadHook func(abs string)

func nowUnix() int64 { return time.Now().Unix() }

// seenStat is the stat data the cache keys abs by (statOf, through
// statKeyHook when a test sets it).
func seenStat(abs string, fi fs.FileInfo) (statKey, bool) {
	st, ok := statOf(fi)
	if ok && statKeyHook != nil {
		st = statKeyHook(abs, st)
	}
	return st, ok
}

// openStatCache loads the stat cache of dir; a missing or bad file is an
// empty cache.
func openStatCache(dir string, key []byte) *statCache {
	c := &statCache{dir: dir, key: key, old: map[string]statEntry{}, now: map[string]statEntry{}}
	if b := unseal(key, statMagic, filepath.Join(dir, "stat")); b != nil {
		var m map[string]statEntry
		if gob.NewDecoder(bytes.NewReader(b)).Decode(&m) == nil {
			c.old = m
		}
	}
	return c
}

// racy reports whether e cannot be trusted by the racy rule: its file's
// mtime is within the timestamp granularity of when it was read (2 s on
// a file system with whole-second times, else 10 ms, a coarse kernel
// clock's tick at 100 Hz) or later.
func racy(e statEntry) bool {
	gran := int64(10 * time.Millisecond)
	if e.St.Mtime%int64(time.Second) == 0 {
		gran = int64(2 * time.Second)
	}
	return e.St.Mtime >= e.ReadAt-gran
}

// lookup gives the entry of abs when its stat data is st and it may be
// trusted.
func (c *statCache) lookup(abs string, st statKey) (statEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.now[abs]; ok && e.St == st && !(c.again && racy(e)) {
		return e, true // read in this run
	}
	e, ok := c.old[abs]
	if !ok || e.St != st || racy(e) {
		return statEntry{}, false
	}
	c.now[abs] = e
	return e, true
}

// lookAgain makes the lookups from now on hash again each file this run
// read racily clean (again).
func (c *statCache) lookAgain() {
	c.mu.Lock()
	c.again = true
	c.mu.Unlock()
}

// record keeps what reading abs gave.
func (c *statCache) record(abs string, e statEntry) {
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(e.Digest))
	e.Keyed = m.Sum(nil)
	c.mu.Lock()
	if prev, ok := c.now[abs]; ok && prev.Input {
		e.Input = true
	}
	c.now[abs] = e
	c.dirty = true
	c.mu.Unlock()
}

// markInput makes abs's content digest one to keep on disk.
func (c *statCache) markInput(abs string) {
	c.mu.Lock()
	if e, ok := c.now[abs]; ok && !e.Input {
		e.Input = true
		c.now[abs] = e
		c.dirty = true
	}
	c.mu.Unlock()
}

// save writes the entries of this run (a file no longer read is
// forgotten) when they differ from the loaded ones. Failure is no cache.
func (c *statCache) save() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.dirty && len(c.now) == len(c.old) {
		return
	}
	out := make(map[string]statEntry, len(c.now))
	for k, e := range c.now {
		if !e.Input {
			e.Digest = ""
		}
		out[k] = e
	}
	_ = writeSealed(c.dir, "stat", c.key, statMagic, func(w io.Writer) error { return gob.NewEncoder(w).Encode(out) })
}

// sum gives the content digest of the regular file abs, from the cache
// when its stat data is unchanged, else by reading it (hashContent).
// input says the digest is a local input's (kept on disk).
func (c *statCache) sum(abs string, tr *tracker, input bool) fileSum {
	at := time.Now().UnixNano()
	localfs.Touch(abs)
	fi, err := os.Stat(abs)
	if err != nil {
		return hashContent(abs, tr) // its error
	}
	st, ok := seenStat(abs, fi)
	if ok && fi.Mode().IsRegular() {
		if e, hit := c.lookup(abs, st); hit && e.Digest != "" {
			if input {
				c.markInput(abs)
			}
			return fileSum{digest: e.Digest, size: st.Size, mode: modeOf(fi.Mode())}
		}
	}
	s := readContent(abs, tr)
	if ok && s.err == nil && s.size == st.Size {
		c.record(abs, statEntry{St: st, ReadAt: at, Digest: s.digest, Input: input})
	}
	return s
}

// keyed gives HMAC(key, content digest) of the regular file abs, for a
// compile cache key, from the cache when it may.
func (c *statCache) keyed(abs string, fi fs.FileInfo, tr *tracker) ([]byte, error) {
	at := time.Now().UnixNano()
	st, ok := seenStat(abs, fi)
	if ok {
		if e, hit := c.lookup(abs, st); hit && e.Keyed != nil {
			return e.Keyed, nil
		}
	}
	s := readContent(abs, tr)
	if s.err != nil {
		return nil, s.err
	}
	e := statEntry{St: st, ReadAt: at, Digest: s.digest}
	if !ok || s.size != st.Size {
		e.St = statKey{Mtime: -1} // never matches: not kept for later
	}
	c.record(abs, e)
	c.mu.Lock()
	k := c.now[abs].Keyed
	c.mu.Unlock()
	return k, nil
}

// readContent hashes abs's content, telling contentReadHook.
func readContent(abs string, tr *tracker) fileSum {
	if contentReadHook != nil {
		contentReadHook(abs)
	}
	return hashContent(abs, tr)
}

// contentSum is the digest of a local input, the regular file abs:
// through the stat cache when the compile has one (issue 13), else read.
// The stat cache takes its own stat, just before it would read.
func (h *fileHasher) contentSum(abs string) fileSum {
	if h.stat == nil {
		return readContent(abs, h.track)
	}
	return h.stat.sum(abs, h.track, true)
}
