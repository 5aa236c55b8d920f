package localfs

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/moby/patternmatcher"

	"cc.dev/cc/schema"
)

func project(t *testing.T, files map[string]string) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestLiteral: a literal pattern matches its path and nothing else, for
// names with pattern characters. (Issue 16 item 4: the root's rules are
// listed under a build context as literal patterns.)
func TestLiteral(t *testing.T) {
	for _, name := range []string{"a[1].txt", "*", "x?y", `back\slash`, "!bang", "c^d", "sub/a*b/[x]", "plain.txt"} {
		pm, err := patternmatcher.New([]string{Literal(name)})
		if err != nil {
			t.Fatalf("Literal(%q) = %q: %v", name, Literal(name), err)
		}
		if ok, _ := pm.MatchesOrParentMatches(name); !ok {
			t.Errorf("Literal(%q) = %q does not match it", name, Literal(name))
		}
		for _, other := range []string{"a1.txt", "ab", "xzy", "other", "bang", "cd"} {
			if ok, _ := pm.MatchesOrParentMatches(other); ok && other != name {
				t.Errorf("Literal(%q) = %q matches %q", name, Literal(name), other)
			}
		}
	}
}

// TestIssue16PolicyOpen: what the applier uploads goes through Open, which
// refuses what the compiler never hashes: .cc/, an ignored file, a path
// out of the root (through a link too), a FIFO (without blocking).
func TestIssue16PolicyOpen(t *testing.T) {
	root := project(t, map[string]string{".ccignore": "*.env\n", "a.txt": "a", ".cc/state": "s", "x.env": "x", "sub/b.txt": "b"})
	outside := project(t, map[string]string{"secret": "s"})
	if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(root, "in")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := New(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		rel  string
		want error
	}{
		{"a.txt", nil},
		{"sub/b.txt", nil},
		{"in", nil},
		{".cc/state", ErrStateDir},
		{"x.env", ErrIgnored},
		{"out", ErrOutsideRoot},
		{"../x", ErrOutsideRoot},
		{"fifo", schema.ErrNotRegular},
		{"missing", fs.ErrNotExist},
	} {
		f, _, err := p.Open(tc.rel)
		if f != nil {
			f.Close()
		}
		if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
			t.Errorf("Open(%s) = %v, want %v", tc.rel, err, tc.want)
		}
	}
	if _, err := p.Readlink("out"); !errors.Is(err, ErrOutsideRoot) {
		t.Errorf("Readlink(out) = %v, want %v", err, ErrOutsideRoot)
	}
	if target, err := p.Readlink("in"); err != nil || target != "a.txt" {
		t.Errorf("Readlink(in) = %q, %v, want a.txt", target, err)
	}
}

// TestRebase: root patterns move under a directory only in the forms that
// stay exact; the rest make rebase refuse (and ContextExcludes list paths).
func TestRebase(t *testing.T) {
	for _, tc := range []struct {
		patterns []string
		dir      string
		want     []string
		ok       bool
	}{
		{[]string{"**/*.pyc", "!**/keep.pyc", "tool/cache", "tool/**/x", "other/y", "!tool/b"}, "tool", []string{"**/*.pyc", "!**/keep.pyc", "cache", "**/x", "!b"}, true},
		{[]string{"a/b/c", "a/x/c", "a/b/**"}, "a/b", []string{"c", "**"}, true},
		{[]string{"*.env", "node_modules", "!.env.example", "x?"}, "tool", []string{}, true},
		{[]string{"**"}, "tool", nil, false},
		{[]string{"*/cache"}, "tool", nil, false},
		{[]string{"t?ol/x"}, "tool", nil, false},
		{[]string{"**/a/b"}, "tool", nil, false},
		// A pattern naming the directory or a parent of it excludes the
		// directory, which the compiler refuses; one component is dropped.
		{[]string{"tool"}, "tool", []string{}, true},
		{[]string{"a/b"}, "a/b", nil, false},
		{[]string{"a/b"}, "a/b/c", nil, false},
		{[]string{`to\ol/x`}, "tool", nil, false},
	} {
		got, ok := rebase(tc.patterns, tc.dir)
		if ok != tc.ok || ok && !slices.Equal(got, tc.want) {
			t.Errorf("rebase(%q, %s) = %q, %v, want %q, %v", tc.patterns, tc.dir, got, ok, tc.want, tc.ok)
		}
	}
}
