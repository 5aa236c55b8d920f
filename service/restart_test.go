package service_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/service"
)

// snapshot is everything a project holds, as calls show it.
type snapshot struct {
	State    *service.State
	Versions map[string][]service.Version
}

func takeSnapshot(t *testing.T, c *service.Client, project string, versioned ...string) snapshot {
	t.Helper()
	ctx := context.Background()
	st, err := c.GetState(ctx, project)
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot{State: st, Versions: map[string][]service.Version{}}
	for _, addr := range versioned {
		vs, err := c.Versions(ctx, project, addr)
		if err != nil {
			t.Fatalf("Versions(%s) = %v", addr, err)
		}
		s.Versions[addr] = vs
	}
	return s
}

func TestRestartKeepsEverything(t *testing.T) {
	ctx := context.Background()
	db := testDB(t)

	c, closeFn, err := openEmbedded(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	s := int64(0)
	for _, v := range []string{"a", "b", "c"} {
		action := service.ActionUpdate
		if v == "a" {
			action = service.ActionCreate
		}
		s = mustApply(t, c, applyReq(t, "p", "function.f", action, function(v), s)).Serial
	}
	s = mustApply(t, c, applyReq(t, "p", "dataset.d", service.ActionCreate, dataset("1"), s)).Serial
	for _, v := range []string{"one", "two"} {
		r, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.k", Value: []byte(v), ExpectedSerial: s})
		if err != nil {
			t.Fatal(err)
		}
		s = r.Serial
	}
	img, h := spec(t, map[string]any{"from": "busybox"})
	if _, err := c.EnsureImage(ctx, service.ImageRequest{Project: "p", Address: "image.base", Spec: img, Hash: h, ExpectedSerial: s}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: blobDigest, Size: int64(len(blobData))}, bytes.NewReader(blobData)); err != nil {
		t.Fatal(err)
	}
	// The lease autoLease took for the calls above goes; u takes one.
	if _, err := c.ForceUnlock(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	lease, _, err := c.Lock(ctx, "p", service.Holder{User: "u", Host: "h"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	before := takeSnapshot(t, c, "p", "function.f", "dataset.d", "secret.k")
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}

	// A key generated beside a SQLite file (PostgreSQL's is given).
	if !service.IsPostgres(db) {
		fi, err := os.Stat(service.DefaultSecretKeyFile(db))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("secret key file mode = %v, want 0600", fi.Mode().Perm())
		}
	}

	c2 := open(t, db)
	after := takeSnapshot(t, c2, "p", "function.f", "dataset.d", "secret.k")
	if diff := cmp.Diff(before, after); diff != "" {
		t.Fatalf("state after restart (-before +after):\n%s", diff)
	}
	if before.State.Serial != 7 || len(before.Versions["function.f"]) != 3 || len(before.Versions["secret.k"]) != 2 || before.State.Lock == nil {
		t.Fatalf("snapshot before restart = serial %d, %d function versions, %d secret revisions, lock %v",
			before.State.Serial, len(before.Versions["function.f"]), len(before.Versions["secret.k"]), before.State.Lock)
	}
	if missing, err := c2.MissingBlobs(ctx, "p", []string{blobDigest}); err != nil || len(missing) != 0 {
		t.Fatalf("MissingBlobs() after restart = %v, %v; want the blob kept", missing, err)
	}
	// The serial goes on from where it was; the lease is still held.
	req := applyReq(t, "p", "volume.v", service.ActionCreate, map[string]any{"size": "1Gi"}, 7)
	if _, err := c2.Apply(ctx, req); !errors.Is(err, service.ErrLocked) {
		t.Fatalf("Apply() without the lease after restart = %v, want locked", err)
	}
	req.LeaseID = lease.ID
	if r := mustApply(t, c2, req); r.Serial != 8 {
		t.Fatalf("first apply after restart at serial %d, want 8", r.Serial)
	}
	// Reverting the function still reuses its first version.
	revert := applyReq(t, "p", "function.f", service.ActionUpdate, function("a"), 8)
	revert.LeaseID = lease.ID
	if r := mustApply(t, c2, revert); r.Version != 1 || !r.Reused {
		t.Fatalf("revert after restart = version %d reused %v, want 1 reused", r.Version, r.Reused)
	}
}

func TestSecretKeyFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "state.db")
	key := filepath.Join(dir, "key")
	if err := os.WriteFile(key, []byte(strings.Repeat("ab", 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, closeFn, err := openEmbedded(ctx, db, service.WithSecretKeyFile(key))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.s", Value: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(service.DefaultSecretKeyFile(db)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a key file was generated beside the database although one was given: %v", err)
	}

	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte(strings.Repeat("cd", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad")
	if err := os.WriteFile(bad, []byte("not hex"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		opts []service.Option
		want string
	}{
		{"another key", []service.Option{service.WithSecretKeyFile(other)}, "not the key this database was created with"},
		{"no key file", nil, "is missing"},
		{"bad key file", []service.Option{service.WithSecretKeyFile(bad)}, "64 hex digits"},
		{"absent key file", []service.Option{service.WithSecretKeyFile(filepath.Join(dir, "absent"))}, "is missing"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, closeFn, err := openEmbedded(ctx, db, tt.opts...)
			if err == nil {
				closeFn()
				t.Fatalf("OpenEmbedded() = nil error, want %q", tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("OpenEmbedded() = %v, want %q", err, tt.want)
			}
		})
	}
}

func TestIdempotencyKeysExpire(t *testing.T) {
	ctx := context.Background()
	db := testDB(t)
	clk := newClock()
	req := applyReq(t, "p", "volume.v", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)
	req.IdempotencyKey = "k"
	reopen := func() (*service.Client, func() error) {
		c, closeFn, err := openEmbedded(ctx, db, service.WithClock(clk.Now))
		if err != nil {
			t.Fatal(err)
		}
		return c, closeFn
	}
	c, closeFn := reopen()
	first := mustApply(t, c, req)
	closeFn()

	// A day later the key still replays the first answer ...
	clk.Advance(24 * time.Hour)
	c, closeFn = reopen()
	if again := mustApply(t, c, req); !cmp.Equal(first, again) {
		t.Fatalf("replay after a day = %+v, want %+v", again, first)
	}
	closeFn()
	// ... a week later it is forgotten: the old request is now stale.
	clk.Advance(7 * 24 * time.Hour)
	c, closeFn = reopen()
	defer closeFn()
	if _, err := c.Apply(ctx, req); !errors.Is(err, service.ErrStale) {
		t.Fatalf("Apply() with a key from 8 days ago = %v, want stale", err)
	}
}
