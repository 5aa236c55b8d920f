package service_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"cc.dev/cc/service"
)

// issue 12: environments meet locks. A lock held on app/dev blocks another
// holder on app/dev only: app/prod and app are locked and unlocked apart,
// and force-unlocking app/prod leaves app/dev's lock held.
func TestIssue12MeetsLocksPerEnvironment(t *testing.T) {
	ctx := context.Background()
	sock := filepath.Join(t.TempDir(), "s.sock")
	serve(t, listenUnix(t, sock), "")
	c, err := service.Dial("unix://"+sock, service.WithGRPCOptions(autoLeasing()...))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	alice, bob := service.Holder{User: "alice", Host: "h"}, service.Holder{User: "bob", Host: "h"}
	dev, _, err := c.Lock(ctx, "app/dev", alice, 0)
	if err != nil {
		t.Fatalf("Lock(app/dev) = %v", err)
	}
	if _, _, err := c.Lock(ctx, "app/dev", bob, 0); !errors.Is(err, service.ErrLocked) {
		t.Fatalf("second Lock(app/dev) = %v, want ErrLocked", err)
	}
	for _, scope := range []string{"app/prod", "app"} {
		if _, _, err := c.Lock(ctx, scope, bob, 0); err != nil {
			t.Fatalf("Lock(%s) while app/dev is locked = %v, want it taken", scope, err)
		}
	}
	released, err := c.ForceUnlock(ctx, "app/prod")
	if err != nil || released == nil || released.Holder.User != "bob" {
		t.Fatalf("ForceUnlock(app/prod) = %+v, %v; want bob's lease", released, err)
	}
	if _, _, err := c.Lock(ctx, "app/dev", bob, 0); !errors.Is(err, service.ErrLocked) {
		t.Fatalf("Lock(app/dev) after ForceUnlock(app/prod) = %v, want still ErrLocked", err)
	}
	if err := c.Unlock(ctx, "app/dev", dev.ID); err != nil {
		t.Fatalf("Unlock(app/dev) = %v", err)
	}
}
