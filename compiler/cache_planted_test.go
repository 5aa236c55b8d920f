package compiler

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompileCachePlantedKey: issue 13: compile cache. A cache directory
// that someone else wrote, key and all (committed to a repository and
// checked out, or copied in), is not trusted: its author could seal a
// result under the key of the configuration a reviewer reads that holds
// another one. Checked out at the path the attacker foresaw, private
// (umask 077) or not, the cached compile gives what a cold one gives, and
// the directory gets a key of its own. (Before, the planted result came
// back.)
func TestCompileCachePlantedKey(t *testing.T) {
	for _, mode := range []struct {
		name     string
		dir, key os.FileMode
	}{{"private", 0o700, 0o600}, {"as git checks out", 0o755, 0o644}} {
		t.Run(mode.name, func(t *testing.T) {
			// The attacker's project: the configuration shown (benign)
			// and a result sealed under its key holding another one.
			attacker := vcsProject(t, `"benign"`, "src")
			cache := filepath.Join(attacker, ".cc", "cache")
			in := Input{Path: filepath.Join(attacker, "main.hcl")}
			compileColdCached(t, in, cache)
			rewrite(t, in.Path, `"benign"`, `"planted"`)
			planted, err := Compile(t.Context(), Input{Path: in.Path})
			if err != nil {
				t.Fatal(err)
			}
			rewrite(t, in.Path, `"planted"`, `"benign"`)
			kb, err := os.ReadFile(filepath.Join(cache, cacheKeyFile))
			if err != nil {
				t.Fatal(err)
			}
			key := kb[:cacheKeySize]
			slots, _ := filepath.Glob(filepath.Join(cache, "c-*"))
			if len(slots) != 1 {
				t.Fatalf("slots %v", slots)
			}
			var cr cachedResult
			if err := gob.NewDecoder(bytes.NewReader(unseal(key, resultMagic, slots[0]))).Decode(&cr); err != nil {
				t.Fatal(err)
			}
			forged := newCachedResult(cr.Key, cr.Full, planted)
			if err := writeSealed(cache, filepath.Base(slots[0]), key, resultMagic, func(w io.Writer) error { return gob.NewEncoder(w).Encode(forged) }); err != nil {
				t.Fatal(err)
			}
			// In place, the forged result is what the cache gives: the
			// attack is real for whoever has the key.
			p := probeCache(t)
			if res, err := Compile(t.Context(), Input{Path: in.Path, CacheDir: cache}); err != nil || !strings.Contains(string(mustCanonical(t, res)), "planted") {
				t.Fatalf("the forged result was not read back in place (%v)", err)
			}
			p.take()

			// The victim's checkout, at the path the attacker foresaw
			// (a CI runner's is): the same files, made anew.
			victim := attacker
			if err := os.Rename(attacker, attacker+".orig"); err != nil {
				t.Fatal(err)
			}
			copyTree(t, attacker+".orig", victim)
			filepath.WalkDir(filepath.Join(victim, ".cc"), func(p string, d os.DirEntry, err error) error {
				if d.IsDir() {
					return os.Chmod(p, mode.dir)
				}
				return os.Chmod(p, mode.key)
			})
			backdate(t, victim)
			vin := Input{Path: filepath.Join(victim, "main.hcl")}
			vcache := filepath.Join(victim, ".cc", "cache")
			res := compileColdCached(t, vin, vcache)
			if strings.Contains(string(mustCanonical(t, res)), "planted") {
				t.Fatal("the planted result came back")
			}
			if hits, _ := p.take(); hits != 0 {
				t.Fatalf("%d hits in the checkout, want 0", hits)
			}
			nb, _ := os.ReadFile(filepath.Join(vcache, cacheKeyFile))
			if len(nb) < cacheKeySize || bytes.Equal(nb[:cacheKeySize], key) {
				t.Fatal("the checkout kept the planted key")
			}
			if fi, _ := os.Stat(vcache); fi.Mode().Perm() != 0o700 {
				t.Errorf("cache directory %v, want 0700", fi.Mode().Perm())
			}
			compileColdCached(t, vin, vcache)
			if hits, _ := p.take(); hits != 1 {
				t.Fatalf("%d hits after, want 1: the new key works", hits)
			}
		})
	}
}

// TestCompileCacheRefusesLinkedDir: a .cc/cache, or a .cc, that is a
// symbolic link (committed so, say) is no cache: nothing is written,
// removed or made private where it leads, and the compile still works.
func TestCompileCacheRefusesLinkedDir(t *testing.T) {
	for _, link := range []string{".cc/cache", ".cc"} {
		t.Run(link, func(t *testing.T) {
			dir := vcsProject(t, `"x"`, "src")
			elsewhere := t.TempDir()
			target := elsewhere
			if link == ".cc" {
				target = filepath.Join(elsewhere, "cc")
				os.MkdirAll(filepath.Join(target, "cache"), 0o755)
			}
			keep := filepath.Join(elsewhere, "key")
			if link == ".cc" {
				keep = filepath.Join(target, "cache", "key")
			}
			os.WriteFile(keep, []byte("someone else's file"), 0o644)
			os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755)
			if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
			before := listTree(t, elsewhere)
			p := probeCache(t)
			in := Input{Path: filepath.Join(dir, "main.hcl")}
			compileColdCached(t, in, filepath.Join(dir, ".cc", "cache"))
			compileColdCached(t, in, filepath.Join(dir, ".cc", "cache"))
			if hits, _ := p.take(); hits != 0 {
				t.Fatalf("%d hits through a linked cache directory, want 0", hits)
			}
			if after := listTree(t, elsewhere); after != before {
				t.Fatalf("where the link leads changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// listTree lists every entry under dir with its mode and size.
func listTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		fmt.Fprintf(&b, "%s %v %d; ", strings.TrimPrefix(p, dir), fi.Mode(), fi.Size())
		return nil
	})
	return b.String()
}
