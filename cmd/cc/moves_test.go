package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"

	"cc.dev/cc/compiler"
	"cc.dev/cc/internal/golden"
	"cc.dev/cc/service"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// lifeHCL is the project of the lifecycle goldens: a volume and a
// function (named by its arguments) and what the step adds.
func movesHCL(volume, function, extra string) string {
	return `project = "life"

image "app" {
  from = "python:3.12-slim@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
  cmd  = ["python"]
}

volume "` + volume + `" {
  size = "1Gi"
}

function "` + function + `" {
  image   = image.app
  source { paths = ["src"] }
  handler = "src.main:run"
}
` + extra
}

// mutations counts the DeleteResource calls and the ApplyResource
// creates of the embedded server.
type mutations struct {
	mu              sync.Mutex
	deletes, create int
}

func (m *mutations) option() service.Option {
	return service.WithUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
		m.mu.Lock()
		switch r := req.(type) {
		case *ccv1.DeleteResourceRequest:
			m.deletes++
		case *ccv1.ApplyResourceRequest:
			if r.GetAction() == ccv1.Action_ACTION_CREATE {
				m.create++
			}
		}
		m.mu.Unlock()
		return next(ctx, req)
	})
}

func writeFile(t *testing.T, name, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// movesGoldens checks the plan of the project in the working
// directory in text, JSON and Markdown against testdata/golden/NAME.*.
func movesGoldens(t *testing.T, goldens, name string) {
	t.Helper()
	for _, f := range []struct{ ext, flag string }{{"txt", "--format=text"}, {"json", "--json"}, {"md", "--format=markdown"}} {
		out, _ := mustCC(t, 0, "plan", f.flag, "main.hcl")
		golden.Check(t, filepath.Join(goldens, name+"."+f.ext), []byte(out))
	}
}

// TestMovesGoldenPlans: issue 10 acceptance 1, 2 and 8. The plans of a
// move (a volume, and a function in a chain of two moves), a forget and an
// import, in text, JSON and Markdown, against their goldens; the moves
// make no DeleteResource and no ApplyResource create call, and cc
// versions lists the function's old versions at its new address; the
// forgotten volume stays on the service, and another project imports it.
func TestMovesGoldenPlans(t *testing.T) {
	goldens, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	writeFile(t, "src/main.py", "def run(): pass\n")
	m := &mutations{}
	withServerOptions(t, m.option())

	writeFile(t, "main.hcl", movesHCL("cache", "rank", ""))
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	writeFile(t, "src/main.py", "def run(): return 2\n")
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")

	m.deletes, m.create = 0, 0
	writeFile(t, "main.hcl", movesHCL("data", "score", `
moved {
  from = volume.cache
  to   = volume.data
}

moved {
  from = function.rank
  to   = function.mid
}

moved {
  from = function.mid
  to   = function.score
}
`))
	movesGoldens(t, goldens, "move")
	out, _ := mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	if !strings.Contains(out, "2 moved, 0 imported, 0 forgotten") {
		t.Errorf("apply of the moves:\n%s", out)
	}
	if m.deletes != 0 || m.create != 0 {
		t.Errorf("the moves made %d DeleteResource and %d ApplyResource create calls, want none", m.deletes, m.create)
	}
	out, _ = mustCC(t, 0, "versions", "function.score", "main.hcl")
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 2 || !strings.HasSuffix(lines[1], "current") {
		t.Errorf("cc versions function.score:\n%s\nwant the 2 versions of function.rank", out)
	}
	if out, _ := mustCC(t, 0, "plan", "--detailed-exitcode", "main.hcl"); !strings.HasPrefix(out, "No changes.") {
		t.Errorf("after the moves, plan:\n%s", out)
	}

	writeFile(t, "main.hcl", strings.Replace(movesHCL("data", "score", "\nremoved { from = volume.data }\n"),
		"volume \"data\" {\n  size = \"1Gi\"\n}\n", "", 1))
	movesGoldens(t, goldens, "forget")
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	out, _ = mustCC(t, 0, "state", "list", "--project", "-", ".")
	if !strings.Contains(out, "volume.data ") {
		t.Errorf("the unowned resources after the forget:\n%s", out)
	}

	// Another project on the same service imports it, with another size.
	if err := os.Mkdir("other", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../.cc", "other/.cc"); err != nil {
		t.Fatal(err)
	}
	t.Chdir("other")
	writeFile(t, "main.hcl", `project = "other"

volume "shared" {
  size = "2Gi"
}

import {
  to = volume.shared
  id = "data"
}
`)
	movesGoldens(t, goldens, "import")
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	if out, _ := mustCC(t, 0, "plan", "--detailed-exitcode", "main.hcl"); !strings.HasPrefix(out, "No changes.") {
		t.Errorf("after the import, plan:\n%s", out)
	}
}

// TestImportRawAPIGenerateConfig: issue 10 acceptance 4. A volume and a
// function made through the raw API as unowned resources (project "-"), as
// a platform SDK would, are imported by a project that declares neither:
// cc plan --generate-config-out writes their declarations, after which
// the project (its image declared) plans the imports with no other
// change, and after the apply "No changes". In HCL and in CUE.
func TestImportRawAPIGenerateConfig(t *testing.T) {
	for _, lang := range []string{"hcl", "cue"} {
		t.Run(lang, func(t *testing.T) {
			dir := t.TempDir()
			t.Chdir(dir)
			t.Setenv("NO_COLOR", "1")
			t.Setenv("CC_SERVER", "")
			writeFile(t, "src/main.py", "def run(): pass\n")
			// What the SDK makes: the specs a project would compile to.
			writeFile(t, "sdk/main.hcl", movesHCL("build-cache", "ranker", ""))
			writeFile(t, "sdk/src/main.py", "def run(): pass\n")
			res, err := compiler.Compile(context.Background(), compiler.Input{Path: "sdk/main.hcl"})
			if err != nil {
				t.Fatal(err)
			}
			if err := os.RemoveAll("sdk"); err != nil {
				t.Fatal(err)
			}
			cl, closeFn, err := service.OpenEmbedded(context.Background(), filepath.Join(dir, ".cc", "state.db"))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			lk, err := cl.Acquire(ctx, service.Unowned, service.Holder{User: "sdk", Host: "test"}, 0)
			if err != nil {
				t.Fatal(err)
			}
			for _, addr := range []string{"volume.build-cache", "function.ranker"} {
				r := res.Desired.Lookup(addr)
				if _, err := cl.Apply(ctx, service.ApplyRequest{Project: service.Unowned, Address: addr, Action: service.ActionCreate,
					Spec: r.Spec, Hash: r.Hash, LeaseID: lk.Lease.ID}); err != nil {
					t.Fatalf("Apply(- %s) = %v", addr, err)
				}
			}
			if err := cl.Unlock(ctx, service.Unowned, lk.Lease.ID); err != nil {
				t.Fatal(err)
			}
			closeFn()

			head := `project = "adopter"

image "app" {
  from = "python:3.12-slim@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
  cmd  = ["python"]
}

import {
  to = volume.cache
  id = "build-cache"
}

import {
  to = function.rank
  id = "ranker"
}
`
			if lang == "cue" {
				head = `package adopter

project: "adopter"

images: app: {
	from: "python:3.12-slim@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	cmd: ["python"]
}

imports: [{to: "volume.cache", id: "build-cache"}, {to: "function.rank", id: "ranker"}]
`
			}
			writeFile(t, "main."+lang, head)
			if _, errs, code := cc(t, "plan", "."); code != 1 || !strings.Contains(errs, "the configuration does not declare volume.cache") {
				t.Fatalf("plan of undeclared imports: exit %d\n%s", code, errs)
			}
			_, errs := mustCC(t, 0, "plan", "--generate-config-out", "imported."+lang, ".")
			if !strings.Contains(errs, "Wrote the declarations of the imported resources to imported."+lang) {
				t.Errorf("stderr:\n%s", errs)
			}
			gen, _ := os.ReadFile("imported." + lang)
			out, _ := mustCC(t, 0, "plan", ".")
			if !strings.Contains(out, "Plan: 1 to create, 0 to update, 0 to replace, 0 to delete, 2 to import") ||
				!strings.Contains(out, "<- function.rank  import  ") || !strings.Contains(out, "<- volume.cache  import  ") {
				t.Fatalf("plan with the generated declarations:\n%s\ngenerated:\n%s", out, gen)
			}
			c := &counter{}
			withServerOptions(t, c.options()...)
			mustCC(t, 0, "apply", "--auto-approve", ".")
			calls := strings.Join(c.take(), " ")
			if strings.Count(calls, "AdoptResource") != 2 || strings.Contains(calls, "UploadBlob") || strings.Contains(calls, "ApplyResource") {
				t.Errorf("the apply of the imports made the calls %s, want two AdoptResource, no upload and no ApplyResource", calls)
			}
			if out, _ := mustCC(t, 0, "plan", "--detailed-exitcode", "."); !strings.HasPrefix(out, "No changes.") {
				t.Errorf("after the import, plan:\n%s\ngenerated:\n%s", out, gen)
			}
		})
	}
}

// TestStateListInstancesInOrder: cc state list shows count instances as
// people count (w[2] before w[10]); --json keeps the state's byte order.
func TestStateListInstancesInOrder(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	writeFile(t, "main.hcl", `project = "p"

volume "w" {
  count = 12
  size  = "1Gi"
}
`)
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	out, _ := mustCC(t, 0, "state", "list", "main.hcl")
	var got []string
	for _, l := range strings.Split(out, "\n") {
		if f := strings.Fields(l); len(f) > 0 && strings.HasPrefix(f[0], "volume.") {
			got = append(got, f[0])
		}
	}
	var want []string
	for i := range 12 {
		want = append(want, fmt.Sprintf("volume.w[%d]", i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("cc state list shows %v, want %v\n%s", got, want, out)
	}
	js, _ := mustCC(t, 0, "state", "list", "--json", "main.hcl")
	if i, j := strings.Index(js, `"volume.w[10]"`), strings.Index(js, `"volume.w[2]"`); i < 0 || j < 0 || i > j {
		t.Errorf("cc state list --json does not keep byte order (w[10] at %d, w[2] at %d)", i, j)
	}
}
