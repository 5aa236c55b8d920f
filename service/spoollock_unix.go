//go:build linux || darwin

package service

import (
	"os"
	"path/filepath"
	"syscall"
)

// spoolLockName is the file a PostgreSQL replica's spool directory holds
// locked (flock) while the replica lives: the kernel lets go of the lock
// when the process ends, kill -9 included.
const spoolLockName = "lock"

// lockSpool locks dir's lock file for the life of the process: it is made
// under another name, locked, then renamed in, so that no reaper ever
// finds it unlocked while its owner lives.
func lockSpool(dir string) (*os.File, error) {
	f, err := os.CreateTemp(dir, ".lock-")
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, spoolLockName)); err != nil {
		f.Close()
		os.Remove(f.Name())
		return nil, err
	}
	return f, nil
}

// deadSpool reports whether the spool directory dir belongs to a process
// that has ended: its lock file exists and can be locked. A directory
// without one (of a cc from before the lock, or one being made) is never
// dead.
func deadSpool(dir string) bool {
	f, err := os.Open(filepath.Join(dir, spoolLockName))
	if err != nil {
		return false
	}
	defer f.Close()
	if syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		return false
	}
	// Held now by this process: no owner can come back to it. It is
	// let go of when f closes, after the directory is gone.
	return true
}
