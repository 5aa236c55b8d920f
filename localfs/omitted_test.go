package localfs

import (
	"os"
	"path/filepath"
	"testing"
)

// TestInVCS: the paths that are in a version-control directory.
func TestInVCS(t *testing.T) {
	for p, want := range map[string]bool{
		".git": true, ".git/HEAD": true, "/a/b/.git/x": true, "a/.hg": true, "x/.svn/y": true, ".jj/repo": true,
		"": false, "a/b": false, ".github/workflows": false, "a/.gitignore": false, "git/x": false, "/a/.cc/cache": false, ".gi": false,
	} {
		if got := InVCS(p); got != want {
			t.Errorf("InVCS(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestOmits: what the compile cache's key walk may key by name alone: a
// version-control directory, a directory or a top-level file the root's
// ignore file excludes (an exception under an excluded directory does
// not bring the directory back); never a deeper file, the root's ignore
// files, nor the root.
func TestOmits(t *testing.T) {
	type entry struct {
		rel string
		dir bool
	}
	for _, c := range []struct {
		ignore string
		want   map[entry]bool
	}{
		{"", map[entry]bool{{".", true}: false, {"src/a.py", false}: false, {".git", true}: true, {"sub/.git", true}: true,
			{".git", false}: false, {".ccignore", false}: false}},
		{".venv\n*.txt\n.ccignore\n**/*.tmp\n", map[entry]bool{{".venv", true}: true, {"a.txt", false}: true, {"data/a.txt", false}: false,
			{".ccignore", false}: false, {"main.hcl", false}: false, {"x.tmp", false}: true, {"deep/x.tmp", false}: false, {"deep/d.tmp", true}: true}},
		{"data\n!data/keep.txt\n", map[entry]bool{{"data", true}: true, {"datum", true}: false}},
		{"*\n!src\n", map[entry]bool{{"main.hcl", false}: true, {"src", true}: false, {"src/lib", true}: false,
			{".ccignore", false}: false, {".dockerignore", false}: false}},
	} {
		root := t.TempDir()
		if c.ignore != "" {
			os.WriteFile(filepath.Join(root, ".ccignore"), []byte(c.ignore), 0o644)
		}
		p, err := New(root)
		if err != nil {
			t.Fatal(err)
		}
		for e, want := range c.want {
			if got := p.Omits(e.rel, e.dir); got != want {
				t.Errorf("with %q, Omits(%q, dir %v) = %v, want %v", c.ignore, e.rel, e.dir, got, want)
			}
		}
	}
}

// TestWatch: a watch counts the reads under what its key walk left out
// (Omit), version-control directories and .cc of its own root, reached
// by their path or through a link to the root; a relative path counts
// for every watch; a stopped watch counts no more.
func TestWatch(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(a, alias); err != nil {
		t.Fatal(err)
	}
	pa, _ := New(a)
	pb, _ := New(b)
	wa, wb := pa.Watch(), pb.Watch()
	defer wb.Stop()
	wa.Omit(".venv")
	wa.Omit("notes.txt")
	for _, p := range []string{filepath.Join(a, "main.hcl"), filepath.Join(a, ".git/HEAD"), filepath.Join(a, ".venv/x"),
		filepath.Join(a, "notes.txt"), filepath.Join(a, "notes.txt2"), filepath.Join(a, ".cc/cache/key"),
		filepath.Join(b, ".venv/x"), filepath.Join(alias, ".venv"), "rel/x", "/elsewhere/.git/HEAD"} {
		Touch(p)
	}
	// a: .git/HEAD, .venv/x, notes.txt, .cc/cache/key, alias/.venv, rel/x,
	// /elsewhere/.git/HEAD.
	if n := wa.Reads(); n != 7 {
		t.Errorf("watch of a counted %d reads, want 7", n)
	}
	// b: rel/x, and a/.git/HEAD and /elsewhere/.git/HEAD, out of b and
	// in a version-control directory (b left nothing out).
	if n := wb.Reads(); n != 3 {
		t.Errorf("watch of b counted %d reads, want 3", n)
	}
	wa.Stop()
	Touch(filepath.Join(a, ".git/HEAD"))
	if n := wa.Reads(); n != 7 {
		t.Errorf("a stopped watch counted on: %d", n)
	}
}
