package compiler

import (
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"weak"

	"github.com/google/go-cmp/cmp"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"cc.dev/cc/compiler/workload"
)

// hclCorpus is every HCL configuration the tests have at hand: the
// examples, the testdata projects, a generated project, and each string
// literal in this package's tests that reads as a configuration (a
// project attribute and a block), written to a directory of its own.
func hclCorpus(t *testing.T) []string {
	t.Helper()
	var paths []string
	for _, pat := range []string{"../examples/*/main.hcl", "../examples/*/*/main.hcl", "testdata/*/main.hcl", "../cmd/cc/testdata/*/*/main.hcl"} {
		m, _ := filepath.Glob(pat)
		paths = append(paths, m...)
	}
	gen := t.TempDir()
	if err := workload.Write(gen, workload.Options{N: 300}); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(gen, "main.hcl"))
	files, _ := filepath.Glob("*_test.go")
	fset := token.NewFileSet()
	n := 0
	for _, f := range files {
		af, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(af, func(x ast.Node) bool {
			lit, ok := x.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil || !strings.Contains(s, "project") || !strings.Contains(s, "\" {") || strings.Contains(s, "package ") {
				return true
			}
			dir := filepath.Join(t.TempDir(), strconv.Itoa(n))
			n++
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(dir, "main.hcl")
			if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, p)
			return true
		})
	}
	return paths
}

// TestHCLMemorySavingsChangeNothing checks that letting go of resource
// bodies during the parse and of values during the evaluation
// (hcldefer.go, hclrelease.go; issue 13: memory per resource) changes no
// compile: over the corpus, the result, or the error with every
// diagnostic and position, is the one a compile keeping everything gives.
// It also requires the corpus to exercise both: bodies parsed again,
// values dropped, and a load run again because it needed them after all.
func TestHCLMemorySavingsChangeNothing(t *testing.T) {
	defer func(c bool) { crossCheck = c }(crossCheck)
	crossCheck = false
	var dropped, reran, restored int
	afterEvaluate = func(l *hclLoader) {
		if l.scope != nil {
			return
		}
		if l.keepValues && !keepEverything {
			reran++
		}
		if l.dropped > 0 {
			dropped++
		}
		restored += l.restored
	}
	defer func() { afterEvaluate = nil }()
	corpus := hclCorpus(t)
	for _, path := range corpus {
		keepEverything = true
		kept, kerr := Compile(context.Background(), Input{Path: path})
		keepEverything = false
		got, err := Compile(context.Background(), Input{Path: path})
		if (kerr == nil) != (err == nil) {
			t.Fatalf("%s: kept everything: %v; let go: %v", path, kerr, err)
		}
		if kerr != nil {
			var ke, ge *Error
			if errors.As(kerr, &ke) != errors.As(err, &ge) || kerr.Error() != err.Error() {
				t.Fatalf("%s: errors differ:\nkept everything: %v\nlet go:          %v", path, kerr, err)
			}
			if ke != nil {
				if d := cmp.Diff(ke.Diagnostics, ge.Diagnostics); d != "" {
					t.Fatalf("%s: diagnostics differ:\n%s", path, d)
				}
			}
			continue
		}
		sameResult(t, kept, got)
	}
	t.Logf("%d configurations: %d dropped values, %d ran again, %d bodies parsed again", len(corpus), dropped, reran, restored)
	if len(corpus) < 100 || dropped < 20 || reran == 0 || restored < 100 {
		t.Errorf("the corpus does not exercise the savings: %d configurations, %d dropped values, %d ran again, %d bodies parsed again", len(corpus), dropped, reran, restored)
	}
}

// TestHCLPinnedValuesNeedNoSecondRun checks that the values the outputs,
// the lifecycle blocks and the project attribute read after the graph
// are kept (pinnedValues), so a valid configuration that reads them loads
// once while the values nothing reads are let go.
func TestHCLPinnedValuesNeedNoSecondRun(t *testing.T) {
	defer func(c bool) { crossCheck = c }(crossCheck)
	crossCheck = false
	dir := writeProject(t, map[string]string{"main.cc.hcl": `project = "pins"
locals { name = "pins" }
volume "cache" { size = "1Gi" }
volume "spare" { size = "2Gi" }
secret "key" { from_env = "KEY" }
image "base" { from = "python:3.12-slim" }
image "other" { from = "python:3.12-slim" }
moved {
  from = volume.old
  to   = volume.spare
}
output "key" {
  value     = secret.key.from_env
  sensitive = true
}
output "size" { value = volume.cache.size }
output "from" { value = image.base.from }
`})
	var loads, dropped int
	afterEvaluate = func(l *hclLoader) {
		loads++
		dropped += l.dropped
	}
	defer func() { afterEvaluate = nil }()
	res := compileOK(t, dir, Input{})
	if loads != 1 || dropped == 0 {
		t.Errorf("%d loads with %d values dropped; want one load that drops the values nothing reads", loads, dropped)
	}
	if len(res.Outputs) != 3 || string(res.Outputs[2].Value) != `"1Gi"` {
		t.Errorf("outputs = %+v", res.Outputs)
	}
}

