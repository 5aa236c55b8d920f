package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/moby/patternmatcher"

	"cc.dev/cc/localfs"
	"cc.dev/cc/schema"
)

// maxSmallFile is the limit on the small files cc reads whole (env files,
// cc.lock, -var-file): more is surely not one of those.
const maxSmallFile = 16 << 20

// fileHasher hashes local inputs under the project root, once each, with
// the one local-files policy (localfs): what it leaves out, the BuildKit
// converter and the applier leave out too.
type fileHasher struct {
	mu     sync.Mutex // guards the maps; hashing runs unlocked
	root   string
	policy *localfs.Policy
	files  map[string]*sumCall // by path, done or under way
	trees  map[string]treeSum
	// entries holds every tree by digest, for Desired.Trees.
	entries map[string][]schema.TreeEntry
	// track says what is being hashed, and when to stop.
	track *tracker
	// stat is the stat cache (statcache.go), or nil.
	stat *statCache
	// pool hashes the files of every tree walk, a few at a time.
	pool *hashPool
}

type fileSum struct {
	digest string
	size   int64
	mode   string
	err    error
}

type treeSum struct {
	digest string
	err    error
}

func newFileHasher(root string) (*fileHasher, error) {
	p, err := localfs.New(root)
	if err != nil {
		return nil, err
	}
	return &fileHasher{root: root, policy: p, files: map[string]*sumCall{}, trees: map[string]treeSum{}, entries: map[string][]schema.TreeEntry{},
		pool: newHashPool(hashWorkers())}, nil
}

// errIsDir tells a caller that wanted a file that it found a directory;
// errIgnored that the path is excluded.
var (
	errIsDir   = errors.New("is a directory, not a file")
	errIgnored = localfs.ErrIgnored
)

// file hashes one regular file.
func (h *fileHasher) file(rel string) fileSum {
	rel = cleanRel(rel)
	return h.once(rel, func() fileSum { return h.hashFile(rel) })
}

func (h *fileHasher) hashFile(rel string) fileSum {
	abs, _, err := h.policy.Resolve(rel)
	if err != nil {
		return fileSum{err: err}
	}
	localfs.Touch(abs)
	fi, err := os.Stat(abs)
	if err != nil {
		return fileSum{err: unwrapPathError(err)}
	}
	if fi.IsDir() {
		return fileSum{err: fmt.Errorf("%s %w", rel, errIsDir)}
	}
	if err := schema.RegularMode(fi.Mode()); err != nil {
		return fileSum{err: fmt.Errorf("%s %w", rel, err)}
	}
	if err := localfs.NameUTF8(relTo(h.root, abs)); err != nil {
		return fileSum{err: err}
	}
	if h.policy.Excluded(relTo(h.root, abs)) {
		return fileSum{err: fmt.Errorf("%s %w", rel, errIgnored)}
	}
	h.track.setf("hashing %s", rel)
	s := h.contentSum(abs)
	if s.err != nil {
		s.err = fmt.Errorf("%s %w", rel, s.err)
	}
	return s
}

// walkedFile hashes a regular file met while walking a directory of the
// root: the walk already knows it is inside the root, not ignored and a
// regular file, so only the content is read (once, memoized by path),
// through hashContent's check that it still is one. The tree walk calls
// it from the hashing pool's workers.
func (h *fileHasher) walkedFile(rel, abs string) fileSum {
	return h.once(rel, func() fileSum {
		h.track.setf("hashing %s", rel)
		s := h.contentSum(abs)
		if s.err != nil {
			s.err = fmt.Errorf("%s %w", rel, s.err)
		}
		return s
	})
}

