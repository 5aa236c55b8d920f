package localfs

import (
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// VCSDirs are the names of version-control metadata directories: a commit
// or a fetch changes them, not a project's configuration.
var VCSDirs = []string{".git", ".hg", ".jj", ".svn"}

// IsVCSDir reports whether name is one of VCSDirs.
func IsVCSDir(name string) bool {
	for _, d := range VCSDirs {
		if name == d {
			return true
		}
	}
	return false
}

// InVCS reports whether the path p (absolute or relative, slash or
// host separated) has one of VCSDirs as a component.
func InVCS(p string) bool {
	for p != "" {
		i := strings.IndexAny(p, `/\`)
		name := p
		if i >= 0 {
			name, p = p[:i], p[i+1:]
		} else {
			p = ""
		}
		if len(name) > 2 && name[0] == '.' && IsVCSDir(name) {
			return true
		}
	}
	return false
}

// Omits reports whether the compile cache's key may leave out what the
// entry rel (relative to the root; a directory when dir) holds, keeping
// its name and type alone: a version-control directory (VCSDirs), or a
// directory or a top-level file that the root's ignore file excludes. A
// file deeper down is always keyed (its directory was not left out):
// matching every file against the rules would cost more than the key
// saves. The root's ignore files never are left out: the rules are keyed
// by their contents. The key walk tells the compilation's Watch what it
// left out (Omit), and a compilation that reads there is keyed in full
// (issue 13: compile cache).
func (p *Policy) Omits(rel string, dir bool) bool {
	rel = path.Clean(filepath.ToSlash(rel))
	top := !strings.Contains(rel, "/")
	switch {
	case rel == "." || rel == ".." || strings.HasPrefix(rel, "../"):
		return false
	case top && isIgnoreFile(rel):
		return false
	case dir && IsVCSDir(path.Base(rel)):
		return true
	case dir || top:
		return p.Excluded(rel)
	}
	return false
}

func isIgnoreFile(name string) bool {
	for _, f := range IgnoreFiles {
		if name == f {
			return true
		}
	}
	return false
}

// A Watch counts the reads of what the compile cache's key left out (the
// entries the key walk told it of: Omit) while it is on: every read of a
// project's files by the compiler, here or in package compiler, passes
// its path to Touch first (TestEveryReadTouches keeps it so).
type Watch struct {
	p     *Policy
	reads atomic.Int64

	mu      sync.RWMutex
	omitted map[string]bool // entries left out, relative to the root
}

var watches struct {
	on atomic.Int32
	mu sync.RWMutex
	ws map[*Watch]bool
}

// Watch starts counting the reads of what is left out under p's root,
// until Stop.
func (p *Policy) Watch() *Watch {
	w := &Watch{p: p, omitted: map[string]bool{}}
	watches.mu.Lock()
	if watches.ws == nil {
		watches.ws = map[*Watch]bool{}
	}
	watches.ws[w] = true
	watches.on.Store(int32(len(watches.ws)))
	watches.mu.Unlock()
	return w
}

// Omit tells w that the key leaves out what the entry rel (relative to
// the root, slash-separated) holds.
func (w *Watch) Omit(rel string) {
	w.mu.Lock()
	w.omitted[rel] = true
	w.mu.Unlock()
}

// Covers reports whether rel (relative to the root) is under what the
// key left out: rel or a directory above it was omitted (Omit), or is a
// version-control directory or .cc.
func (w *Watch) Covers(rel string) bool {
	rel = path.Clean(filepath.ToSlash(rel))
	if rel == ".." || strings.HasPrefix(rel, "../") {
		return false
	}
	if InVCS(rel) || InStateDir(rel) {
		return true
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	for q := rel; q != "." && q != "/"; q = path.Dir(q) {
		if w.omitted[q] {
			return true
		}
	}
	return false
}

// Stop ends the watch; its count stays.
func (w *Watch) Stop() {
	if w == nil {
		return
	}
	watches.mu.Lock()
	delete(watches.ws, w)
	watches.on.Store(int32(len(watches.ws)))
	watches.mu.Unlock()
}

// Reads is how many reads of omitted paths the watch has counted. With
// watches of one root at the same time, each counts the reads of all: a
// cache is only more careful.
func (w *Watch) Reads() int64 { return w.reads.Load() }

// Touch tells the watches of a read of the file system at p (any access:
// a stat, an open, a listing, a link read or resolved). A relative p
// counts for every watch; an absolute one for those whose root holds it
// (through symbolic links too) under what was left out (Covers); one out
// of every root for those it is in a version-control directory.
func Touch(p string) {
	if watches.on.Load() == 0 {
		return
	}
	watches.mu.RLock()
	defer watches.mu.RUnlock()
	var real string
	for w := range watches.ws {
		if w.counts(p, &real) {
			w.reads.Add(1)
		}
	}
}

// counts reports whether w counts a read of p; real caches p resolved.
func (w *Watch) counts(p string, real *string) bool {
	if !filepath.IsAbs(p) {
		return true
	}
	root := w.p.root
	if !inside(root, p) {
		if *real == "" {
			*real = resolveExisting(p)
		}
		if *real == "-" || !inside(root, *real) {
			return InVCS(p)
		}
		p = *real
	}
	return w.Covers(RelTo(root, p))
}

// resolveExisting is p with its symbolic links resolved as far as it
// exists (what is past that joined on), or "-" when nothing resolves.
func resolveExisting(p string) string {
	rest := ""
	for q := p; ; q = filepath.Dir(q) {
		if r, err := filepath.EvalSymlinks(q); err == nil {
			return filepath.Join(r, rest)
		}
		if filepath.Dir(q) == q {
			return "-"
		}
		rest = filepath.Join(filepath.Base(q), rest)
	}
}
