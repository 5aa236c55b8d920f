package service_test

import (
	"context"
	"testing"

	"cc.dev/cc/service"
)

// TestInstanceAddressesAccepted checks that the service takes instance
// addresses (sandbox.worker["a"], function.f[0]) in Apply, Move and
// Versions, and refuses a malformed key (issue 12: reuse).
func TestInstanceAddressesAccepted(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	res := mustApply(t, c, applyReq(t, "p", `sandbox.worker["a"]`, service.ActionCreate, sandbox(nil), 0))
	res = mustApply(t, c, applyReq(t, "p", "function.f[0]", service.ActionCreate, function("m:run"), res.Serial))
	mv, err := c.Move(ctx, service.MoveRequest{Project: "p", From: `sandbox.worker["a"]`, To: `sandbox.worker["b"]`, ExpectedSerial: res.Serial})
	if err != nil {
		t.Fatalf("Move = %v", err)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil || st.Lookup(`sandbox.worker["b"]`) == nil || st.Lookup("function.f[0]") == nil {
		t.Fatalf("GetState = %+v, %v; want sandbox.worker[\"b\"] and function.f[0]", st, err)
	}
	if vs, err := c.Versions(ctx, "p", "function.f[0]"); err != nil || len(vs) != 1 {
		t.Errorf("Versions(function.f[0]) = %v, %v; want one", vs, err)
	}
	for _, bad := range []string{`sandbox.worker["a b"]`, "sandbox.worker[01]", `sandbox.worker[a]`} {
		if _, err := c.Apply(ctx, applyReq(t, "p", bad, service.ActionCreate, sandbox(nil), mv.Serial)); err == nil {
			t.Errorf("Apply(%s) = nil error, want the address refused", bad)
		}
	}
}
