package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestCompileCacheEditedWhileCompiling: issue 13: compile cache. A file
// edited while the project is located, keyed or compiled leaves no result
// under a key that says another state: after the edit is undone, a
// cached compile still gives what a cold one gives. (The result of the
// edited configuration was stored under the key of the first, and came
// back for it.)
func TestCompileCacheEditedWhileCompiling(t *testing.T) {
	cases := []struct {
		name, stage string
		edit, undo  func(dir string)
	}{
		{"configuration edited after the key", "keyed",
			func(dir string) { rewrite(t, filepath.Join(dir, "main.hcl"), `"x"`, `"y"`) },
			func(dir string) { rewrite(t, filepath.Join(dir, "main.hcl"), `"y"`, `"x"`) }},
		{"local input edited after the key", "keyed",
			func(dir string) { rewrite(t, filepath.Join(dir, "src/app.py"), "hi", "ho") },
			func(dir string) { rewrite(t, filepath.Join(dir, "src/app.py"), "ho", "hi") }},
		{"configuration file added before the key", "located",
			func(dir string) {
				os.WriteFile(filepath.Join(dir, "more.hcl"), []byte("image \"more\" {\n  from = \"python:3.12-slim\"\n}\n"), 0o644)
			},
			nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := vcsProject(t, `"x"`, "src")
			in := Input{Path: dir}
			cache := filepath.Join(dir, ".cc", "cache")
			p := probeCache(t)
			compileEditing(t, in, cache, c.stage, func() { c.edit(dir) })
			if c.undo != nil {
				c.undo(dir)
			}
			res := compileColdCached(t, in, cache)
			if c.undo == nil && !strings.Contains(string(mustCanonical(t, res)), "image.more") {
				t.Fatalf("the added file's image is not in the result")
			}
			compileColdCached(t, in, cache)
			if hits, _ := p.take(); hits != 1 {
				t.Fatalf("%d hits, want 1 (the second compile after the race)", hits)
			}
		})
	}
}

// compileEditing compiles in through the cache in cache, running edit
// once when the compile reaches stage (cacheRaceHook).
func compileEditing(t *testing.T, in Input, cache, stage string, edit func()) {
	t.Helper()
	once := true
	cacheRaceHook = func(s string) {
		if s == stage && once {
			once = false
			edit()
		}
	}
	defer func() { cacheRaceHook = nil }()
	in.CacheDir = cache
	if _, err := Compile(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	if once {
		t.Fatal("the hook never edited")
	}
}

func mustCanonical(t *testing.T, res *Result) []byte {
	t.Helper()
	b, err := res.Desired.MarshalCanonical()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCompileCacheSameTickEdit: a configuration file written twice within
// one clock tick at the same size, once before its key and once during
// the compile, shows the same stat data both times. The look after the
// compile hashes such a racily clean file again rather than trust what
// this run read of it, so the result of the second write is not stored
// under the first write's key, to be given back once the first is
// restored.
func TestCompileCacheSameTickEdit(t *testing.T) {
	dir := vcsProject(t, `"x"`, "src")
	main := filepath.Join(dir, "main.hcl")
	// Modified in the future: racily clean whenever read.
	future := time.Now().Add(time.Hour)
	if err := os.Chtimes(main, future, future); err != nil {
		t.Fatal(err)
	}
	var first *statKey
	statKeyHook = func(abs string, st statKey) statKey {
		if abs != main {
			return st
		}
		if first == nil {
			first = &st
		}
		return *first // the ctime of a write in the same tick
	}
	t.Cleanup(func() { statKeyHook = nil })
	in := Input{Path: dir}
	cache := filepath.Join(dir, ".cc", "cache")
	compileEditing(t, in, cache, "keyed", func() { rewrite(t, main, `"x"`, `"y"`) })
	rewrite(t, main, `"y"`, `"x"`)
	compileColdCached(t, in, cache)
}
