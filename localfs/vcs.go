package localfs

import (
	"strings"
	"sync/atomic"
)

// VCSDirs are the names of version-control metadata directories. The
// compile cache keys a project without their contents (a commit changes
// them, not the configuration) as long as no compilation reads under one
// (issue 13: compile cache); Touch counts the reads that do.
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

var vcsReads atomic.Int64

// Touch counts the read of p (any access: a stat, an open, a listing, a
// link resolved) when p is in a version-control directory (InVCS). Every
// read of a project's files by the compiler, here or in package
// compiler, passes its path here first (TestEveryReadTouches keeps it
// so).
func Touch(p string) {
	if InVCS(p) {
		vcsReads.Add(1)
	}
}

// VCSReads is how many reads Touch has counted in this process. A
// compilation that saw it move may have read under a version-control
// directory: another one, run at the same time, may have been the
// reader, which only makes a cache more careful.
func VCSReads() int64 { return vcsReads.Load() }
