package service_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"cc.dev/cc/service"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// TestUpdateWithoutProtectionKeepsIt: issue 10, lifecycle. A client that
// knows nothing of lifecycles (a platform SDK speaking the API) and updates
// a protected resource leaves prevent_destroy out of its request: that
// keeps the protection, and the service still refuses to delete the
// resource. cc's own client always says, so it can still unprotect.
func TestUpdateWithoutProtectionKeepsIt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sock := filepath.Join(dir, "s")
	serve(t, listenUnix(t, sock), testDB(t))
	c, err := service.Dial("unix://"+sock, service.WithGRPCOptions(autoLeasing()...))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	req := applyReq(t, "p", "volume.data", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)
	req.PreventDestroy, req.PreventDestroyAt = true, "main.hcl:4:5"
	created := mustApply(t, c, req)

	// The raw API, as an SDK speaks it (the interceptor adds the lease).
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithUnaryInterceptor(autoLease()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	bigger := []byte(`{"size":"2Gi"}`)
	res, err := ccv1.NewResourceServiceClient(conn).ApplyResource(ctx, &ccv1.ApplyResourceRequest{Project: "p", Address: "volume.data",
		Action: ccv1.Action_ACTION_UPDATE, Spec: bigger, Hash: digest(bigger), ExpectedSerial: created.Serial})
	if err != nil {
		t.Fatalf("ApplyResource(UPDATE without prevent_destroy) = %v", err)
	}
	if r := res.GetResource(); !r.GetPreventDestroy() || r.GetPreventDestroyAt() != "main.hcl:4:5" {
		t.Errorf("after the update, resource = %v, want it still protected at main.hcl:4:5", r)
	}
	if _, err := c.Delete(ctx, service.DeleteRequest{Project: "p", Address: "volume.data", ExpectedSerial: res.GetSerial()}); !errors.Is(err, service.ErrProtected) {
		t.Errorf("Delete() after an update that said nothing of the protection = %v, want it refused as protected", err)
	}
}