// hashContent hashes a regular file, streaming: any size is read in
// constant memory (a pooled buffer of hashBufSize: a small file in one
// read; from mapMin on, mapped a window at a time, then read on to the
// end), and anything but a regular file is refused unopened
// (schema.OpenRegular), so a FIFO or a device never blocks or runs for
// ever.
func hashContent(abs string, tr *tracker) fileSum {
	localfs.Touch(abs)
	f, fi, err := schema.OpenRegular(abs)
	if err != nil {
		return fileSum{err: unwrapPathError(err)}
	}
	defer f.Close()
	mode := fi.Mode()
	sum := sha256.New()
	var n int64
	if size := fi.Size(); size >= mapMin {
		mapped, err := sumMapped(f, size, sum, tr)
		if err != nil {
			return fileSum{err: err}
		}
		if !mapped {
			sum.Reset() // and read it all: a mapping leaves the offset at 0
		} else if n, err = f.Seek(size, io.SeekStart); err != nil { // read on: what it has grown by since
			return fileSum{err: err}
		}
	}
	buf := hashBufs.Get().(*[]byte)
	defer hashBufs.Put(buf)
	m, err := io.CopyBuffer(sum, stoppable{f, tr}, *buf)
	if err != nil {
		return fileSum{err: err}
	}
	return fileSum{digest: "sha256:" + hex.EncodeToString(sum.Sum(nil)), size: n + m, mode: modeOf(mode)}
}

// stoppable reads until the compilation is stopped.
type stoppable struct {
	r  io.Reader
	tr *tracker
}

var errStopped = errors.New("compilation stopped")

func (s stoppable) Read(b []byte) (int, error) {
	if s.tr.isStopped() {
		return 0, errStopped
	}
	if readHook != nil {
		readHook()
	}
	return s.r.Read(b)
}

// modeOf keeps only what is the same on every checkout: executable or not.
func modeOf(m fs.FileMode) string {
	if m&0o111 != 0 {
		return "0755"
	}
	return "0644"
}

// tree hashes files and directories as one tree. With base "", entry paths
// are relative to the root; otherwise relative to base (a copy step's src,
// whose single-file form is named by its base name). include and exclude
// are patterns over paths relative to the root.
func (h *fileHasher) tree(paths []string, base string, include, exclude []string) treeSum {
	key := strings.Join(paths, "\x00") + "\x01" + base + "\x01" + strings.Join(include, "\x00") + "\x01" + strings.Join(exclude, "\x00")
	h.mu.Lock()
	s, ok := h.trees[key]
	h.mu.Unlock()
	if ok {
		return s
	}
	s = h.hashTree(paths, base, include, exclude)
	h.mu.Lock()
	h.trees[key] = s
	h.mu.Unlock()
	return s
}

func (h *fileHasher) hashTree(paths []string, base string, include, exclude []string) treeSum {
	keep, err := sourceFilter(include, exclude)
	if err != nil {
		return treeSum{err: err}
	}
	t := &treeBatch{h: h}
	for _, p := range paths {
		if err := h.addPath(t, cleanRel(p), base, keep); err != nil {
			if !errors.Is(err, errWalkCut) {
				t.fail(err)
			}
			break
		}
	}
	entries, err := t.finish()
	if err != nil {
		return treeSum{err: err}
	}
	list := make([]schema.TreeEntry, 0, len(entries))
	for _, e := range entries {
		list = append(list, e)
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Path < list[j].Path })
	digest, _, err := schema.HashOf(list)
	if err != nil {
		return treeSum{err: err}
	}
	h.mu.Lock()
	h.entries[digest] = list
	h.mu.Unlock()
	return treeSum{digest: digest}
}

// sourceFilter is a function source's include and exclude patterns (over
// paths relative to the root) as one test; nil patterns keep everything.
func sourceFilter(include, exclude []string) (func(rel string) bool, error) {
	var inc, exc *patternmatcher.PatternMatcher
	var err error
	if len(include) > 0 {
		if inc, err = patternmatcher.New(include); err != nil {
			return nil, fmt.Errorf("include: %w", err)
		}
	}
	if len(exclude) > 0 {
		if exc, err = patternmatcher.New(exclude); err != nil {
			return nil, fmt.Errorf("exclude: %w", err)
		}
	}
	return func(rel string) bool {
		if inc != nil {
			if ok, _ := inc.MatchesOrParentMatches(rel); !ok {
				return false
			}
		}
		if exc != nil {
			if ok, _ := exc.MatchesOrParentMatches(rel); ok {
				return false
			}
		}
		return true
	}, nil
}

