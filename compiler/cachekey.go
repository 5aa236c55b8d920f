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

// errKeyOmitted: a symbolic link leads into an omitted path
// (localfs.Policy.Omitted), or the root's ignore file cannot be read, so
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
// root's omitted paths hold (c.policy, localfs.Policy.Omitted), only good
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
// omitted path (c.policy) is written by its name and type alone, what is
// under an omitted directory not at all, and a link into an omitted path
// is errKeyOmitted.
func (c *compileCache) walkKey(w keyWriter, root string, all bool) error {
	return filepath.WalkDir(root, func(full string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := relTo(root, full)
		t := d.Type()
		switch {
		case d.IsDir() && rel == localfs.StateDir:
			return filepath.SkipDir
		case !all && rel != "." && c.policy.Omitted(rel):
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
			return c.linkKey(w, root, rel, full, all)
		default:
			w.str("o", rel, t.String())
		}
		return nil
	})
}

// linkKey writes a link's target, refusing one that leaves the root, and
// without fullKey one that leads into an omitted path.
func (c *compileCache) linkKey(w keyWriter, root, rel, full string, fullKey bool) error {
	target, err := os.Readlink(full)
	if err != nil {
		return err
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
		return errUncacheable
	}
	if !fullKey && (localfs.InVCS(target) || c.policy.Omitted(relTo(root, filepath.Clean(resolved)))) {
		return errKeyOmitted
	}
	w.str("l", rel, target, resolved, fmt.Sprint(err == nil))
	return nil
}

func localfsInside(root, abs string) bool {
	return abs == root || len(abs) > len(root) && abs[:len(root)] == root && abs[len(root)] == filepath.Separator
}
