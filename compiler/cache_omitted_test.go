package compiler

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/schema"
)

// vcsConfig is a configuration whose image sets HEAD to head and copies
// copySrc.
func vcsConfig(head, copySrc string) string {
	return `project = "vcs"
image "app" {
  from = "python:3.12-slim"
  copy {
    src = "` + copySrc + `"
    dst = "/app"
  }
  env {
    vars = { HEAD = ` + head + ` }
  }
}
`
}

// vcsProject writes a project whose image sets HEAD to head and copies
// copySrc, with a .git directory beside it, backdated.
func vcsProject(t *testing.T, head, copySrc string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"main.hcl":              vcsConfig(head, copySrc),
		"src/app.py":            "print('hi')\n",
		".git/HEAD":             "ref: refs/heads/main\n",
		".git/refs/heads/main":  "1111111111111111111111111111111111111111\n",
		".git/objects/11/11111": "blob",
	}
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	backdate(t, dir)
	return dir
}

// commit changes .git as a commit does: a new object, the branch moved.
func commit(t *testing.T, dir, sha string) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, ".git/objects/22"), 0o755)
	os.WriteFile(filepath.Join(dir, ".git/objects/22/"+sha), []byte("commit "+sha), 0o644)
	if err := os.WriteFile(filepath.Join(dir, ".git/refs/heads/main"), []byte(sha+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, ".git/HEAD"), []byte("ref: refs/heads/"+sha[:4]+"\n"), 0o644)
}

// TestCompileCacheIgnoresVCS: issue 13: compile cache. A commit changes
// .git, not the configuration: a project that reads nothing in .git is
// still a hit after one (it was a miss, and a full compile, before), and
// the hit is what a cold compile gives.
func TestCompileCacheIgnoresVCS(t *testing.T) {
	for _, lang := range []string{"hcl", "cue"} {
		t.Run(lang, func(t *testing.T) {
			dir := vcsProject(t, `"x"`, "src")
			in := Input{Path: filepath.Join(dir, "main.hcl")}
			if lang == "cue" {
				os.Remove(in.Path)
				in.Path = filepath.Join(dir, "main.cue")
				os.WriteFile(in.Path, []byte(`project: "vcs"
images: app: {
	from: "python:3.12-slim"
	steps: [{copy: {src: "src", dst: "/app"}}]
}
`), 0o644)
				backdate(t, dir)
			}
			p := probeCache(t)
			cache := filepath.Join(dir, ".cc", "cache")
			compileColdCached(t, in, cache)
			compileColdCached(t, in, cache)
			if hits, _ := p.take(); hits != 1 {
				t.Fatalf("unchanged project: %d hits, want 1", hits)
			}
			commit(t, dir, "2222222222222222222222222222222222222222")
			compileColdCached(t, in, cache)
			if hits, _ := p.take(); hits != 1 {
				t.Fatalf("after a commit: %d hits, want 1 (.git is not read)", hits)
			}
			// Its name is in the key: a project that gains or loses a
			// .git directory is compiled again.
			if err := os.RemoveAll(filepath.Join(dir, ".git")); err != nil {
				t.Fatal(err)
			}
			compileColdCached(t, in, cache)
			if hits, _ := p.take(); hits != 0 {
				t.Fatalf("after .git is removed: %d hits, want 0", hits)
			}
		})
	}
}

