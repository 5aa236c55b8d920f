package service_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/service"
)

// TestItem5DeleteWithDependants: issue 8 item 5. A resource others depend
// on is not deleted; the refusal names them. Once they are gone, it is.
func TestItem5DeleteWithDependants(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	img, h := spec(t, map[string]any{"from": "busybox"})
	if _, err := c.EnsureImage(ctx, service.ImageRequest{Project: "p", Address: "image.base", Spec: img, Hash: h}); err != nil {
		t.Fatal(err)
	}
	s := mustApply(t, c, applyReq(t, "p", "secret.key", service.ActionCreate, map[string]any{"from_env": "KEY"}, 1)).Serial
	for _, addr := range []string{"function.a", "sandbox.b"} {
		req := applyReq(t, "p", addr, service.ActionCreate, function("m.run"), s)
		if addr == "sandbox.b" {
			req = applyReq(t, "p", addr, service.ActionCreate, sandbox(nil), s)
		}
		req.DependsOn = []string{"image.base", "secret.key"}
		s = mustApply(t, c, req).Serial
	}
	for _, addr := range []string{"image.base", "secret.key"} {
		_, err := c.Delete(ctx, service.DeleteRequest{Project: "p", Address: addr, ExpectedSerial: s})
		var de *service.DependantsError
		if !errors.As(err, &de) || !errors.Is(err, service.ErrHasDependants) || de.Address != addr || !cmp.Equal(de.Dependants, []string{"function.a", "sandbox.b"}) {
			t.Fatalf("Delete(%s) = %v, want a *DependantsError naming function.a and sandbox.b", addr, err)
		}
		if !strings.Contains(err.Error(), "function.a, sandbox.b") {
			t.Errorf("error %q does not name the dependants", err)
		}
	}
	for _, addr := range []string{"function.a", "sandbox.b", "image.base", "secret.key"} {
		r, err := c.Delete(ctx, service.DeleteRequest{Project: "p", Address: addr, ExpectedSerial: s})
		if err != nil {
			t.Fatalf("Delete(%s) = %v", addr, err)
		}
		s = r.Serial
	}
}

// TestItem5Cycle: issue 8 item 5. Dependencies that would close a cycle,
// or name what the project lacks, are refused; the refusal names the
// cycle.
func TestItem5Cycle(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	apply := func(addr string, action service.Action, serial int64, deps ...string) (*service.ApplyResult, error) {
		req := applyReq(t, "p", addr, action, function("m."+strings.TrimPrefix(addr, "function.")), serial)
		req.DependsOn = deps
		return c.Apply(ctx, req)
	}
	if _, err := apply("function.a", service.ActionCreate, 0, "function.b"); !errors.Is(err, service.ErrNotFound) && !strings.Contains(fmtErr(err), "does not have") {
		t.Fatalf("Apply(a needs the missing b) = %v, want a refusal naming function.b", err)
	}
	r, err := apply("function.a", service.ActionCreate, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r, err = apply("function.b", service.ActionCreate, r.Serial, "function.a"); err != nil {
		t.Fatal(err)
	}
	if r, err = apply("function.c", service.ActionCreate, r.Serial, "function.b"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		deps []string
		want []string
	}{
		{[]string{"function.c"}, []string{"function.a", "function.c", "function.b", "function.a"}},
		{[]string{"function.b"}, []string{"function.a", "function.b", "function.a"}},
	} {
		_, err := apply("function.a", service.ActionUpdate, r.Serial, tc.deps...)
		var ce *service.CycleError
		if !errors.As(err, &ce) || !errors.Is(err, service.ErrCycle) || !errors.Is(err, service.ErrInvalid) || !cmp.Equal(ce.Addresses, tc.want) {
			t.Fatalf("Apply(a needs %v) = %v, want a *CycleError %v", tc.deps, err, tc.want)
		}
	}
	if _, err := apply("function.a", service.ActionUpdate, r.Serial, "function.a"); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("Apply(a needs itself) = %v, want invalid", err)
	}
	// Nothing was written; destroying in order works.
	st, err := c.GetState(ctx, "p")
	if err != nil || st.Serial != r.Serial || len(st.Lookup("function.a").DependsOn) != 0 {
		t.Fatalf("state after refused cycles: %v", err)
	}
	for _, addr := range []string{"function.c", "function.b", "function.a"} {
		res, err := c.Delete(ctx, service.DeleteRequest{Project: "p", Address: addr, ExpectedSerial: r.Serial})
		if err != nil {
			t.Fatalf("Delete(%s) = %v", addr, err)
		}
		r.Serial = res.Serial
	}
}

