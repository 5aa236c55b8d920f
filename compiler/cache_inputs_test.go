package compiler

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/schema"
)

// TestCompileCacheInputs: issue 13: compile cache. Every input of a
// compilation is in its key: a var file, --var, the lock file, an env
// file, CC_VAR_x, --env and -t each change the result, and the cached
// compile follows (a cold compile is the reference).
func TestCompileCacheInputs(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../examples/environments", dir)
	backdate(t, dir)
	p := probeCache(t)
	cache := filepath.Join(dir, ".cc", "cache")
	hcl := Input{Path: filepath.Join(dir, "main.hcl")}
	vf := filepath.Join(t.TempDir(), "x.ccvars.hcl")
	os.WriteFile(vf, []byte(`replicas = 2`+"\n"), 0o644)
	steps := []struct {
		name string
		in   Input
		edit func()
	}{
		{"plain", hcl, nil},
		{"--var", with(hcl, func(in *Input) { in.Vars = []string{"replicas=4"} }), nil},
		{"--var other value", with(hcl, func(in *Input) { in.Vars = []string{"replicas=5"} }), nil},
		{"--var-file", with(hcl, func(in *Input) { in.VarFiles = []string{vf} }), nil},
		{"--var-file edited", with(hcl, func(in *Input) { in.VarFiles = []string{vf} }), func() { os.WriteFile(vf, []byte(`replicas = 3`+"\n"), 0o644) }},
		{"CC_VAR_", with(hcl, func(in *Input) { in.EnvVars = []string{"CC_VAR_log_level=info"} }), nil},
		{"--env", with(hcl, func(in *Input) { in.Env = "prod" }), nil},
		{"env file edited", with(hcl, func(in *Input) { in.Env = "prod" }), func() {
			rewrite(t, filepath.Join(dir, "env/prod.ccvars.hcl"), `"20Gi"`, `"30Gi"`)
		}},
		{"cc.lock", hcl, func() {
			os.WriteFile(filepath.Join(dir, schema.LockFile), []byte(`{"version":1,"bases":{"python:3.12-slim":"sha256:`+strings.Repeat("a", 64)+`"}}`), 0o644)
		}},
		{"offline", with(hcl, func(in *Input) { in.Offline = true }), nil},
		{"cue", Input{Path: filepath.Join(dir, "main.cue")}, nil},
		{"cue -t", Input{Path: filepath.Join(dir, "main.cue"), Tags: []string{"env=prod"}}, nil},
	}
	var prev []byte
	for _, s := range steps {
		if s.edit != nil {
			s.edit()
		}
		for i := 0; i < 2; i++ {
			res := compileColdCached(t, s.in, cache)
			if hits, _ := p.take(); hits != i {
				t.Fatalf("%s, compile %d: %d hits, want %d", s.name, i+1, hits, i)
			}
			b, _ := res.Desired.MarshalCanonical()
			if i == 0 && s.name != "cue" && s.name != "offline" && reflect.DeepEqual(b, prev) && res.Unlocked == nil {
				t.Errorf("%s: the result did not change; the step tests nothing", s.name)
			}
			prev = b
		}
	}
}

func with(in Input, f func(*Input)) Input { f(&in); return in }

func rewrite(t *testing.T, name, old, new string) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil || !strings.Contains(string(b), old) {
		t.Fatalf("%s has no %s (%v)", name, old, err)
	}
	if err := os.WriteFile(name, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// genProject writes a generated project with copied files and function
// sources, backdated.
func genProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := workload.Write(dir, workload.Options{N: 60, CopyBytes: 4096}); err != nil {
		t.Fatal(err)
	}
	backdate(t, dir)
	return dir
}

// under lists the reads of files under dir/sub.
func under(reads []string, dir, sub string) []string {
	var out []string
	for _, r := range reads {
		if strings.HasPrefix(r, filepath.Join(dir, sub)+"/") {
			out = append(out, r)
		}
	}
	return out
}

