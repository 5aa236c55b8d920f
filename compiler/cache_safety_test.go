package compiler

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// TestCachedDesiredFields: issue 13: compile cache. The cache keeps every
// field of schema.Desired but its Schema: a field added to Desired must
// be added to cachedDesired too, or a hit would drop it.
func TestCachedDesiredFields(t *testing.T) {
	names := func(v any, skip ...string) []string {
		var out []string
		for _, f := range reflect.VisibleFields(reflect.TypeOf(v)) {
			if !slices.Contains(skip, f.Name) {
				out = append(out, f.Name+" "+f.Type.String())
			}
		}
		sort.Strings(out)
		return out
	}
	want := names(schema.Desired{}, "Schema", "Resources")
	got := names(cachedDesired{}, "TreesNil", "Resources", "Lifecycles")
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("cachedDesired fields %v, want those of schema.Desired %v", got, want)
	}
}

// TestCachedResourceFields: issue 13: compile cache. encodeResources
// writes these fields of a schema.Resource (and of what it holds): one
// added must be added to the form too, or a hit would drop it.
func TestCachedResourceFields(t *testing.T) {
	for v, want := range map[reflect.Type]string{
		reflect.TypeFor[schema.Resource](): "Address Kind Name Aliases Hash Spec DependsOn Inputs Sensitive Lifecycle Range Ranges",
		reflect.TypeFor[schema.Input]():    "Path Digest Tree",
		reflect.TypeFor[diag.Range]():      "File Start End",
		reflect.TypeFor[diag.Pos]():        "Line Col Byte",
	} {
		var got []string
		for _, f := range reflect.VisibleFields(v) {
			got = append(got, f.Name)
		}
		if strings.Join(got, " ") != want {
			t.Errorf("%v fields %v, want %s", v, got, want)
		}
	}
}

// TestCachedResourcesRoundTrip: issue 13: compile cache. The compact form
// of resources reads back equal, nil and empty lists kept apart; a
// truncated form is an error, never a panic.
func TestCachedResourcesRoundTrip(t *testing.T) {
	rs := []schema.Resource{
		{Address: "a.b", Kind: "volume", Name: "b", Aliases: []string{}, Hash: "h", Spec: []byte(`{"x":1}`), DependsOn: []string{"c.d"},
			Inputs: []schema.Input{{Path: "p", Digest: "d", Tree: true}}, Range: &diag.Range{File: "f", Start: diag.Pos{Line: 1, Col: 2, Byte: 3}},
			Ranges: map[string]*diag.Range{"/x": {File: "f"}, "/y": nil}, Lifecycle: &schema.Lifecycle{PreventDestroy: true}},
		{Address: "a.c", Ranges: map[string]*diag.Range{}, Inputs: []schema.Input{}},
	}
	b, lcs := encodeResources(rs)
	got, err := decodeResources(b, lcs)
	if err != nil || !reflect.DeepEqual(got, rs) {
		t.Fatalf("round trip: %v\n%+v\nwant %+v", err, got, rs)
	}
	for i := 0; i < len(b); i++ {
		if _, err := decodeResources(b[:i], lcs); err == nil {
			t.Fatalf("a form cut at %d of %d decoded", i, len(b))
		}
	}
}

// TestCompileCacheFileModes: issue 13: compile cache. The cache directory
// is 0700 and its files 0600, kept out of version control.
func TestCompileCacheFileModes(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../examples/environments", dir)
	cache := filepath.Join(dir, ".cc", "cache")
	compileColdCached(t, Input{Path: filepath.Join(dir, "main.hcl")}, cache)
	fi, err := os.Stat(cache)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("cache dir mode %v (%v), want 0700", fi.Mode(), err)
	}
	ents, _ := os.ReadDir(cache)
	if len(ents) < 4 {
		t.Fatalf("cache holds %v, want key, stat, .gitignore and a result", ents)
	}
	for _, e := range ents {
		fi, _ := e.Info()
		if fi.Mode() != 0o600 {
			t.Errorf("%s mode %v, want 0600", e.Name(), fi.Mode())
		}
	}
}

// TestCompileCacheReadOnly: issue 13: compile cache. A cache directory
// that cannot be made is no cache: the compile still works.
func TestCompileCacheReadOnly(t *testing.T) {
	if os.Getuid() == 0 {
		t.Skip("root writes anywhere")
	}
	dir := t.TempDir()
	copyTree(t, "../examples/environments", dir)
	os.Chmod(dir, 0o555)
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	compileColdCached(t, Input{Path: filepath.Join(dir, "main.hcl")}, filepath.Join(dir, ".cc", "cache"))
}

// TestCompileCacheNotFile: issue 13: compile cache. A cache "directory"
// that is a file is no cache: the compile still works, and nothing is
// written.
func TestCompileCacheNotFile(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../examples/environments", dir)
	os.WriteFile(filepath.Join(dir, "notadir"), []byte("x"), 0o644)
	compileColdCached(t, Input{Path: filepath.Join(dir, "main.hcl")}, filepath.Join(dir, "notadir", "cache"))
}

// TestCompileCacheLinkOutOfRoot: issue 13: compile cache. A symbolic link
// out of the project root is an input the key cannot follow: such a
// compile is not cached.
func TestCompileCacheLinkOutOfRoot(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../examples/environments", dir)
	if err := os.Symlink(t.TempDir(), filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	cache := filepath.Join(dir, ".cc", "cache")
	compileColdCached(t, Input{Path: filepath.Join(dir, "main.hcl")}, cache)
	if ents, _ := filepath.Glob(filepath.Join(cache, "c-*")); len(ents) != 0 {
		t.Fatalf("a compile with a link out of the root was cached: %v", ents)
	}
}

// TestCompileCachePruned: issue 13: compile cache. At most maxCompileEnts
// results are kept, the newest.
func TestCompileCachePruned(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	for i := 0; i < maxCompileEnts+3; i++ {
		name := filepath.Join(dir, fmt.Sprintf("c-%02d", i))
		os.WriteFile(name, nil, 0o600)
		at := now.Add(time.Duration(i) * time.Minute)
		os.Chtimes(name, at, at)
	}
	pruneResults(dir)
	ents, _ := filepath.Glob(filepath.Join(dir, "c-*"))
	if len(ents) != maxCompileEnts || filepath.Base(ents[0]) != "c-03" {
		t.Fatalf("after pruning: %v, want the newest %d", ents, maxCompileEnts)
	}
}
