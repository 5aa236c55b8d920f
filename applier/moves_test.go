package applier_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"

	"cc.dev/cc/planner"
	"cc.dev/cc/service"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// movesProject is a project in language l with a volume, a function and
// a sandbox that mounts the volume, named by names (volume, function).
func movesProject(l language, volume, function, handler, extra string) string {
	if l.name == "cue" {
		return l.project("life") + `images: app: {
	from: "python:3.12-slim"
	cmd: ["python"]
}
volumes: ` + volume + `: size: "1Gi"
functions: ` + function + `: {
	image: images.app
	source: paths: ["src"]
	handler: "` + handler + `"
}
sandboxes: dev: {
	image: images.app
	volume_mounts: [{volume: volumes.` + volume + `, path: "/cache"}]
}
` + extra
	}
	return l.project("life") + `image "app" {
  from = "python:3.12-slim"
  cmd  = ["python"]
}
volume "` + volume + `" { size = "1Gi" }
function "` + function + `" {
  image   = image.app
  source { paths = ["src"] }
  handler = "` + handler + `"
}
sandbox "dev" {
  image = image.app
  volume_mounts = [{ volume = volume.` + volume + `, path = "/cache" }]
}
` + extra
}

// writeSource writes the function source src/m.py in dir.
func writeSource(t *testing.T, dir string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(dir, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "src", "m.py"), []byte("def run(): pass\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// actions counts the service's ApplyResource calls by action and its
// DeleteResource calls.
type actions struct {
	mu      sync.Mutex
	applies map[ccv1.Action]int
	deletes int
}

func (c *actions) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
	c.mu.Lock()
	switch r := req.(type) {
	case *ccv1.ApplyResourceRequest:
		c.applies[r.GetAction()]++
	case *ccv1.DeleteResourceRequest:
		c.deletes++
	}
	c.mu.Unlock()
	return next(ctx, req)
}

// TestApplyMovesNoDeleteNoCreate: issue 10 acceptance 1, in HCL and CUE.
// Renaming a volume and a function with moves (the function's a chain of
// two) makes no DeleteResource and no ApplyResource create call; the
// function keeps its versions, the volume its id; the next plan has no
// changes.
func TestApplyMovesNoDeleteNoCreate(t *testing.T) {
	inLanguages(t, testApplyMovesNoDeleteNoCreate)
}

func testApplyMovesNoDeleteNoCreate(t *testing.T, l language) {
	act := &actions{applies: map[ccv1.Action]int{}}
	cl, _ := server(t, service.WithUnaryInterceptor(act.unary))
	dir := t.TempDir()
	writeSource(t, dir)
	ctx := context.Background()
	for _, handler := range []string{"m:run", "m:run2"} {
		d := compileIn(t, l, dir, movesProject(l, "cache", "rank", handler, ""))
		if _, res := applyAll(t, newApplier(t, cl, d), d); res.Err() != nil {
			t.Fatal(res.Err())
		}
	}
	before, err := cl.GetState(ctx, "life")
	if err != nil {
		t.Fatal(err)
	}
	volID := before.Lookup("volume.cache").ID
	act.applies, act.deletes = map[ccv1.Action]int{}, 0

	moves := l.moved("volume.cache", "volume.data", "function.rank", "function.mid", "function.mid", "function.score")
	d := compileIn(t, l, dir, movesProject(l, "data", "score", "m:run2", moves))
	if len(d.Moves) != 3 {
		t.Fatalf("Moves = %+v, want the 3 declared", d.Moves)
	}
	a := newApplier(t, cl, d)
	p, res := applyAll(t, a, d)
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if p.Summary.Moved != 2 || p.Summary.Create != 0 || p.Summary.Delete != 0 {
		t.Errorf("plan summary %+v, want 2 moves and no create or delete", p.Summary)
	}
	if act.deletes != 0 || act.applies[ccv1.Action_ACTION_CREATE] != 0 || act.applies[ccv1.Action_ACTION_REPLACE] != 0 {
		t.Errorf("the moves made %d DeleteResource, %d ApplyResource create and %d replace calls, want none (the sandbox's mount follows the volume in place)",
			act.deletes, act.applies[ccv1.Action_ACTION_CREATE], act.applies[ccv1.Action_ACTION_REPLACE])
	}
	vs, err := cl.Versions(ctx, "life", "function.score")
	if err != nil || len(vs) != 2 {
		t.Fatalf("Versions(function.score) = %d versions, %v; want the 2 of function.rank", len(vs), err)
	}
	after, err := cl.GetState(ctx, "life")
	if err != nil {
		t.Fatal(err)
	}
	if v := after.Lookup("volume.data"); v == nil || v.ID != volID || after.Lookup("volume.cache") != nil {
		t.Errorf("volume.data = %+v, want the volume with id %s", v, volID)
	}
	noChanges(t, a, d)
}

// TestApplyForgetThenImport: issue 10 acceptance 2 and 4, in HCL and CUE.
// A removed volume stays on the service, unowned; another project imports
// it, and plans no changes after.
func TestApplyForgetThenImport(t *testing.T) {
	inLanguages(t, testApplyForgetThenImport)
}

func testApplyForgetThenImport(t *testing.T, l language) {
	cl, calls := server(t)
	ctx := context.Background()
	dir := t.TempDir()
	d := compileIn(t, l, dir, l.project("one")+l.volume("cache"))
	if _, res := applyAll(t, newApplier(t, cl, d), d); res.Err() != nil {
		t.Fatal(res.Err())
	}
	one, err := cl.GetState(ctx, "one")
	if err != nil {
		t.Fatal(err)
	}
	volID := one.Lookup("volume.cache").ID
	d = compileIn(t, l, dir, l.project("one")+l.removed("volume.cache"))
	p, res := applyAll(t, newApplier(t, cl, d), d)
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 1 || p.Changes[0].Action != planner.Forget || calls.get("DeleteResource") != 0 {
		t.Fatalf("plan %v with %d deletes, want one forget", p.Changes, calls.get("DeleteResource"))
	}
	un, err := cl.GetState(ctx, service.Unowned)
	if err != nil || un.Lookup("volume.cache") == nil {
		t.Fatalf("unowned state %v, %v; want volume.cache", un, err)
	}

	d = compileIn(t, l, t.TempDir(), l.project("two")+l.volume("shared")+l.imported("volume.shared", "cache"))
	a := newApplier(t, cl, d)
	calls.reset(nil)
	p, res = applyAll(t, a, d)
	if err := res.Err(); err != nil {
		t.Fatal(err)
	}
	if len(p.Changes) != 1 || p.Changes[0].Action != planner.Import || !strings.Contains(p.Changes[0].Reasons[0].Message, "volume.shared will be imported") {
		t.Fatalf("plan %+v, want one import", p.Changes)
	}
	if calls.get("ApplyResource") != 0 || calls.get("AdoptResource") != 1 {
		t.Errorf("the import made %d ApplyResource and %d AdoptResource calls, want 0 and 1", calls.get("ApplyResource"), calls.get("AdoptResource"))
	}
	calls.reset(nil)
	noChanges(t, a, d)
	if calls.total != 1 || calls.get("GetState") != 1 {
		t.Errorf("the plan after the import made %d calls (%v), want one GetState", calls.total, calls.n)
	}
	if un, err := cl.GetState(ctx, service.Unowned); err != nil || un.Lookup("volume.cache") != nil {
		t.Errorf("unowned state after the import %v, %v; want no volume.cache", un, err)
	}
	if two, err := cl.GetState(ctx, "two"); err != nil || two.Lookup("volume.shared") == nil || two.Lookup("volume.shared").ID != volID {
		t.Errorf("project two after the import: %v, %v; want volume.shared with the id %s of project one's volume.cache", two, err, volID)
	}
}
