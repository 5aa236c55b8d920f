package applier_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// TestApplyRefusesDataLoss: issue 8 item 1, for programs that embed the
// applier. Apply refuses a plan that deletes a volume unless the Applier
// was made WithAllowDataLoss, and then changes nothing.
func TestApplyRefusesDataLoss(t *testing.T) {
	cl, _ := server(t)
	dir := t.TempDir()
	compile := func(src string) *schema.Desired {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := compiler.Compile(context.Background(), compiler.Input{Path: filepath.Join(dir, "main.hcl")})
		if err != nil {
			t.Fatal(err)
		}
		return res.Desired
	}
	d := compile("project = \"p\"\nvolume \"cache\" {\n  size = \"1Gi\"\n}\n")
	if _, res := applyAll(t, newApplier(t, cl, d), d); res.Err() != nil {
		t.Fatal(res.Err())
	}

	empty := compile("project = \"p\"\n")
	_, res := applyAll(t, newApplier(t, cl, empty), empty)
	var dl *applier.DataLossError
	if !errors.As(res.Err(), &dl) || len(dl.Addrs) != 1 || dl.Addrs[0] != "volume.cache" || len(res.Done) != 0 {
		t.Fatalf("Apply of a plan deleting volume.cache = %v (done %v), want a DataLossError naming it", res.Err(), res.Done)
	}
	st, err := cl.GetState(context.Background(), "p")
	if err != nil || len(st.Resources) != 1 {
		t.Fatalf("after the refusal the state has %v (%v), want volume.cache still", st, err)
	}

	a := newApplier(t, cl, empty, applier.WithAllowDataLoss(true))
	if _, res := applyAll(t, a, empty); res.Err() != nil || len(res.Done) != 1 {
		t.Fatalf("Apply WithAllowDataLoss = %v, done %v; want the volume deleted", res.Err(), res.Done)
	}
	p, _, err := a.Plan(context.Background(), empty, planner.Options{})
	if err != nil || p.Changed() {
		t.Fatalf("after the delete the plan is %v, %v; want no changes", p, err)
	}
}