// TestStatCacheNoContentReads: issue 13: stat cache. A compile that
// misses the compile cache (the configuration changed) reads no content
// of the unchanged local inputs; after one input's content changes (size
// kept), that file is read again, and a file added to a copied
// directory, deep in it, is in the result.
func TestStatCacheNoContentReads(t *testing.T) {
	dir := genProject(t)
	p := probeCache(t)
	cache := filepath.Join(dir, ".cc", "cache")
	in := Input{Path: filepath.Join(dir, "main.hcl")}
	compileColdCached(t, in, cache)
	if _, reads := p.take(); len(under(reads, dir, "files")) == 0 {
		t.Fatalf("first compile read no local input: %v", reads)
	}
	main := filepath.Join(dir, "main.hcl")
	b, _ := os.ReadFile(main)
	os.WriteFile(main, append(b, "\n# changed\n"...), 0o644)
	in.CacheDir = cache
	if _, err := Compile(t.Context(), in); err != nil {
		t.Fatal(err)
	}
	hits, reads := p.take()
	if hits != 0 || len(under(reads, dir, "files")) != 0 || len(under(reads, dir, "src")) != 0 {
		t.Fatalf("second compile: %d hits, read %v; want a miss that reads no unchanged input", hits, reads)
	}
	in.CacheDir = ""
	yaml := filepath.Join(dir, "files", "config-0.yaml")
	old, _ := os.ReadFile(yaml)
	os.WriteFile(yaml, []byte(strings.Repeat("x", len(old))), 0o644)
	compileColdCached(t, in, cache)
	if _, reads := p.take(); !contains(reads, yaml) {
		t.Fatalf("after editing %s, the compile read %v", yaml, reads)
	}
	deep := filepath.Join(dir, "src", "svc0", "a", "b", "new.py")
	os.MkdirAll(filepath.Dir(deep), 0o755)
	os.WriteFile(deep, []byte("print(1)\n"), 0o644)
	res := compileColdCached(t, in, cache)
	if hits, _ := p.take(); hits != 0 {
		t.Fatalf("a file added to a copied directory was a cache hit")
	}
	if !strings.Contains(treesOf(res), "a/b/new.py") {
		t.Fatalf("new.py is in no tree: the test tests nothing")
	}
}

func treesOf(res *Result) string {
	var b strings.Builder
	for _, es := range res.Desired.Trees {
		for _, e := range es {
			b.WriteString(e.Path + "\n")
		}
	}
	return b.String()
}

// TestStatCacheRacilyClean: issue 13: stat cache. A file whose mtime is
// not older than the moment it was hashed is racily clean: changed in
// the same clock tick, its stat data would be the same. Here the file
// changes, keeps its size, gets its mtime back (os.Chtimes) and, with
// ctime left out of the comparison as on a file system that cannot tell
// it, only the racy rule finds the change.
func TestStatCacheRacilyClean(t *testing.T) {
	orig := statOf
	statOf = func(fi os.FileInfo) (statKey, bool) {
		k, ok := orig(fi)
		k.Ctime = 0
		return k, ok
	}
	t.Cleanup(func() { statOf = orig })
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	os.WriteFile(name, []byte("one"), 0o644)
	tick := time.Now().Add(time.Hour) // not older than any hashing below
	os.Chtimes(name, tick, tick)
	key := make([]byte, 32)
	c := openStatCache(dir, key)
	if s := c.sum(name, nil, true); s.err != nil {
		t.Fatal(s.err)
	}
	c.save()
	os.WriteFile(name, []byte("two"), 0o644)
	os.Chtimes(name, tick, tick)
	c = openStatCache(dir, key)
	want := sha256.Sum256([]byte("two"))
	if s := c.sum(name, nil, true); s.digest != "sha256:"+hex.EncodeToString(want[:]) {
		t.Fatalf("racily clean file: digest %s, want that of its new content", s.digest)
	}
}

