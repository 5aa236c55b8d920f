//go:build linux || darwin

package service

import (
	"io/fs"
	"os"
	"syscall"
)

// otherOwner is fi's owner when that is not the process's effective
// user.
func otherOwner(fi fs.FileInfo) (int, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) == os.Geteuid() {
		return 0, false
	}
	return int(st.Uid), true
}

// safeParent reports whether only this user and root can change the
// directory fi: owned by one of them, and writable by no one else unless
// it is sticky (then others cannot move what they do not own), as
// OpenSSH's StrictModes asks of the directories above a key.
func safeParent(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || !fi.IsDir() || (int(st.Uid) != os.Geteuid() && st.Uid != 0) {
		return false
	}
	return fi.Mode().Perm()&0o022 == 0 || fi.Mode()&fs.ModeSticky != 0
}
