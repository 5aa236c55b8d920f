package service_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"cc.dev/cc/service"
)

// TestMoveRecordsProtectionPosition: issue 10: moves meet prevent_destroy.
// A move of a protected resource with prevent_destroy_at records where the
// protection is declared now, so a refusal names it; without one the
// recorded position stays; an unprotected resource stays unprotected; a
// prevent_destroy_at that is not a bounded file:line:col is refused.
func TestMoveRecordsProtectionPosition(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	req := applyReq(t, "p", "volume.a", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)
	req.PreventDestroy, req.PreventDestroyAt = true, "main.hcl:4:5"
	s := mustApply(t, c, req).Serial
	s = mustApply(t, c, applyReq(t, "p", "volume.plain", service.ActionCreate, map[string]any{"size": "1Gi"}, s)).Serial

	for name, at := range map[string]string{
		"not a position": "somewhere",
		"control chars":  "a\nb:1:1",
		"too long":       strings.Repeat("a", 600) + ":1:1",
	} {
		if _, err := c.Move(ctx, service.MoveRequest{Project: "p", From: "volume.a", To: "volume.b", PreventDestroyAt: at, ExpectedSerial: s}); !errors.Is(err, service.ErrInvalid) {
			t.Errorf("%s: Move() = %v, want invalid argument", name, err)
		}
	}
	mv, err := c.Move(ctx, service.MoveRequest{Project: "p", From: "volume.a", To: "volume.b", PreventDestroyAt: "main.hcl:9:5", ExpectedSerial: s})
	if err != nil {
		t.Fatal(err)
	}
	mv, err = c.Move(ctx, service.MoveRequest{Project: "p", From: "volume.b", To: "volume.c", ExpectedSerial: mv.Serial})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Move(ctx, service.MoveRequest{Project: "p", From: "volume.plain", To: "volume.plain2", PreventDestroyAt: "main.hcl:1:1", ExpectedSerial: mv.Serial}); err != nil {
		t.Fatal(err)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if r := st.Lookup("volume.c"); r == nil || !r.PreventDestroy || r.PreventDestroyAt != "main.hcl:9:5" {
		t.Errorf("volume.c = %+v, want protected at main.hcl:9:5 (the first move's, kept by the second)", r)
	}
	if r := st.Lookup("volume.plain2"); r == nil || r.PreventDestroy || r.PreventDestroyAt != "" {
		t.Errorf("volume.plain2 = %+v, want it unprotected", r)
	}
	_, err = c.Delete(ctx, service.DeleteRequest{Project: "p", Address: "volume.c", ExpectedSerial: st.Serial})
	var pe *service.ProtectedError
	if !errors.As(err, &pe) || pe.DeclaredAt != "main.hcl:9:5" {
		t.Errorf("Delete(volume.c) = %v, want a ProtectedError declared at main.hcl:9:5", err)
	}
}
