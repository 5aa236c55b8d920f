package service_test

import (
	"context"
	"errors"
	"testing"

	"cc.dev/cc/service"
)

// TestMoveCarriesProtectionAndDrift: issue 10, where moves meet the
// lifecycle and drift. A moved resource keeps its prevent_destroy (the
// service still refuses to delete it at the new address) and its drift
// records (the next plan still shows what changed outside cc); a
// forgotten one takes its protection to the unowned resources and leaves
// its drift behind, since its new owner never applied it.
func TestMoveCarriesProtectionAndDrift(t *testing.T) {
	ctx := context.Background()
	cc, sdk, _ := driftServer(t)
	req := applyReq(t, "drift", "sandbox.dev", service.ActionCreate, sandbox(map[string]any{"tags": []any{"a"}}), 0)
	req.PreventDestroy, req.PreventDestroyAt = true, "main.hcl:3:5"
	mustApply(t, cc, req)
	patched, err := sdk.PatchResource(ctx, service.PatchRequest{Project: "drift", Address: "sandbox.dev",
		Set: []service.FieldPatch{{Pointer: "/tags", Value: []byte(`["b"]`)}}})
	if err != nil {
		t.Fatal(err)
	}
	mv, err := cc.Move(ctx, service.MoveRequest{Project: "drift", From: "sandbox.dev", To: "sandbox.dev2", ExpectedSerial: patched.Serial})
	if err != nil {
		t.Fatalf("Move() = %v", err)
	}
	st, err := cc.GetState(ctx, "drift")
	if err != nil {
		t.Fatal(err)
	}
	if r := st.Lookup("sandbox.dev2"); r == nil || !r.PreventDestroy || r.PreventDestroyAt != "main.hcl:3:5" {
		t.Errorf("after the move, sandbox.dev2 = %+v, want it protected, declared at main.hcl:3:5", r)
	}
	if len(st.Drift) != 1 || st.Drift[0].Address != "sandbox.dev2" {
		t.Errorf("after the move, drift = %+v, want the one record at sandbox.dev2", st.Drift)
	}
	if _, err := cc.Delete(ctx, service.DeleteRequest{Project: "drift", Address: "sandbox.dev2", ExpectedSerial: mv.Serial}); !errors.Is(err, service.ErrProtected) {
		t.Errorf("Delete(sandbox.dev2) after the move = %v, want it refused as protected", err)
	}

	if _, err := cc.Forget(ctx, service.TransferRequest{Project: "drift", Address: "sandbox.dev2", ExpectedSerial: mv.Serial}); err != nil {
		t.Fatalf("Forget() = %v", err)
	}
	if st, err = cc.GetState(ctx, "drift"); err != nil || len(st.Drift) != 0 || st.Lookup("sandbox.dev2") != nil {
		t.Errorf("after the forget, the project's state = %+v, %v; want neither the sandbox nor its drift", st, err)
	}
}