// TestDeferredBodiesAreLetGo checks that the bodies of plain resource
// blocks are garbage once the top level is collected, before the
// evaluation parses them again (issue 13: memory per resource): nothing
// the loader keeps of a block (its header, its references) holds on to
// the parse's nodes, whether the file is parsed whole or in pieces, by
// hclsyntax or by fastParseConfig.
func TestDeferredBodiesAreLetGo(t *testing.T) {
	defer func(c bool) { crossCheck = c }(crossCheck)
	crossCheck = false
	for _, n := range []int{300, 3000} {
		dir := t.TempDir()
		if err := workload.Write(dir, workload.Options{N: n}); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var bodies []weak.Pointer[hclsyntax.Body]
		deferHook = func(b *hclsyntax.Body) {
			mu.Lock()
			defer mu.Unlock()
			bodies = append(bodies, weak.Make(b))
		}
		alive := -1
		afterCollect = func(l *hclLoader) {
			runtime.GC()
			alive = 0
			for _, w := range bodies {
				if w.Value() != nil {
					alive++
				}
			}
		}
		_, err := Compile(context.Background(), Input{Path: filepath.Join(dir, "main.hcl")})
		deferHook, afterCollect = nil, nil
		if err != nil {
			t.Fatal(err)
		}
		if len(bodies) < n*7/10 || alive < 0 || alive > len(bodies)/20 {
			t.Errorf("N=%d: %d bodies let go, %d of them still reachable after the parse", n, len(bodies), alive)
		}
	}
}

// TestOwnBodyLetsDeferredBodiesGo checks that a chunk's body, held until
// the chunks are joined, does not keep the bodies deferBodies let go:
// fastParseConfig allocates a body in one chunk with its blocks' bodies
// (ownBody; issue 13: the parse's peak memory).
func TestOwnBodyLetsDeferredBodiesGo(t *testing.T) {
	src := workload.HCL(workload.Options{N: 400})
	body, ok := fastParseConfig(src, "main.hcl", hcl.InitialPos)
	if !ok {
		t.Fatal("the workload was refused")
	}
	var bodies []weak.Pointer[hclsyntax.Body]
	deferHook = func(b *hclsyntax.Body) { bodies = append(bodies, weak.Make(b)) }
	defer func() { deferHook = nil }()
	var d deferrals
	d.deferBodies(body, src)
	kept := ownBody(body)
	body = nil
	runtime.GC()
	alive := 0
	for _, w := range bodies {
		if w.Value() != nil {
			alive++
		}
	}
	if len(bodies) < 300 || alive > len(bodies)/20 {
		t.Errorf("%d bodies let go, %d still reachable from the chunk's own body", len(bodies), alive)
	}
	runtime.KeepAlive(kept)
	runtime.KeepAlive(d.blocks)
}

// TestLoadRunAgainSeesTheFirstBytes checks that a load run again keeping
// every value (values were dropped, then the fast way stopped at a
// default set that does not exist) reads nothing anew: a configuration
// file and a --var-file rewritten between the two runs change neither its
// result nor its diagnostics (project.readOnce).
func TestLoadRunAgainSeesTheFirstBytes(t *testing.T) {
	defer func(c bool) { crossCheck = c }(crossCheck)
	crossCheck = false
	dir := writeProject(t, map[string]string{"main.cc.hcl": `project = "first"
variable "size" {}
volume "a" { size = var.size }
volume "b" { size = "1Gi" }
defaults "gpu" {
  sandbox {
    image = { from = "python:3.12-slim" }
  }
}
sandbox "c" { use_defaults = ["gpx"] }
`})
	vars := filepath.Join(t.TempDir(), "vars.hcl")
	if err := os.WriteFile(vars, []byte(`size = "2Gi"`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	in := Input{Path: dir, VarFiles: []string{vars}}
	_, want := Compile(context.Background(), in)
	if want == nil {
		t.Fatal("the configuration compiles; want its error")
	}
	runs := 0
	afterEvaluate = func(l *hclLoader) {
		if runs++; runs == 1 {
			os.WriteFile(filepath.Join(dir, "main.cc.hcl"), []byte(`project = "second"`+"\n"), 0o644)
			os.WriteFile(vars, []byte(`size = 7`+"\n"), 0o644)
		}
	}
	defer func() { afterEvaluate = nil }()
	_, err := Compile(context.Background(), in)
	if runs != 2 {
		t.Fatalf("%d loads; want the load run again", runs)
	}
	if err == nil || err.Error() != want.Error() {
		t.Errorf("run again over rewritten files: %v; want %v", err, want)
	}
}
