//go:build linux

package compiler

import (
	"io/fs"
	"syscall"
)

// statOf is the stat data the stat cache compares (issue 13: stat
// cache); ok is false when the file system gives none.
var statOf = func(fi fs.FileInfo) (statKey, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return statKey{}, false
	}
	return statKey{Size: st.Size, Mtime: st.Mtim.Nano(), Ctime: st.Ctim.Nano(), Ino: st.Ino, Dev: uint64(st.Dev), Mode: uint32(fi.Mode())}, true
}