// TestStatCacheTrustsOldEntries: issue 13: stat cache. The racy rule does
// not distrust a file last modified well before it was hashed.
func TestStatCacheTrustsOldEntries(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "f")
	os.WriteFile(name, []byte("one"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(name, old, old)
	key := make([]byte, 32)
	c := openStatCache(dir, key)
	c.sum(name, nil, true)
	c.save()
	p := probeCache(t)
	c = openStatCache(dir, key)
	c.sum(name, nil, true)
	if _, reads := p.take(); len(reads) != 0 {
		t.Fatalf("an unchanged old file was read again: %v", reads)
	}
}

// TestCompileCacheCorruptIgnored: issue 13: compile cache. A truncated,
// altered, foreign or garbage cache file is ignored (a cold compile's
// result, no panic) and rebuilt.
func TestCompileCacheCorruptIgnored(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../examples/environments", dir)
	p := probeCache(t)
	cache := filepath.Join(dir, ".cc", "cache")
	in := Input{Path: filepath.Join(dir, "main.hcl")}
	compileColdCached(t, in, cache)
	ents, _ := filepath.Glob(filepath.Join(cache, "c-*"))
	if len(ents) != 1 {
		t.Fatalf("cache entries %v, want one", ents)
	}
	good, _ := os.ReadFile(ents[0])
	flip := append([]byte{}, good...)
	flip[len(flip)-10] ^= 1
	for name, b := range map[string][]byte{
		"truncated": good[:len(good)/2], "altered": flip, "empty": nil,
		"foreign": append([]byte("cc-compilecache-0\n"), good[len(resultMagic):]...),
		"garbage": []byte(strings.Repeat("\x00garbage", 100)),
	} {
		for _, f := range []string{ents[0], filepath.Join(cache, "stat")} {
			os.WriteFile(f, b, 0o600)
			p.take()
			compileColdCached(t, in, cache)
			if hits, _ := p.take(); hits != 0 && f == ents[0] {
				t.Fatalf("%s cache file was a hit", name)
			}
			compileColdCached(t, in, cache)
			if hits, _ := p.take(); hits != 1 {
				t.Fatalf("after a %s %s, the cache was not rebuilt", name, filepath.Base(f))
			}
		}
	}
}

// TestCompileCacheSensitiveCanary: issue 13: compile cache. No cache file
// holds a sensitive value, nor its sha256: a compile with a sensitive
// value is not cached, and the key holds --var values only under the
// project's HMAC key; an env file's content is kept only keyed.
func TestCompileCacheSensitiveCanary(t *testing.T) {
	const canary = "canary-Zq81xv"
	dir := t.TempDir()
	copyTree(t, "../examples/environments", dir)
	main := filepath.Join(dir, "main.hcl")
	b, _ := os.ReadFile(main)
	b = append(b, "\nvariable \"token\" {\n  type      = string\n  sensitive = true\n  default   = \"x\"\n}\n"...)
	os.WriteFile(main, b, 0o644)
	rewrite(t, main, "CC_ENV    = env.name", "CC_ENV    = env.name\n    TOKEN     = var.token")
	os.WriteFile(filepath.Join(dir, "app.env"), []byte("TOKEN="+canary+"\n"), 0o644)
	cache := filepath.Join(dir, ".cc", "cache")
	for _, in := range []Input{
		{Path: main, Vars: []string{"token=" + canary}},
		{Path: main, EnvVars: []string{"CC_VAR_token=" + canary}},
	} {
		compileColdCached(t, in, cache)
	}
	if ents, _ := filepath.Glob(filepath.Join(cache, "c-*")); len(ents) != 0 {
		t.Fatalf("a compile with a sensitive value was cached: %v", ents)
	}
	// A value that reaches no resource is in the key alone: cached, and
	// only under the HMAC.
	rewrite(t, main, "sensitive = true\n  default   = \"x\"", "default   = \"x\"")
	rewrite(t, main, "    TOKEN     = var.token\n", "")
	for _, in := range []Input{
		{Path: main, Vars: []string{"token=" + canary}},
		{Path: main, EnvVars: []string{"CC_VAR_token=" + canary}},
	} {
		compileColdCached(t, in, cache)
	}
	if ents, _ := filepath.Glob(filepath.Join(cache, "c-*")); len(ents) == 0 {
		t.Fatalf("nothing was cached: the test tests nothing")
	}
	noSecretsIn(t, []string{cache}, canary, "TOKEN="+canary+"\n", "token="+canary)
}

// noSecretsIn fails when a file under dirs holds one of secrets or its
// sha256.
func noSecretsIn(t *testing.T, dirs []string, secrets ...string) {
	t.Helper()
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			got, _ := os.ReadFile(p)
			for _, s := range secrets {
				sum := sha256.Sum256([]byte(s))
				for _, form := range []string{s, hex.EncodeToString(sum[:]), string(sum[:])} {
					if strings.Contains(string(got), form) {
						t.Errorf("%s holds %q or its sha256", p, s)
					}
				}
			}
			return nil
		})
	}
}

