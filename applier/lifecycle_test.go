package applier_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

const lifecycleProject = `project = "p"

volume "data" {
  size = "1Gi"
  lifecycle {
    prevent_destroy = true
  }
}

sandbox "dev" {
  image {
    from = "python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"
  }
  command = ["serve"]
  tags    = ["first"]
  lifecycle {
    ignore_changes        = [tags]
    create_before_destroy = true
  }
}
`

func compileHCL(t *testing.T, dir, src string) *schema.Desired {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	return res.Desired
}

// TestLifecycleApply: apply keeps a resource's protection at the
// service with where it is declared; ignore_changes leaves the service's
// values (also in a replacement); a create_before_destroy replacement is
// sent as one; a plan that removes a protected resource fails with
// file:line:col, and the service refuses it too when a plan does not know
// (issue 10: lifecycle).
func TestLifecycleApply(t *testing.T) {
	ctx := context.Background()
	cl, calls := server(t)
	dir := t.TempDir()
	d := compileHCL(t, dir, lifecycleProject)
	a := newApplier(t, cl, d)
	if _, res := applyAll(t, a, d); res.Err() != nil {
		t.Fatal(res.Err())
	}
	st, err := cl.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if r := st.Lookup("volume.data"); r == nil || !r.PreventDestroy || !strings.HasSuffix(r.PreventDestroyAt, "main.hcl:6:5") {
		t.Fatalf("volume.data in the state = %+v, want protected at main.hcl:6:5", r)
	}

	// tags are ignored: changing them plans nothing.
	d = compileHCL(t, dir, strings.Replace(lifecycleProject, `["first"]`, `["second"]`, 1))
	noChanges(t, a, d)

	// A replacing change is created before destroyed, and keeps the tags.
	d = compileHCL(t, dir, strings.NewReplacer(`["first"]`, `["second"]`, `["serve"]`, `["serve", "--fast"]`).Replace(lifecycleProject))
	calls.reset(nil)
	p, res := applyAll(t, a, d)
	if res.Err() != nil {
		t.Fatal(res.Err())
	}
	if c := p.Changes[0]; c.Addr != "sandbox.dev" || c.Symbol() != "+/-" {
		t.Fatalf("plan = %+v, want sandbox.dev replaced create before destroy", p.Changes)
	}
	if len(res.Done) != 1 || !res.Done[0].CreatedBeforeDestroyed {
		t.Errorf("Done = %+v, want the replacement created before destroyed", res.Done)
	}
	st, _ = cl.GetState(ctx, "p")
	if spec := string(st.Lookup("sandbox.dev").Spec); !strings.Contains(spec, `"tags":["first"]`) || !strings.Contains(spec, `--fast`) {
		t.Errorf("sandbox.dev spec = %s, want the new command and the service's tags", spec)
	}
	noChanges(t, a, d)

	// Removing the protected volume fails at planning, citing the state.
	gone := compileHCL(t, dir, lifecycleProject[:strings.Index(lifecycleProject, `volume "data"`)]+lifecycleProject[strings.Index(lifecycleProject, `sandbox "dev"`):])
	_, _, err = a.Plan(ctx, gone, planner.Options{})
	var pe *planner.ProtectedError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "main.hcl:6:5: volume.data is protected") || !strings.Contains(err.Error(), "removed from the configuration") {
		t.Fatalf("Plan(volume removed) = %v, want a ProtectedError at main.hcl:6:5", err)
	}

	// A plan made as if it were not protected: the service refuses.
	st, _ = cl.GetState(ctx, "p")
	for i := range st.Resources {
		st.Resources[i].PreventDestroy = false
	}
	p, err = planner.Diff(gone, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a = newApplier(t, cl, d, applier.WithAllowDataLoss(true))
	lk, err := a.Lock(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	defer lk.Release()
	res = a.Apply(ctx, lk, p, gone)
	if err := res.Err(); !errors.Is(err, service.ErrProtected) {
		t.Fatalf("Apply(delete of a protected volume) = %v, want the service's refusal", err)
	}
}
