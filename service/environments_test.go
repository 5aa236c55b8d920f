package service_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/service"
)

// issue 12: environments. A token for app/staging may make every call on
// app/staging and none on app/prod or app, in words naming the
// environment; a token for app covers every environment of app.
func TestEnvironmentTokens(t *testing.T) {
	ctx := context.Background()
	tokens, err := service.ParseTokens("tokens", []byte(tokenA+" app/staging ci\n"+tokenAll+" app lead\n"))
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "s.sock")
	serve(t, listenUnix(t, sock), "", service.WithTokens(tokens))
	dial := func(token string) *service.Client {
		c, err := service.Dial("unix://"+sock, service.WithToken(token), service.WithGRPCOptions(autoLeasing()...))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	ci, lead := dial(tokenA), dial(tokenAll)
	for _, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			for _, scope := range []string{"app/prod", "app", "other/staging"} {
				err := tc.call(ctx, ci, scope)
				if !errors.Is(err, service.ErrPermissionDenied) {
					t.Errorf("token for app/staging, %s: %v, want PermissionDenied", scope, err)
				}
			}
			for c, scope := range map[*service.Client]string{ci: "app/staging", lead: "app/prod"} {
				if err := tc.call(ctx, c, scope); errors.Is(err, service.ErrPermissionDenied) || errors.Is(err, service.ErrUnauthenticated) {
					t.Errorf("%s: %v, want it allowed", scope, err)
				}
			}
		})
	}
	_, err = ci.GetState(ctx, "app/prod")
	if err == nil || !strings.Contains(err.Error(), `token "ci" may not use environment "prod" of project "app"`) {
		t.Errorf("GetState(app/prod) with the staging token = %v, want it refused in words", err)
	}
}

// issue 12: environments. Each environment of a project has its own state;
// a scope that is not NAME or NAME/ENV (DNS labels) is refused.
func TestEnvironmentScopes(t *testing.T) {
	ctx := context.Background()
	sock := filepath.Join(t.TempDir(), "s.sock")
	serve(t, listenUnix(t, sock), "")
	c, err := service.Dial("unix://"+sock, service.WithGRPCOptions(autoLeasing()...))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Apply(ctx, applyReq(t, "app/dev", "volume.v", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)); err != nil {
		t.Fatalf("Apply(app/dev) = %v", err)
	}
	dev, err := c.GetState(ctx, "app/dev")
	if err != nil || dev.Lookup("volume.v") == nil || dev.Serial != 1 {
		t.Fatalf("GetState(app/dev) = %+v, %v; want volume.v at serial 1", dev, err)
	}
	for _, scope := range []string{"app", "app/prod"} {
		st, err := c.GetState(ctx, scope)
		if err != nil || len(st.Resources) != 0 || st.Serial != 0 || st.Lineage == dev.Lineage && st.Lineage != "" {
			t.Errorf("GetState(%s) = %+v, %v; want an empty state of its own", scope, st, err)
		}
	}
	for _, bad := range []string{"app/", "/dev", "app/Dev", "app/dev/x", "-/dev"} {
		if _, err := c.GetState(ctx, bad); !errors.Is(err, service.ErrInvalid) {
			t.Errorf("GetState(%q) = %v, want InvalidArgument", bad, err)
		}
	}
}

// issue 12: environments. A tokens file names environments as NAME/ENV.
func TestParseTokensEnvironments(t *testing.T) {
	if _, err := service.ParseTokens("tokens", []byte(tokenA+" app/staging,web\n")); err != nil {
		t.Errorf("ParseTokens(app/staging) = %v", err)
	}
	for _, bad := range []string{"app/", "app/Prod", "app/a/b", "*/prod"} {
		_, err := service.ParseTokens("tokens", []byte(tokenA+" "+bad+"\n"))
		if err == nil || !strings.Contains(err.Error(), "a project in an environment (NAME/ENV)") {
			t.Errorf("ParseTokens(%s) = %v, want it refused", bad, err)
		}
	}
}
