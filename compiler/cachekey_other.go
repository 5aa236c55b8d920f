//go:build !linux && !darwin

package compiler

import "io/fs"

// fileID gives no device and inode here: the compile cache's key is not
// bound to its file, only read from it (cacheDirKey).
func fileID(fs.FileInfo) ([16]byte, bool) { return [16]byte{}, true }

// cacheKeyPrivate cannot tell an owner here.
func cacheKeyPrivate(fs.FileInfo) bool { return true }
