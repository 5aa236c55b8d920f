package service_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"testing"

	"cc.dev/cc/service"
)

// TestUnownedProjectScope: the resources no project owns live in the
// reserved project "-" (issue 10, adoption). A token reaches it only when
// its PROJECTS list names "-": "*" does not cover it. Without tokens, a
// local client may use it like any project.
func TestUnownedProjectScope(t *testing.T) {
	ctx := context.Background()
	cert, pool := selfSigned(t)
	const tokenSDK = "platform-sdk-token-0123456789"
	tokens, err := service.ParseTokens("tokens", []byte(
		tokenAll+" * admin\n"+
			tokenSDK+" -,a sdk\n"))
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, lis, "", service.WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}), service.WithTokens(tokens))
	dial := func(token string) *service.Client {
		t.Helper()
		c, err := service.Dial(lis.Addr().String(), service.WithToken(token),
			service.WithTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}),
			service.WithGRPCOptions(autoLeasing()...))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	admin, sdk := dial(tokenAll), dial(tokenSDK)
	req := applyReq(t, service.Unowned, "volume.build-cache", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)
	if _, err := admin.Apply(ctx, req); !errors.Is(err, service.ErrPermissionDenied) {
		t.Errorf("Apply(%q) with a * token = %v, want permission denied", service.Unowned, err)
	}
	if _, err := sdk.Apply(ctx, req); err != nil {
		t.Fatalf("Apply(%q) with a token listing - = %v", service.Unowned, err)
	}
	st, err := sdk.GetState(ctx, service.Unowned)
	if err != nil || st.Lookup("volume.build-cache") == nil {
		t.Fatalf("GetState(%q) = %v, %v; want volume.build-cache", service.Unowned, st, err)
	}

	// Without tokens, on a local socket.
	lo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, lo, "")
	c, err := service.Dial(lo.Addr().String(), service.WithGRPCOptions(autoLeasing()...))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Apply(ctx, req); err != nil {
		t.Fatalf("Apply(%q) without tokens = %v", service.Unowned, err)
	}
	for _, bad := range []string{"--", "_", "-a"} {
		if _, err := c.GetState(ctx, bad); err == nil {
			t.Errorf("GetState(%q) = nil error, want the name refused", bad)
		}
	}
}