// TestCompileCacheReadsOmitted: issue 13: compile cache. A compilation
// that reads an omitted path (in .git: a file of it, a fileset over the
// root, a link into it, a copy of the whole root; a file the root's
// .ccignore excludes, or keeps by an exception under a directory it
// excludes) is never answered from the key without what omitted paths
// hold: after a change there (a commit, an edit) each compile gives what
// a cold one gives, the new contents, and an unchanged project is still a
// hit (from the second compile on, under the whole key). What reads
// nothing omitted stays a hit after the change: a copy of the root with
// .git in .ccignore, an edit of an ignored .venv (the ignore file
// excluding itself too).
func TestCompileCacheReadsOmitted(t *testing.T) {
	commitIt := func(t *testing.T, dir string) { commit(t, dir, "2222222222222222222222222222222222222222") }
	edit := func(name string) func(*testing.T, string) {
		return func(t *testing.T, dir string) {
			if err := os.WriteFile(filepath.Join(dir, name), []byte("edited\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name, head, copySrc, link, ignore, env string
		setup, change                          func(*testing.T, string)
		hitAfter                               bool
	}{
		{name: "file", head: `file(".git/HEAD")`, copySrc: "src"},
		{name: "fileset", head: `join(",", fileset(".", "**"))`, copySrc: "src"},
		{name: "filesha256", head: `filesha256(".git/refs/heads/main")`, copySrc: "src"},
		{name: "fileexists", head: `tostring(fileexists(".git/objects/22/2222222222222222222222222222222222222222"))`, copySrc: "src"},
		{name: "link", head: `file("head")`, copySrc: "src", link: ".git/HEAD"},
		{name: "link to dir", head: `file("g/HEAD")`, copySrc: "src", link: ".git"},
		{name: "copy root", head: `"x"`, copySrc: "."},
		{name: "copy .git", head: `"x"`, copySrc: ".git"},
		{name: "copy root, .git ignored", head: `"x"`, copySrc: ".", ignore: ".git\n", hitAfter: true},
		{name: "excluded file", head: `file("notes.txt")`, copySrc: "src", ignore: "*.txt\n", change: edit("notes.txt")},
		{name: "file kept by an exception", head: `file("data/keep.txt")`, copySrc: "src", ignore: "data\n!data/keep.txt\n", change: edit("data/keep.txt")},
		{name: "copy kept by an exception", head: `"x"`, copySrc: ".", ignore: "data\n!data/keep.txt\n", change: edit("data/keep.txt")},
		{name: "excluded config file", head: `"x"`, copySrc: "src", ignore: "*.hcl\n", change: func(t *testing.T, dir string) {
			rewrite(t, filepath.Join(dir, "main.hcl"), `"x"`, `"y"`)
		}},
		{name: "excluded cc.lock", head: `"x"`, copySrc: "src", ignore: "*.lock\n", setup: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, schema.LockFile), []byte(`{"version":1,"bases":{"python:3.12-slim":"sha256:`+strings.Repeat("a", 64)+`"}}`), 0o644)
		}, change: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, schema.LockFile), []byte(`{"version":1,"bases":{"python:3.12-slim":"sha256:`+strings.Repeat("b", 64)+`"}}`), 0o644)
		}},
		{name: "excluded environment file", head: `var.level`, copySrc: "src", ignore: "env\n", env: "prod", change: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, "env/prod.ccvars.hcl"), []byte(`level = "q"`+"\n"), 0o644)
		}},
		{name: "a missing file looked for", head: `tostring(fileexists("nothere"))`, copySrc: "src", hitAfter: true},
		{name: "ignored .venv edited", head: `"x"`, copySrc: ".", ignore: ".ccignore\n.venv\n.git\n", change: edit(".venv/lib/x.py"), hitAfter: true},
		{name: "ignore file edited", head: `"x"`, copySrc: ".", ignore: ".ccignore\n.venv\n.git\n", change: func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".ccignore"), []byte(".ccignore\n.venv\n.git\nnotes.txt\n"), 0o644)
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := vcsProject(t, c.head, c.copySrc)
			for _, f := range []string{"notes.txt", "data/keep.txt", "data/other.txt", ".venv/lib/x.py"} {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755)
				os.WriteFile(filepath.Join(dir, f), []byte(f+"\n"), 0o644)
			}
			if c.env != "" {
				os.WriteFile(filepath.Join(dir, "vars.hcl"), []byte(`variable "level" { default = "a" }`+"\n"), 0o644)
				os.MkdirAll(filepath.Join(dir, "env"), 0o755)
				os.WriteFile(filepath.Join(dir, "env", c.env+".ccvars.hcl"), []byte(`level = "p"`+"\n"), 0o644)
			}
			if c.link != "" {
				name := "head"
				if c.link == ".git" {
					name = "g"
				}
				if err := os.Symlink(c.link, filepath.Join(dir, name)); err != nil {
					t.Fatal(err)
				}
			}
			if c.ignore != "" {
				os.WriteFile(filepath.Join(dir, ".ccignore"), []byte(c.ignore), 0o644)
			}
			if c.setup != nil {
				c.setup(t, dir)
			}
			backdate(t, dir)
			change := c.change
			if change == nil {
				change = commitIt
			}
			in := Input{Path: filepath.Join(dir, "main.hcl"), Env: c.env}
			if c.env != "" {
				in.Path = dir
			}
			p := probeCache(t)
			cache := filepath.Join(dir, ".cc", "cache")
			first := compileColdCached(t, in, cache)
			compileColdCached(t, in, cache)
			compileColdCached(t, in, cache)
			if hits, _ := p.take(); hits < 1 {
				t.Fatalf("unchanged project: %d hits in 3 compiles, want at least 1", hits)
			}
			change(t, dir)
			after := compileColdCached(t, in, cache)
			hits, _ := p.take()
			switch {
			case c.hitAfter && hits != 1:
				t.Fatalf("after the change: %d hits, want 1 (nothing omitted is read)", hits)
			case !c.hitAfter && hits != 0:
				t.Fatalf("after the change: %d hits, want 0 (what changed is read)", hits)
			}
			fb, _ := first.Desired.MarshalCanonical()
			ab, _ := after.Desired.MarshalCanonical()
			if changed := !bytes.Equal(fb, ab); changed == c.hitAfter {
				t.Fatalf("after the change the result changed: %v, want %v", changed, !c.hitAfter)
			}
			compileColdCached(t, in, cache)
			if hits, _ := p.take(); hits != 1 {
				t.Fatalf("unchanged after the change: %d hits, want 1", hits)
			}
		})
	}
}

