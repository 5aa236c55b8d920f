package service_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cc.dev/cc/service"
)

// TestProtectedResourceRefusedByService: the service keeps
// lifecycle.prevent_destroy with the resource and, as defence in depth,
// refuses DeleteResource and a REPLACE of a protected resource with a
// Protected detail naming where it was declared; an update with the
// flag false unprotects it, as a change of the
// state (issue 10: lifecycle).
func TestProtectedResourceRefusedByService(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	req := applyReq(t, "p", "volume.data", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)
	req.PreventDestroy, req.PreventDestroyAt = true, "main.hcl:4:5"
	res := mustApply(t, c, req)
	if !res.Resource.PreventDestroy || res.Resource.PreventDestroyAt != "main.hcl:4:5" {
		t.Fatalf("Apply() resource = %+v, want protected at main.hcl:4:5", res.Resource)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if r := st.Lookup("volume.data"); r == nil || !r.PreventDestroy || r.PreventDestroyAt != "main.hcl:4:5" {
		t.Fatalf("GetState() volume.data = %+v, want protected at main.hcl:4:5", r)
	}

	_, err = c.Delete(ctx, service.DeleteRequest{Project: "p", Address: "volume.data", ExpectedSerial: st.Serial})
	var pe *service.ProtectedError
	if !errors.As(err, &pe) || pe.Action != "delete" || pe.DeclaredAt != "main.hcl:4:5" || !errors.Is(err, service.ErrProtected) {
		t.Fatalf("Delete(protected) = %v, want a ProtectedError for delete declared at main.hcl:4:5", err)
	}
	if !strings.Contains(err.Error(), "main.hcl:4:5") {
		t.Errorf("Delete(protected) error %q does not name main.hcl:4:5", err)
	}
	rep := applyReq(t, "p", "volume.data", service.ActionReplace, map[string]any{"size": "512Mi"}, st.Serial)
	rep.PreventDestroy, rep.PreventDestroyAt = true, "main.hcl:4:5"
	if _, err := c.Apply(ctx, rep); !errors.As(err, &pe) || pe.Action != "replace" {
		t.Fatalf("Apply(REPLACE of protected) = %v, want a ProtectedError for replace", err)
	}
	rep.PreventDestroy, rep.PreventDestroyAt = false, ""
	if _, err := c.Apply(ctx, rep); !errors.As(err, &pe) {
		t.Fatalf("Apply(REPLACE of protected, unprotecting in the same call) = %v, want a ProtectedError", err)
	}

	// Unprotect: the same spec without the flag is a change.
	un := applyReq(t, "p", "volume.data", service.ActionUpdate, map[string]any{"size": "1Gi"}, st.Serial)
	ures := mustApply(t, c, un)
	if !ures.Changed || ures.Resource.PreventDestroy || ures.Serial == st.Serial {
		t.Fatalf("Apply(unprotect) = %+v, want a change of the state that unprotects", ures)
	}
	if _, err := c.Delete(ctx, service.DeleteRequest{Project: "p", Address: "volume.data", ExpectedSerial: ures.Serial}); err != nil {
		t.Fatalf("Delete(unprotected) = %v", err)
	}
}

// TestLifecycleRequestChecks: the service checks the new lifecycle fields
// of ApplyResource: prevent_destroy_at only with prevent_destroy, and as
// file:line:col; create_before_destroy only with a REPLACE of a kind that
// allows it (issue 10: lifecycle).
func TestLifecycleRequestChecks(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	for name, mut := range map[string]func(*service.ApplyRequest){
		"at without flag":   func(r *service.ApplyRequest) { r.PreventDestroyAt = "main.hcl:1:1" },
		"at not a position": func(r *service.ApplyRequest) { r.PreventDestroy, r.PreventDestroyAt = true, "somewhere" },
		"at control chars":  func(r *service.ApplyRequest) { r.PreventDestroy, r.PreventDestroyAt = true, "a\nb:1:1" },
		"at too long": func(r *service.ApplyRequest) {
			r.PreventDestroy, r.PreventDestroyAt = true, strings.Repeat("a", 600)+":1:1"
		},
		"cbd on a create":     func(r *service.ApplyRequest) { r.CreateBeforeDestroy = true },
		"cbd on a volume rep": func(r *service.ApplyRequest) { r.Action, r.CreateBeforeDestroy = service.ActionReplace, true },
	} {
		req := applyReq(t, "p", "volume.v", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)
		mut(&req)
		if _, err := c.Apply(ctx, req); !errors.Is(err, service.ErrInvalid) {
			t.Errorf("%s: Apply() = %v, want invalid argument", name, err)
		}
	}
}

// TestCreateBeforeDestroyReplace: a REPLACE of a sandbox with
// create_before_destroy says the replacement came up first (issue 10:
// lifecycle).
func TestCreateBeforeDestroyReplace(t *testing.T) {
	c := open(t, "")
	res := mustApply(t, c, applyReq(t, "p", "sandbox.s", service.ActionCreate, map[string]any{"image": testImage}, 0))
	rep := applyReq(t, "p", "sandbox.s", service.ActionReplace, map[string]any{"image": testImage, "command": []string{"x"}}, res.Serial)
	rep.CreateBeforeDestroy = true
	if r := mustApply(t, c, rep); !r.CreatedBeforeDestroy || !r.Changed {
		t.Fatalf("Apply(REPLACE, create_before_destroy) = %+v, want created before destroyed", r)
	}
	plain := applyReq(t, "p", "sandbox.s", service.ActionReplace, map[string]any{"image": testImage}, 0)
	plain.ExpectedSerial = res.Serial + 1
	if r := mustApply(t, c, plain); r.CreatedBeforeDestroy {
		t.Fatalf("Apply(REPLACE) = %+v, want not created before destroyed", r)
	}
}
