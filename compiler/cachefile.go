package compiler

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The files of the compile cache (issue 13: compile cache), in its
// directory (Input.CacheDir, .cc/cache for cc): key, the project's random
// key (0600); stat, the stat cache; c-SLOT, a compiled result. Each but
// key is sealed: a magic line, an HMAC-SHA256 of the rest under the key,
// then the gob payload; anything that does not verify is ignored, and
// rebuilt by the next write. Every write is atomic (a temporary file in
// the directory, renamed), the directory 0700 and the files 0600.

const (
	cacheKeyFile   = "key"
	maxCacheFile   = 1 << 30
	maxCompileEnts = 8 // results kept, the newest first
)

// cacheDirKey opens the cache directory, making it 0700 when missing, and
// gives its key, making one when missing. It holds a .gitignore that
// keeps it out of version control. An error means no cache.
//
// Every file of the cache is sealed with the key, so a key someone else
// knows would let them write results that a plan takes for compiled: a
// cache directory and key committed to a repository, say, would make
// every plan and apply of a checkout carry out what they wrote, not the
// configuration. So the key is trusted only in the file cc wrote: private
// to this user (cacheKeyPrivate) and holding, after the key, its own
// device and inode, which no checkout, copy or archive can give a file it
// makes. Any other key is replaced by a new one, which leaves every file
// sealed with it unreadable.
//
// The directory and the one above it (.cc) must be directories, not
// symbolic links: a link committed in their place would have the cache
// write, make private and prune files wherever it leads.
func cacheDirKey(dir string) ([]byte, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var fi fs.FileInfo
	for _, d := range []string{filepath.Dir(dir), dir} {
		var err error
		if fi, err = os.Lstat(d); err != nil || !fi.IsDir() {
			return nil, errors.New("the cache directory is not a directory of its own")
		}
	}
	if fi.Mode().Perm()&0o077 != 0 {
		// Not made by cc (git checks out directories 0755): make it
		// private, and the key anew.
		if err := os.Chmod(dir, 0o700); err != nil {
			return nil, err
		}
		os.Remove(filepath.Join(dir, cacheKeyFile))
	}
	if f, err := os.OpenFile(filepath.Join(dir, ".gitignore"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.WriteString("# cc's compile cache: never commit it.\n*\n")
		f.Close()
	}
	name := filepath.Join(dir, cacheKeyFile)
	if k := readCacheKey(name); k != nil {
		return k, nil
	}
	k := make([]byte, cacheKeySize)
	if _, err := rand.Read(k); err != nil {
		return nil, err
	}
	err := writeTemp(dir, cacheKeyFile, func(f *os.File) error {
		fi, err := f.Stat()
		if err != nil {
			return err
		}
		id, ok := fileID(fi)
		if !ok {
			return errors.New("no inode to bind the cache key to")
		}
		_, err = f.Write(append(k, id[:]...))
		return err
	})
	if err != nil {
		return nil, err
	}
	// Another process may have renamed its key in first: use the one
	// that is there.
	if k := readCacheKey(name); k != nil {
		return k, nil
	}
	return nil, errors.New("cache key unreadable")
}

// cacheKeySize is the size of the cache key; its file holds the key and
// then the file's own device and inode (fileID).
const cacheKeySize = 32

// readCacheKey gives the key in the key file name when cc wrote it: a
// regular file private to this user (cacheKeyPrivate), of the key and the
// device and inode it has; nil otherwise.
func readCacheKey(name string) []byte {
	fi, err := os.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != cacheKeySize+16 || !cacheKeyPrivate(fi) {
		return nil
	}
	b, err := os.ReadFile(name)
	id, ok := fileID(fi)
	if err != nil || len(b) != cacheKeySize+16 || !ok || !bytes.Equal(b[cacheKeySize:], id[:]) {
		return nil
	}
	return b[:cacheKeySize]
}

// writeSealed writes dir/name atomically (writeTemp) sealed: magic,
// HMAC(key, magic and payload), payload, where encode writes the payload.
// The payload streams through a buffer into the file and the HMAC, and
// its place is filled in last, so the payload is never held whole (a
// result of 10,000 resources is 7 MB; issue 13, aim 6).
func writeSealed(dir, name string, key []byte, magic string, encode func(io.Writer) error) error {
	return writeTemp(dir, name, func(f *os.File) error {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(magic))
		if _, err := f.Write(append([]byte(magic), make([]byte, sha256.Size)...)); err != nil {
			return err
		}
		w := bufio.NewWriterSize(io.MultiWriter(f, m), 256<<10)
		if err := encode(w); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
		_, err := f.WriteAt(m.Sum(nil), int64(len(magic)))
		return err
	})
}

// writeTemp fills a temporary file in dir, then makes it 0600 and renames
// it over dir/name; on any failure it removes it.
func writeTemp(dir, name string, fill func(*os.File) error) error {
	f, err := os.CreateTemp(dir, ".tmp-"+name+"-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = fill(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp, 0o600)
	}
	if err == nil {
		err = os.Rename(tmp, filepath.Join(dir, name))
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}

// unseal gives the payload of a sealed file, or nil when it is missing,
// of another version, truncated or altered.
func unseal(key []byte, magic, name string) []byte {
	fi, err := os.Stat(name)
	if err != nil || !fi.Mode().IsRegular() || fi.Size() > maxCacheFile {
		return nil
	}
	b, err := os.ReadFile(name)
	if err != nil || len(b) < len(magic)+sha256.Size || !bytes.HasPrefix(b, []byte(magic)) {
		return nil
	}
	sum, payload := b[len(magic):len(magic)+sha256.Size], b[len(magic)+sha256.Size:]
	m := hmac.New(sha256.New, key)
	m.Write([]byte(magic))
	m.Write(payload)
	if !hmac.Equal(sum, m.Sum(nil)) {
		return nil
	}
	return payload
}

// pruneResults removes all but the newest maxCompileEnts results, and
// temporary files a killed writer left.
func pruneResults(dir string) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type ent struct {
		name string
		mod  int64
	}
	var res []ent
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		switch {
		case strings.HasPrefix(e.Name(), ".tmp-") && fi.ModTime().Unix() < nowUnix()-3600:
			os.Remove(filepath.Join(dir, e.Name()))
		case strings.HasPrefix(e.Name(), "c-"):
			res = append(res, ent{e.Name(), fi.ModTime().UnixNano()})
		}
	}
	sort.Slice(res, func(i, j int) bool { return res[i].mod > res[j].mod })
	for i := maxCompileEnts; i < len(res); i++ {
		os.Remove(filepath.Join(dir, res[i].name))
	}
}
