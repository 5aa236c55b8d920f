package compiler

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"

	"cc.dev/cc/localfs"
	"cc.dev/cc/schema"
)

// errUncacheable: the compilation reads what a key cannot follow.
var errUncacheable = errors.New("not cacheable")

// errKeyOmitted: a symbolic link leads into what the key leaves out
// (localfs.Policy.Omits), or the root's ignore file cannot be read, so
// a key without the omitted paths' contents would not follow what the
// compilation reads.
var errKeyOmitted = errors.New("a link into an omitted path")

// keyWriter writes length-prefixed strings into the key's HMAC.
type keyWriter struct{ h hash.Hash }

func (w keyWriter) str(ss ...string) {
	var n [8]byte
	for _, s := range ss {
		binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
		w.h.Write(n[:])
		w.h.Write([]byte(s))
	}
}

func (w keyWriter) list(name string, ss []string) {
	w.str(name, strconv.Itoa(len(ss)))
	w.str(ss...)
}

// inputKey is the key of the compilation of in (compileCache), or nil
// when it cannot be cached. With full false the key leaves out what the
// entries the root's policy omits hold (localfs.Policy.Omits), only good
// for a compilation that reads none of them (compileCache.finish);
// errKeyOmitted says it cannot be made so.
func (c *compileCache) inputKey(in Input, p *project, full bool) ([]byte, error) {
	v := ccVersion(c.stat)
	if v == "" {
		return nil, errUncacheable
	}
	if !full && (c.policy == nil || localfs.InVCS(p.root)) {
		return nil, errKeyOmitted
	}
	w := keyWriter{hmac.New(sha256.New, c.key)}
	w.str("cc compile cache 1", v, in.Path, p.root, p.dir, p.lang, in.Env,
		fmt.Sprint(in.Offline, in.UnknownVariables, p.maxSize, full))
	w.list("vars", in.Vars)
	w.list("tags", in.Tags)
	w.list("envvars", in.EnvVars)
	w.list("varfiles", in.VarFiles)
	for _, f := range in.VarFiles {
		b, err := schema.ReadRegular(f, p.maxSize)
		if err != nil {
			return nil, errUncacheable
		}
		w.str(string(b))
	}
	if p.lang == "cue" && cueModAbove(p.root) {
		return nil, errUncacheable
	}
	if err := c.walkKey(w, p.root, full); err != nil {
		if err != errKeyOmitted {
			err = errUncacheable
		}
		return nil, err
	}
	return w.h.Sum(nil), nil
}

// cueModAbove reports whether cue/load would find the module of a root
// without cue.mod above it, out of the root.
func cueModAbove(root string) bool {
	if _, err := os.Lstat(filepath.Join(root, "cue.mod")); err == nil {
		return false
	}
	for d := filepath.Dir(root); ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, "cue.mod")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

// walkKey writes every entry under root but its .cc directory into the
// key: directories by name, files by mode, size and content (through
// the stat cache), links by target. A link out of the root, or an
// unreadable entry, makes the compilation uncacheable. Without all, an
// entry the policy omits (localfs.Policy.Omits) is written by its name
// and type alone and told to the watch, what is under an omitted
// directory not at all, and a link into what was left out is
// errKeyOmitted.
func (c *compileCache) walkKey(w keyWriter, root string, all bool) error {
	var links []string // where the links lead, relative to the root
	err := filepath.WalkDir(root, func(full string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := relTo(root, full)
		t := d.Type()
		switch {
		case d.IsDir() && rel == localfs.StateDir:
			return filepath.SkipDir
		case !all && c.policy.Omits(rel, d.IsDir()):
			c.watch.Omit(rel)
			w.str("x", rel, t.String())
			if d.IsDir() {
				return filepath.SkipDir
			}
		case d.IsDir():
			w.str("d", rel)
		case t.IsRegular():
			fi, err := d.Info()
			if err != nil {
				return err
			}
			k, err := c.stat.keyed(full, fi, nil)
			if err != nil {
				return err
			}
			w.str("f", rel, fi.Mode().String(), strconv.FormatInt(fi.Size(), 10), string(k))
		case t&fs.ModeSymlink != 0:
			to, vcs, err := linkKey(w, root, rel, full)
			if err != nil {
				return err
			}
			if vcs && !all {
				return errKeyOmitted
			}
			links = append(links, to)
		default:
			w.str("o", rel, t.String())
		}
		return nil
	})
	if err != nil || all {
		return err
	}
	for _, to := range links {
		if c.watch.Covers(to) {
			return errKeyOmitted
		}
	}
	return nil
}

// linkKey writes a link's target, refusing one that leaves the root, and
// gives where it leads (relative to the root; the target's own path when
// it does not resolve) and whether its target names a version-control
// directory.
func linkKey(w keyWriter, root, rel, full string) (to string, vcs bool, err error) {
	target, err := os.Readlink(full)
	if err != nil {
		return "", false, err
	}
	resolved := target
	if !filepath.IsAbs(resolved) {
		resolved = filepath.Join(filepath.Dir(full), target)
	}
	real, err := filepath.EvalSymlinks(full)
	if err == nil {
		resolved = real
	}
	if !localfsInside(root, filepath.Clean(resolved)) {
		return "", false, errUncacheable
	}
	w.str("l", rel, target, resolved, fmt.Sprint(err == nil))
	return relTo(root, filepath.Clean(resolved)), localfs.InVCS(target), nil
}

func localfsInside(root, abs string) bool {
	return abs == root || len(abs) > len(root) && abs[:len(root)] == root && abs[len(root)] == filepath.Separator
}