// addPath adds the file or directory p to a tree's entries. A directory
// is walked under the local-files policy: with base "" (a function's
// source) the root's rules; otherwise (a copied directory, a build
// context) the rules of that directory input, its own ignore file
// included.
func (h *fileHasher) addPath(t *treeBatch, p, base string, keep func(string) bool) error {
	abs, realRel, err := h.policy.Resolve(p)
	if err != nil {
		return err
	}
	localfs.Touch(abs)
	fi, err := os.Stat(abs)
	if err != nil {
		return h.namedPathError(err)
	}
	if h.policy.Excluded(realRel) {
		return fmt.Errorf("%s %w", p, errIgnored)
	}
	name := entryNamer(base, realRel, fi.IsDir())
	if !fi.IsDir() {
		s := h.file(realRel)
		if s.err != nil {
			return s.err
		}
		t.add(name(realRel), schema.TreeEntry{Path: name(realRel), Mode: s.mode, Size: s.size, Digest: s.digest})
		return nil
	}
	dir := "."
	if base != "" {
		dir = realRel
	}
	rule, err := h.policy.Dir(dir)
	if err != nil {
		return err
	}
	err = rule.Walk(abs, func(rel, full string, d fs.DirEntry) error {
		return h.addWalked(t, name(rel), rel, full, d, keep)
	})
	if err != nil {
		return h.namedPathError(err)
	}
	return nil
}

// namedPathError words a file system error with the path it is about,
// relative to the project root: "copy source src/keys permission denied",
// not "copy source permission denied" (issue 9 item 18). An error without
// a path, or whose path is outside the root, is only unwrapped.
func (h *fileHasher) namedPathError(err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return err
	}
	rel, rerr := filepath.Rel(h.root, pe.Path)
	if rerr != nil || rel == ".." || strings.HasPrefix(rel, "../") || filepath.IsAbs(rel) {
		return pe.Err
	}
	return fmt.Errorf("%s %w", filepath.ToSlash(rel), pe.Err)
}

// entryNamer names a tree's entries: with base "", by their path from
// the root; otherwise from the input (a single file by its base name).
func entryNamer(base, realRel string, isDir bool) func(rel string) string {
	return func(rel string) string {
		if base == "" {
			return rel
		}
		if !isDir {
			return path.Base(rel)
		}
		r, _ := filepath.Rel(realRel, rel)
		return filepath.ToSlash(r)
	}
}

// addWalked adds an entry a walk kept: a link by its target, a regular
// file by its content, hashed by the pool. A FIFO, device or socket
// inside a copied tree is refused, not skipped: what is copied is what
// the tree says. The walk stops early once the compile is stopped or a
// file handed to the pool failed.
func (h *fileHasher) addWalked(t *treeBatch, name, rel, full string, d fs.DirEntry, keep func(string) bool) error {
	switch {
	case h.track.isStopped():
		return errStopped
	case t.bad.Load():
		return errWalkCut
	case d.IsDir() || !keep(rel):
		return nil
	case d.Type()&fs.ModeSymlink != 0:
		localfs.Touch(full)
		target, err := os.Readlink(full)
		if err != nil {
			return err
		}
		sum := sha256.Sum256([]byte(target))
		t.add(name, schema.TreeEntry{Path: name, Mode: "link", Size: int64(len(target)),
			Digest: "sha256:" + hex.EncodeToString(sum[:])})
	case d.Type().IsRegular():
		t.hash(name, rel, full)
	default:
		return fmt.Errorf("%s %w", rel, schema.RegularMode(d.Type()))
	}
	return nil
}

// envKeys reads the key names of an env file (never its values).
func (h *fileHasher) envKeys(rel string) ([]string, error) {
	abs, _, err := h.policy.Resolve(rel)
	if err != nil {
		return nil, err
	}
	localfs.Touch(abs)
	b, err := schema.ReadRegular(abs, maxSmallFile)
	if err != nil {
		return nil, fmt.Errorf("%s %w", rel, unwrapPathError(err))
	}
	keys, err := schema.EnvFileKeys(b)
	var ee *schema.EnvFileError
	if errors.As(err, &ee) {
		ee.File = rel // the message names file:line
	}
	return keys, err
}

// siblings lists the names next to a missing path, for did-you-mean.
func (h *fileHasher) siblings(rel string) []string {
	dir := filepath.Join(h.root, filepath.Dir(cleanRel(rel)))
	localfs.Touch(dir)
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func cleanRel(rel string) string { return filepath.ToSlash(filepath.Clean(rel)) }

func relTo(root, abs string) string {
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}
