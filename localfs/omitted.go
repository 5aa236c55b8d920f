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

// Omitted reports whether the compile cache may key the project without
// what rel (relative to the root) holds, by its name and type alone: rel,
// or a directory above it, is a version-control directory (VCSDirs),
// .cc, or excluded by the root's ignore file. The root's ignore files
// themselves never are: the rules are keyed by their contents. A
// compilation that reads an omitted path is counted by its Watch, and
// is keyed in full (issue 13: compile cache).
func (p *Policy) Omitted(rel string) bool {
	rel = path.Clean(filepath.ToSlash(rel))
	switch {
	case rel == "." || rel == ".." || strings.HasPrefix(rel, "../"):
		return false
	case !strings.Contains(rel, "/") && isIgnoreFile(rel):
		return false
	case InVCS(rel) || p.Excluded(rel):
		return true
	}
	if p.rules.exceptions() {
		// An exception may bring rel back under a directory that is
		// excluded: the directory is omitted whole all the same.
		for d := path.Dir(rel); d != "."; d = path.Dir(d) {
			if p.Excluded(d) {
				return true
			}
		}
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

// A Watch counts the reads of a project's omitted paths (Omitted) while
// it is on: every read of a project's files by the compiler, here or in
// package compiler, passes its path to Touch first (TestEveryReadTouches
// keeps it so).
type Watch struct {
	p     *Policy
	reads atomic.Int64
}

var watches struct {
	on atomic.Int32
	mu sync.RWMutex
	ws map[*Watch]bool
}

// Watch starts counting the reads of p's omitted paths, until Stop.
func (p *Policy) Watch() *Watch {
	w := &Watch{p: p}
	watches.mu.Lock()
	if watches.ws == nil {
		watches.ws = map[*Watch]bool{}
	}
	watches.ws[w] = true
	watches.on.Store(int32(len(watches.ws)))
	watches.mu.Unlock()
	return w
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
// (through symbolic links too) and finds it omitted; one out of every
// root for those it is in a version-control directory.
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
	return w.p.Omitted(RelTo(root, p))
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
