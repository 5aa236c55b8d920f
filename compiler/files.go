package compiler

import (
	"bytes"
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
	"unicode/utf8"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"

	"cc.dev/cc/schema"
)

// maxSmallFile is the limit on the small files cc reads whole (env files,
// cc.lock, .ccignore, -var-file): more is surely not one of those.
const maxSmallFile = 16 << 20

// stateDir is cc's own directory in a project root; it is never an input.
const stateDir = ".cc"

// fileHasher hashes local inputs under the project root, once each.
type fileHasher struct {
	mu     sync.Mutex // guards the maps; hashing runs unlocked
	root   string
	ignore *patternmatcher.PatternMatcher
	files  map[string]fileSum
	trees  map[string]treeSum
	// entries holds every tree by digest, for Desired.Trees.
	entries map[string][]schema.TreeEntry
	// track says what is being hashed, and when to stop.
	track *tracker
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
	h := &fileHasher{root: root, files: map[string]fileSum{}, trees: map[string]treeSum{}, entries: map[string][]schema.TreeEntry{}}
	for _, name := range []string{".ccignore", ".dockerignore"} {
		b, err := schema.ReadRegular(filepath.Join(root, name), maxSmallFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s %w", name, unwrapPathError(err))
		}
		patterns, err := ignorefile.ReadAll(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if h.ignore, err = patternmatcher.New(patterns); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		break // .ccignore wins over .dockerignore
	}
	return h, nil
}

// ignored reports whether a path relative to the root is excluded.
func (h *fileHasher) ignored(rel string) bool {
	if rel == stateDir || strings.HasPrefix(rel, stateDir+"/") {
		return true
	}
	if h.ignore == nil {
		return false
	}
	ok, _ := h.ignore.MatchesOrParentMatches(rel)
	return ok
}

// errIsDir tells a caller that wanted a file that it found a directory;
// errIgnored that the path is excluded.
var (
	errIsDir   = errors.New("is a directory, not a file")
	errIgnored = errors.New("is excluded by .ccignore")
)

// file hashes one regular file.
func (h *fileHasher) file(rel string) fileSum {
	rel = cleanRel(rel)
	h.mu.Lock()
	s, ok := h.files[rel]
	h.mu.Unlock()
	if ok {
		return s
	}
	s = h.hashFile(rel)
	h.mu.Lock()
	h.files[rel] = s
	h.mu.Unlock()
	return s
}

func (h *fileHasher) hashFile(rel string) fileSum {
	abs, err := insideRoot(h.root, rel)
	if err != nil {
		return fileSum{err: err}
	}
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
	if err := nameUTF8(relTo(h.root, abs)); err != nil {
		return fileSum{err: err}
	}
	if h.ignored(relTo(h.root, abs)) {
		return fileSum{err: fmt.Errorf("%s %w", rel, errIgnored)}
	}
	h.track.setf("hashing %s", rel)
	s := hashContent(abs, h.track)
	if s.err != nil {
		s.err = fmt.Errorf("%s %w", rel, s.err)
	}
	return s
}

// nameUTF8 refuses a file name that is not UTF-8: a tree names its
// entries by UTF-8 paths, and a name that is not one would be changed (its
// bad bytes replaced by U+FFFD), so two files could get one path.
func nameUTF8(rel string) error {
	if utf8.ValidString(rel) {
		return nil
	}
	return fmt.Errorf("%q: %w", rel, errNotUTF8)
}

var errNotUTF8 = errors.New("the file name is not UTF-8; rename it (cc names files by UTF-8 paths)")

// walkedFile hashes a regular file met while walking a directory of the
// root: the walk already knows it is inside the root, not ignored and a
// regular file, so only the content is read (once, memoized by path),
// through hashContent's check that it still is one.
func (h *fileHasher) walkedFile(rel, abs string) fileSum {
	h.mu.Lock()
	s, ok := h.files[rel]
	h.mu.Unlock()
	if ok {
		return s
	}
	h.track.setf("hashing %s", rel)
	s = hashContent(abs, h.track)
	if s.err != nil {
		s.err = fmt.Errorf("%s %w", rel, s.err)
	}
	h.mu.Lock()
	h.files[rel] = s
	h.mu.Unlock()
	return s
}

// hashContent hashes a regular file, streaming: any size is read in
// constant memory, and anything but a regular file is refused unopened
// (schema.OpenRegular), so a FIFO or a device never blocks or runs for
// ever.
func hashContent(abs string, tr *tracker) fileSum {
	f, fi, err := schema.OpenRegular(abs)
	if err != nil {
		return fileSum{err: unwrapPathError(err)}
	}
	defer f.Close()
	mode := fi.Mode()
	sum := sha256.New()
	n, err := io.Copy(sum, stoppable{f, tr})
	if err != nil {
		return fileSum{err: err}
	}
	return fileSum{digest: "sha256:" + hex.EncodeToString(sum.Sum(nil)), size: n, mode: modeOf(mode)}
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
	var inc, exc *patternmatcher.PatternMatcher
	var err error
	if len(include) > 0 {
		if inc, err = patternmatcher.New(include); err != nil {
			return treeSum{err: fmt.Errorf("include: %w", err)}
		}
	}
	if len(exclude) > 0 {
		if exc, err = patternmatcher.New(exclude); err != nil {
			return treeSum{err: fmt.Errorf("exclude: %w", err)}
		}
	}
	keep := func(rel string) bool {
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
	}
	entries := map[string]schema.TreeEntry{}
	for _, p := range paths {
		p = cleanRel(p)
		abs, err := insideRoot(h.root, p)
		if err != nil {
			return treeSum{err: err}
		}
		fi, err := os.Stat(abs)
		if err != nil {
			return treeSum{err: unwrapPathError(err)}
		}
		realRel := relTo(h.root, abs)
		if h.ignored(realRel) {
			return treeSum{err: fmt.Errorf("%s %w", p, errIgnored)}
		}
		name := func(rel string) string {
			if base == "" {
				return rel
			}
			if !fi.IsDir() {
				return path.Base(rel)
			}
			r, _ := filepath.Rel(realRel, rel)
			return filepath.ToSlash(r)
		}
		if !fi.IsDir() {
			s := h.file(realRel)
			if s.err != nil {
				return treeSum{err: s.err}
			}
			entries[name(realRel)] = schema.TreeEntry{Path: name(realRel), Mode: s.mode, Size: s.size, Digest: s.digest}
			continue
		}
		err = filepath.WalkDir(abs, func(full string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel := relTo(h.root, full)
			if err := nameUTF8(rel); err != nil {
				return err
			}
			if full != abs && h.ignored(rel) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			switch {
			case d.IsDir():
				return nil
			case d.Type()&fs.ModeSymlink != 0:
				target, err := os.Readlink(full)
				if err != nil {
					return err
				}
				if err := h.linkInside(full, target, rel); err != nil {
					return err
				}
				if keep(rel) {
					sum := sha256.Sum256([]byte(target))
					entries[name(rel)] = schema.TreeEntry{Path: name(rel), Mode: "link", Size: int64(len(target)),
						Digest: "sha256:" + hex.EncodeToString(sum[:])}
				}
			case d.Type().IsRegular():
				if !keep(rel) {
					return nil
				}
				s := h.walkedFile(rel, full)
				if s.err != nil {
					return s.err
				}
				entries[name(rel)] = schema.TreeEntry{Path: name(rel), Mode: s.mode, Size: s.size, Digest: s.digest}
			default:
				// A FIFO, device or socket inside a copied tree is refused,
				// not skipped: what is copied is what the tree says.
				if !keep(rel) {
					return nil
				}
				return fmt.Errorf("%s %w", rel, schema.RegularMode(d.Type()))
			}
			return nil
		})
		if err != nil {
			return treeSum{err: unwrapPathError(err)}
		}
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

// linkInside refuses a symbolic link whose target leaves the root.
func (h *fileHasher) linkInside(full, target, rel string) error {
	resolved := target
	if !filepath.IsAbs(resolved) {
		resolved = filepath.Join(filepath.Dir(full), target)
	}
	if real, err := filepath.EvalSymlinks(resolved); err == nil {
		resolved = real
	}
	resolved = filepath.Clean(resolved)
	if resolved != h.root && !strings.HasPrefix(resolved, h.root+string(filepath.Separator)) {
		return fmt.Errorf("%s: %w (through a symbolic link to %s)", rel, errOutsideRoot, target)
	}
	return nil
}

// envKeys reads the key names of an env file (never its values).
func (h *fileHasher) envKeys(rel string) ([]string, error) {
	abs, err := insideRoot(h.root, rel)
	if err != nil {
		return nil, err
	}
	b, err := schema.ReadRegular(abs, maxSmallFile)
	if err != nil {
		return nil, fmt.Errorf("%s %w", rel, unwrapPathError(err))
	}
	return schema.EnvFileKeys(b)
}

// siblings lists the names next to a missing path, for did-you-mean.
func (h *fileHasher) siblings(rel string) []string {
	dir := filepath.Join(h.root, filepath.Dir(cleanRel(rel)))
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
