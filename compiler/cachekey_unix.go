//go:build linux || darwin

package compiler

import (
	"encoding/binary"
	"io/fs"
	"os"
	"syscall"
)

// fileID is fi's device and inode, 8 bytes each (cacheDirKey binds the
// compile cache's key to its file by them).
func fileID(fi fs.FileInfo) ([16]byte, bool) {
	var id [16]byte
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return id, false
	}
	binary.LittleEndian.PutUint64(id[:8], uint64(st.Dev))
	binary.LittleEndian.PutUint64(id[8:], uint64(st.Ino))
	return id, true
}

// cacheKeyPrivate reports whether the key file fi is this user's alone:
// owned by the process's effective user, with no permission for group or
// others, and no other name.
func cacheKeyPrivate(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && st.Uid == uint32(os.Geteuid()) && fi.Mode().Perm()&0o077 == 0 && uint64(st.Nlink) == 1
}