// TestCompileCacheSensitiveSealed: issue 13: compile cache. A compile with
// a sensitive value is cached encrypted under the key in Input.SealDir,
// out of the project: read back the same as a cold compile; no file of
// the project's cache or of SealDir holds the value, its sha256 or the
// --var naming it; and the project's cache without that key (another
// machine's, a copy), or with another value given, is no hit.
func TestCompileCacheSensitiveSealed(t *testing.T) {
	const canary = "canary-Yk27pw"
	dir := t.TempDir()
	copyTree(t, "../examples/environments", dir)
	main := filepath.Join(dir, "main.hcl")
	b, _ := os.ReadFile(main)
	b = append(b, "\nvariable \"token\" {\n  type      = string\n  sensitive = true\n  default   = \"x\"\n}\n"...)
	os.WriteFile(main, b, 0o644)
	rewrite(t, main, "CC_ENV    = env.name", "CC_ENV    = env.name\n    TOKEN     = var.token")
	backdate(t, dir)
	cache, seal := filepath.Join(dir, ".cc", "cache"), t.TempDir()
	p := probeCache(t)
	hits := func(in Input, want int, why string) {
		t.Helper()
		p.take()
		res := compileColdCached(t, in, cache)
		if h, _ := p.take(); h != want {
			t.Fatalf("%s: %d hits, want %d", why, h, want)
		}
		if !hasSensitive(res, &project{}) {
			t.Fatalf("%s: the result has no sensitive value: the test tests nothing", why)
		}
	}
	for _, in := range []Input{
		{Path: main, Vars: []string{"token=" + canary}, SealDir: seal},
		{Path: main, EnvVars: []string{"CC_VAR_token=" + canary}, SealDir: seal},
	} {
		hits(in, 0, "the first compile")
		hits(in, 1, "a compile again")
	}
	in := Input{Path: main, Vars: []string{"token=" + canary}, SealDir: seal}
	hits(in, 0, "the --var after the CC_VAR_") // one slot: the CC_VAR_ compile replaced it
	hits(in, 1, "the --var again")
	noSecretsIn(t, []string{cache, seal}, canary, "token="+canary)
	other := in
	other.Vars = []string{"token=" + canary + "2"}
	hits(other, 0, "another value")
	hits(in, 0, "the first value after another")
	// The project's cache as it is, opened with another sealing key or
	// none: no hit.
	snapshot := func() map[string][]byte {
		m := map[string][]byte{}
		ents, _ := os.ReadDir(cache)
		for _, e := range ents {
			m[e.Name()], _ = os.ReadFile(filepath.Join(cache, e.Name()))
		}
		return m
	}
	restore := func(m map[string][]byte) {
		for name, b := range m {
			os.WriteFile(filepath.Join(cache, name), b, 0o600)
		}
	}
	saved := snapshot()
	elsewhere := in
	elsewhere.SealDir = t.TempDir()
	hits(elsewhere, 0, "another sealing key")
	restore(saved)
	none := in
	none.SealDir = ""
	hits(none, 0, "no sealing key")
	restore(saved)
	hits(in, 1, "the sealing key again")
}
