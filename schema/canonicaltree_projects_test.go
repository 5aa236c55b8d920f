package schema_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"cc.dev/cc/compiler"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/schema"
)

// TestDirectTreeOverProjects: issue 13: canonical spec bytes built
// directly from typed values. Compiling every example and generated
// projects in both languages, each tree the direct way builds encodes to
// the bytes of the JSON round trip it replaces.
func TestDirectTreeOverProjects(t *testing.T) {
	var mu sync.Mutex
	var compared int
	var diffs []string
	schema.SetCompareDirect(func(v, tree any) {
		got, err := schema.EncodeTree(tree)
		old, oerr := schema.RoundTripTree(v)
		var want []byte
		if oerr == nil {
			want, oerr = schema.EncodeTree(old)
		}
		mu.Lock()
		defer mu.Unlock()
		compared++
		if err != nil || oerr != nil || !bytes.Equal(got, want) {
			diffs = append(diffs, fmt.Sprintf("%T: direct %s (%v), round trip %s (%v)", v, got, err, want, oerr))
		}
	})
	defer schema.SetCompareDirect(nil)
	dirs, _ := filepath.Glob("../examples/*")
	for i, o := range []workload.Options{{N: 300}, {N: 200, Seed: 3, Changed: 20, ImageShare: 0.5}} {
		gen := filepath.Join(t.TempDir(), fmt.Sprint("gen", i))
		if err := workload.Write(gen, o); err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, gen)
	}
	for _, dir := range dirs {
		for _, lang := range []string{"main.cue", "main.hcl"} {
			if _, err := compiler.Compile(context.Background(), compiler.Input{Path: filepath.Join(dir, lang)}); err != nil {
				t.Errorf("%s/%s: %v", filepath.Base(dir), lang, err)
			}
		}
	}
	t.Logf("%d trees compared", compared)
	if compared < 500 {
		t.Errorf("%d trees compared, want every spec's", compared)
	}
	for _, d := range diffs[:min(len(diffs), 5)] {
		t.Error(d)
	}
}
