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

// TestOmitted: what the compile cache may key by name alone: under a
// version-control directory, .cc, or what the root's ignore file
// excludes, an exception under an excluded directory included; never the
// root's ignore files, nor the root.
func TestOmitted(t *testing.T) {
	for _, c := range []struct {
		ignore string
		want   map[string]bool
	}{
		{"", map[string]bool{".": false, "src/a.py": false, ".git": true, ".git/HEAD": true, "sub/.git/x": true, ".cc": true, ".cc/cache/key": true, ".ccignore": false}},
		{".venv\n*.txt\n.ccignore\n", map[string]bool{".venv": true, ".venv/lib/x.py": true, "a.txt": true, "data/a.txt": false, ".ccignore": false, "main.hcl": false}},
		{"data\n!data/keep.txt\n", map[string]bool{"data": true, "data/keep.txt": true, "data/other.txt": true, "datum": false}},
		{"*\n!src\n", map[string]bool{"main.hcl": true, "src": false, "src/a.py": false, ".ccignore": false, ".dockerignore": false}},
	} {
		root := t.TempDir()
		if c.ignore != "" {
			os.WriteFile(filepath.Join(root, ".ccignore"), []byte(c.ignore), 0o644)
		}
		p, err := New(root)
		if err != nil {
			t.Fatal(err)
		}
		for rel, want := range c.want {
			if got := p.Omitted(rel); got != want {
				t.Errorf("with %q, Omitted(%q) = %v, want %v", c.ignore, rel, got, want)
			}
		}
	}
}

// TestWatch: a watch counts the reads of its own root's omitted paths,
// reached by their path or through a link to the root; a relative path
// counts for every watch; a stopped watch counts no more.
func TestWatch(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, ".ccignore"), []byte(".venv\n"), 0o644)
	alias := filepath.Join(t.TempDir(), "alias")
	if err := os.Symlink(a, alias); err != nil {
		t.Fatal(err)
	}
	pa, _ := New(a)
	pb, _ := New(b)
	wa, wb := pa.Watch(), pb.Watch()
	defer wb.Stop()
	for _, p := range []string{filepath.Join(a, "main.hcl"), filepath.Join(a, ".git/HEAD"), filepath.Join(a, ".venv/x"),
		filepath.Join(b, ".venv/x"), filepath.Join(alias, ".venv"), "rel/x", "/elsewhere/.git/HEAD"} {
		Touch(p)
	}
	// a: .git/HEAD, .venv/x, alias/.venv, rel/x, /elsewhere/.git/HEAD.
	if n := wa.Reads(); n != 5 {
		t.Errorf("watch of a counted %d reads, want 5", n)
	}
	// b: rel/x, and a/.git/HEAD and /elsewhere/.git/HEAD, out of b and
	// in a version-control directory (b ignores nothing).
	if n := wb.Reads(); n != 3 {
		t.Errorf("watch of b counted %d reads, want 3", n)
	}
	wa.Stop()
	Touch(filepath.Join(a, ".git/HEAD"))
	if n := wa.Reads(); n != 5 {
		t.Errorf("a stopped watch counted on: %d", n)
	}
}
