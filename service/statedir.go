package service

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// privateFiles are the files of .cc that hold keys: only their owner may
// read them.
var privateFiles = []string{"state.db.key", "plan-key"}

// OwnStateDir makes ROOT/.cc (mode 0700, with a .gitignore that keeps
// it out of version control) when it is missing and returns it, refusing
// one that is not this user's own. cc keeps the embedded state, its
// secret key and the plan key there. A .cc that came with a clone, or
// that another user of the machine made or linked, would have cc seal
// secret values with a key someone else knows, or write them where
// someone else reads them. So OwnStateDir refuses:
//   - a .cc that is a symbolic link to a directory that someone else
//     could change: one not owned by this user, or with a parent that
//     anyone but this user and root may write to (unless sticky, as /tmp
//     is), or to nothing (cc never makes a directory where a link leads);
//   - an entry of .cc that is a symbolic link, or owned by another user;
//   - a key file that group or others may read (cc makes its keys 0600; a
//     checkout makes files 0644).
//
// A .cc that others may enter (git makes directories 0755) is made 0700.
// A .gitignore of the user's own is left alone.
func OwnStateDir(root string) (string, error) {
	dir := filepath.Join(root, StateDir)
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return "", fmt.Errorf("state directory: %w", err)
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		if fi, err = linkedStateDir(dir); err != nil {
			return "", err
		}
	} else if err := ownEntry(dir, fi); err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory: cc keeps this machine's state and keys in it; move it away", dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return "", fmt.Errorf("state directory: %w", err)
		}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", fmt.Errorf("state directory: %w", err)
	}
	for _, e := range entries {
		path := filepath.Join(dir, e.Name())
		fi, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue // a temporary file of another cc, gone
		}
		if err != nil {
			return "", fmt.Errorf("state directory: %w", err)
		}
		if err := ownEntry(path, fi); err != nil {
			return "", err
		}
		if slices.Contains(privateFiles, e.Name()) && (!fi.Mode().IsRegular() || fi.Mode().Perm()&0o077 != 0) {
			return "", fmt.Errorf("key file %s is not private (mode %v): cc makes its keys mode 0600, so this one was copied or came with a clone, and whoever else has it can read what it protects; remove it if this state is new to this machine, or chmod 600 it if you copied it yourself", path, fi.Mode())
		}
	}
	if f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644); err == nil {
		f.WriteString("# cc's local state: never commit it.\n*\n")
		f.Close()
	}
	return dir, nil
}

// linkedStateDir is the directory the link dir leads to, when no one but
// this user (and root) can change it or what leads to it.
func linkedStateDir(dir string) (fs.FileInfo, error) {
	target, err := filepath.EvalSymlinks(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s is a symbolic link to nothing: cc makes no directory where a link leads; remove the link, or make the directory it names", dir)
	}
	if err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	fi, err := os.Lstat(target)
	if err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	if _, ok := otherOwner(fi); ok || !fi.IsDir() {
		return nil, fmt.Errorf("%s is a symbolic link to %s, which is not a directory of yours: cc keeps this machine's state and keys in .cc, and follows a link there only to a directory only you can change", dir, target)
	}
	for p := filepath.Dir(target); ; p = filepath.Dir(p) {
		pi, err := os.Lstat(p)
		if err != nil {
			return nil, fmt.Errorf("state directory: %w", err)
		}
		if !safeParent(pi) {
			return nil, fmt.Errorf("%s is a symbolic link to %s, and others may change %s (mode %v): cc keeps this machine's state and keys in .cc, and follows a link there only to a directory only you can change", dir, target, p, pi.Mode())
		}
		if filepath.Dir(p) == p {
			return fi, nil
		}
	}
}

// ownEntry refuses a symbolic link, and a file not owned by this user.
func ownEntry(path string, fi fs.FileInfo) error {
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link: cc keeps this machine's state and keys in .cc and follows no link inside it; remove the link", path)
	}
	if uid, ok := otherOwner(fi); ok {
		return fmt.Errorf("%s is owned by user %d, not by you (user %d): cc keeps this machine's state and keys in .cc, and trusts only what you own there; run cc as that user, or chown what is yours", path, uid, os.Geteuid())
	}
	return nil
}

// StateDirIgnored reports whether ROOT/.cc/.gitignore keeps every file
// of .cc out of git: a line "*" (or "/*", "**"), and no line beginning
// with "!" that takes a file back. OwnStateDir writes one that does when
// there is none, and leaves the user's own alone; one that a commit
// brought, or that a user wrote for themselves, may not (`git add`
// would then take the secret key).
func StateDirIgnored(root string) bool {
	b, err := os.ReadFile(filepath.Join(root, StateDir, ".gitignore"))
	if err != nil {
		return false
	}
	all := false
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "!"):
			return false
		case line == "*", line == "/*", line == "**", line == "/**":
			all = true
		}
	}
	return all
}