// TestCompileCacheOmittedRandom: issue 13: compile cache. Random
// sequences of commits, edits of ignored and kept files, links into .git,
// ignore files (with exceptions, excluding themselves, excluding the
// configuration) and configurations that read omitted paths or not: after
// each step a cached compile gives what a cold one gives (or fails as it
// does).
func TestCompileCacheOmittedRandom(t *testing.T) {
	heads := []string{`"x"`, `file(".git/HEAD")`, `join(",", fileset(".", "**"))`, `file("lnk/HEAD")`,
		`tostring(fileexists(".git/y"))`, `filesha256("src/app.py")`, `join(",", fileset("lnk", "*"))`,
		`file("data/keep.txt")`, `file("notes.txt")`, `join(",", fileset(".venv", "**"))`, `tostring(fileexists(".venv/x"))`,
		`filesha256("data/other.txt")`}
	srcs := []string{"src", ".", ".git", "lnk", "data", ".venv"}
	ignores := []string{".git\nlnk\n", ".venv\n", "*.txt\n", "data\n!data/keep.txt\n", ".ccignore\n.venv\n",
		"main.hcl\n", "**/.git\n.venv\ndata/other.txt\n", "*\n!src\n!main.hcl\n"}
	seeds := 16
	if testing.Short() {
		seeds = 4
	}
	p := probeCache(t)
	for seed := 0; seed < seeds; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(seed), 13))
			dir := vcsProject(t, heads[0], srcs[0])
			cache := filepath.Join(dir, ".cc", "cache")
			head, src := heads[0], srcs[0]
			config := func() {
				os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(vcsConfig(head, src)), 0o644)
			}
			write := func(name, body string) {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
				os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
			}
			steps := []func() string{
				func() string {
					write(".git/HEAD", fmt.Sprintf("ref: refs/heads/b%d\n", r.IntN(3)))
					return "HEAD written"
				},
				func() string { write(fmt.Sprintf(".git/objects/33/%d", r.IntN(4)), "o"); return "object added" },
				func() string { write(".git/y", ""); return ".git/y added" },
				func() string { os.Remove(filepath.Join(dir, ".git/y")); return ".git/y removed" },
				func() string { head = heads[r.IntN(len(heads))]; config(); return "HEAD = " + head },
				func() string { src = srcs[r.IntN(len(srcs))]; config(); return "copy " + src },
				func() string { os.Symlink(".git", filepath.Join(dir, "lnk")); return "lnk -> .git" },
				func() string { os.Symlink(".venv", filepath.Join(dir, "lnk")); return "lnk -> .venv" },
				func() string { os.Remove(filepath.Join(dir, "lnk")); return "lnk removed" },
				func() string {
					i := ignores[r.IntN(len(ignores))]
					write([]string{".ccignore", ".dockerignore"}[r.IntN(2)], i)
					return "ignore " + i
				},
				func() string { os.Remove(filepath.Join(dir, ".ccignore")); return ".ccignore removed" },
				func() string { os.Remove(filepath.Join(dir, ".dockerignore")); return ".dockerignore removed" },
				func() string { write("src/app.py", fmt.Sprintf("print(%d)\n", r.IntN(3))); return "app.py edited" },
				func() string { write(".venv/x", fmt.Sprint(r.IntN(3))); return ".venv/x written" },
				func() string { os.RemoveAll(filepath.Join(dir, ".venv")); return ".venv removed" },
				func() string { write("data/keep.txt", fmt.Sprint(r.IntN(3))); return "keep.txt written" },
				func() string { write("data/other.txt", fmt.Sprint(r.IntN(3))); return "other.txt written" },
				func() string { write("notes.txt", fmt.Sprint(r.IntN(3))); return "notes.txt written" },
				func() string { os.RemoveAll(filepath.Join(dir, ".git")); return ".git removed" },
				func() string { write(".git/HEAD", "ref: refs/heads/main\n"); return ".git made" },
			}
			var done []string
			for i := 0; i < 30; i++ {
				done = append(done, steps[r.IntN(len(steps))]())
				in := Input{Path: filepath.Join(dir, "main.hcl")}
				cold, cerr := Compile(t.Context(), in)
				in.CacheDir = cache
				warm, werr := Compile(t.Context(), in)
				if (cerr == nil) != (werr == nil) || cerr != nil && cerr.Error() != werr.Error() {
					t.Fatalf("after %q: cold %v, cached %v", done, cerr, werr)
				}
				if cerr == nil {
					cb, _ := cold.Desired.MarshalCanonical()
					wb, _ := warm.Desired.MarshalCanonical()
					if !bytes.Equal(cb, wb) {
						t.Fatalf("after %q: the cached result differs from a cold compile:\ncold %s\nwarm %s", done, cb, wb)
					}
				}
			}
		})
	}
	// Some steps change nothing the compile reads (a commit that the
	// configuration does not look at): the cache answered those, or the
	// sequences tested only misses.
	if hits, _ := p.take(); hits < seeds {
		t.Fatalf("%d hits in %d sequences, want at least %d", hits, seeds, seeds)
	} else {
		t.Logf("%d hits in %d compiles", hits, seeds*30)
	}
}