func fmtErr(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestItem5InvalidSpecs: issue 8 item 5. The service checks every spec
// against the schema's rules for its kind and refuses what the compiler
// would never make.
func TestItem5InvalidSpecs(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	for _, tc := range []struct {
		addr string
		spec any
	}{
		{"volume.v", map[string]any{"size": "-1Gi"}},
		{"volume.v", map[string]any{"size": "0"}},
		{"volume.v", map[string]any{"size": "1Gi", "shrink": true}},
		{"volume.v", []any{"size"}},
		{"volume.v", "1Gi"},
		{"function.f", map[string]any{"handler": "m.run"}},
		{"function.f", function("m.run", map[string]any{"retries": 11})},
		{"function.f", function("m.run", map[string]any{"timeout": "soon"})},
		{"sandbox.s", map[string]any{"command": []string{"sleep"}}},
		{"sandbox.s", sandbox(map[string]any{"env": map[string]any{"K": map[string]any{"ref": "volume.v"}}})},
		{"secret.s", map[string]any{"from_env": "A", "from_service": "b"}},
		{"secret.s", map[string]any{}},
		{"dataset.d", map[string]any{"files": []any{}}},
		{"evaluation.e", map[string]any{"dataset": map[string]any{"ref": "nope"}, "scorers": []any{}}},
		// A reference its depends_on does not name: the graph would miss it.
		{"function.f", function("m.run", map[string]any{"env_from": []any{map[string]any{"ref": "secret.k"}}})},
		{"evaluation.e", map[string]any{"dataset": map[string]any{"ref": "dataset.d"}, "scorers": []any{}}},
	} {
		_, err := c.Apply(ctx, applyReq(t, "p", tc.addr, service.ActionCreate, tc.spec, 0))
		if !errors.Is(err, service.ErrInvalid) {
			t.Errorf("Apply(%s %v) = %v, want invalid", tc.addr, tc.spec, err)
		}
	}
	for _, bad := range []any{map[string]any{}, map[string]any{"from": "a", "from_image": testImage}, map[string]any{"from": "a", "stepz": []any{}}} {
		s, h := spec(t, bad)
		if _, err := c.EnsureImage(ctx, service.ImageRequest{Project: "p", Address: "image.i", Spec: s, Hash: h}); !errors.Is(err, service.ErrInvalid) {
			t.Errorf("EnsureImage(%s) = %v, want invalid", s, err)
		}
	}
	// Addresses are KIND.NAME with a DNS label (or an unnamed image's 12
	// hex digits).
	for _, addr := range []string{"volume.A", "volume.a_b", "volume.a.b", "volume." + strings.Repeat("a", 64)} {
		if _, err := c.Apply(ctx, applyReq(t, "p", addr, service.ActionCreate, volume("1Gi"), 0)); !errors.Is(err, service.ErrInvalid) {
			t.Errorf("Apply(%s) = %v, want invalid", addr, err)
		}
	}
	s, h := spec(t, map[string]any{"from": "busybox"})
	if _, err := c.EnsureImage(ctx, service.ImageRequest{Project: "p", Address: "image.0123456789ab", Spec: s, Hash: h}); err != nil {
		t.Fatalf("EnsureImage(unnamed image) = %v", err)
	}
	if st, err := c.GetState(ctx, "p"); err != nil || len(st.Resources) != 1 {
		t.Fatalf("state after refused specs: %v, %v; want only the image", st, err)
	}
}
