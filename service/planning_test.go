package service_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"

	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// What a plan needs beyond GetState: old file contents (ReadBlob), the
// pointers of sensitive values kept with each spec, and, for tests of
// plan and apply, interceptors around the real server.

func TestReadBlob(t *testing.T) {
	ctx := context.Background()
	c := open(t, "", service.WithMaxBlobSize(16<<20))
	big := bytes.Repeat([]byte("line of text\n"), (3<<20)/13) // several chunks
	sum := sha256.Sum256(big)
	d := "sha256:" + hex.EncodeToString(sum[:])
	if _, err := c.ReadBlob(ctx, "p", d, 0); !errors.Is(err, service.ErrNotFound) {
		t.Fatalf("ReadBlob(missing) = %v, want not found", err)
	}
	if _, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: d, Size: int64(len(big))}, bytes.NewReader(big)); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		limit     int64
		want      int
		truncated bool
	}{
		{0, 1 << 20, true},
		{100, 100, true},
		{4 << 20, len(big), false},
	}
	for _, tt := range tests {
		b, err := c.ReadBlob(ctx, "p", d, tt.limit)
		if err != nil {
			t.Fatalf("ReadBlob(limit %d) = %v", tt.limit, err)
		}
		if b.Size != int64(len(big)) || len(b.Data) != tt.want || b.Truncated != tt.truncated || !bytes.Equal(b.Data, big[:tt.want]) {
			t.Errorf("ReadBlob(limit %d) = size %d, %d bytes, truncated %v; want %d, %d, %v",
				tt.limit, b.Size, len(b.Data), b.Truncated, len(big), tt.want, tt.truncated)
		}
	}
	// Blobs belong to their project.
	if _, err := c.ReadBlob(ctx, "q", d, 0); !errors.Is(err, service.ErrNotFound) {
		t.Fatalf("ReadBlob(other project) = %v, want not found", err)
	}
	for _, bad := range []struct {
		digest string
		limit  int64
	}{{"md5:x", 0}, {d, -1}, {d, 5 << 20}} {
		if _, err := c.ReadBlob(ctx, "p", bad.digest, bad.limit); !errors.Is(err, service.ErrInvalid) {
			t.Errorf("ReadBlob(%q, %d) = %v, want invalid", bad.digest, bad.limit, err)
		}
	}
}

func TestSensitivePointersKept(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	req := applyReq(t, "p", "function.f", service.ActionCreate, function("main.run", map[string]any{"env": map[string]any{"TOKEN": "x"}}), 0)
	req.Sensitive = []string{"/env/TOKEN", "/env/TOKEN"}
	// A spec with sensitive values is hashed without them (issue 8 item 8).
	redacted := func(req *service.ApplyRequest) {
		t.Helper()
		if len(req.Sensitive) == 0 {
			req.Hash = schema.Hash(req.Spec)
			return
		}
		h, err := schema.RedactedHash(req.Spec, req.Sensitive)
		if err != nil {
			t.Fatal(err)
		}
		req.Hash = h
	}
	redacted(&req)
	mustApply(t, c, req)
	s, h := spec(t, map[string]any{"from": "busybox", "steps": []any{map[string]any{"env": map[string]any{"vars": map[string]any{"K": "v"}}}}})
	if _, err := c.EnsureImage(ctx, service.ImageRequest{Project: "p", Address: "image.a", Hash: h, Spec: s, Sensitive: []string{"/steps/0/env/vars/K"}, ExpectedSerial: 1}); err != nil {
		t.Fatal(err)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if got := st.Lookup("function.f").Sensitive; !cmp.Equal(got, []string{"/env/TOKEN"}) {
		t.Errorf("function.f sensitive = %v, want [/env/TOKEN]", got)
	}
	if got := st.Lookup("image.a").Sensitive; !cmp.Equal(got, []string{"/steps/0/env/vars/K"}) {
		t.Errorf("image.a sensitive = %v", got)
	}
	if len(st.Images) != 1 || !cmp.Equal(st.Images[0].Sensitive, []string{"/steps/0/env/vars/K"}) {
		t.Errorf("images = %+v, want one with its sensitive pointer", st.Images)
	}
	// The same spec with other pointers is a change.
	req.Action, req.ExpectedSerial, req.Sensitive = service.ActionUpdate, st.Serial, nil
	redacted(&req)
	if res := mustApply(t, c, req); !res.Changed || len(res.Resource.Sensitive) != 0 {
		t.Errorf("update dropping the pointer = %+v, want changed without pointers", res)
	}
	// A rollback brings back the version's pointers with its spec.
	req.Spec, req.Hash = spec(t, function("main.run", map[string]any{"env": map[string]any{"TOKEN": "y"}}))
	req.ExpectedSerial = st.Serial + 1
	req.Sensitive = []string{"/env/TOKEN"}
	redacted(&req)
	mustApply(t, c, req)
	req.Spec, req.Hash = spec(t, function("main.run", map[string]any{"env": map[string]any{"TOKEN": "z"}}))
	req.ExpectedSerial, req.Sensitive = st.Serial+2, nil
	mustApply(t, c, req)
	// Version 1 is x hashed without its sensitive value, 2 x hashed with
	// it (no longer sensitive), 3 y (issue 8 item 8: before, 1 and 2 were
	// one version).
	rb, err := c.Rollback(ctx, service.RollbackRequest{Project: "p", Address: "function.f", Version: 3, ExpectedSerial: st.Serial + 3})
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(rb.Resource.Sensitive, []string{"/env/TOKEN"}) {
		t.Errorf("after rollback to version 3, sensitive = %v, want [/env/TOKEN]", rb.Resource.Sensitive)
	}
	for _, bad := range [][]string{{"env/TOKEN"}, {"/a\nb"}} {
		r := applyReq(t, "p", "volume.v", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)
		r.Sensitive = bad
		if _, err := c.Apply(ctx, r); !errors.Is(err, service.ErrInvalid) {
			t.Errorf("Apply(sensitive %q) = %v, want invalid", bad, err)
		}
	}
}

// TestMigrationAddsSensitive opens a database made before the sensitive
// columns existed.
func TestMigrationAddsSensitive(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "state.db")
	c, closeFn, err := openEmbedded(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	mustApply(t, c, applyReq(t, "p", "volume.v", service.ActionCreate, map[string]any{"size": "1Gi"}, 0))
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	downgrade(t, db, 1)
	c = open(t, db)
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	// Issue 10: a resource written before ids gets one.
	if v := st.Lookup("volume.v"); v == nil || v.ID == "" {
		t.Errorf("after migration volume.v = %+v, want it with an id", v)
	}
	if v := st.Lookup("volume.v"); v == nil || len(v.Sensitive) != 0 {
		t.Fatalf("after migration volume.v = %+v, want it without sensitive pointers", v)
	}
	// issue 8 item 2: a project made before lineages gets one.
	if len(st.Lineage) != 32 {
		t.Fatalf("after migration the lineage is %q, want one", st.Lineage)
	}
}

func TestServerInterceptors(t *testing.T) {
	ctx := context.Background()
	var unary, stream atomic.Int64
	c := openRaw(t, "",
		service.WithUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
			unary.Add(1)
			return next(ctx, req)
		}),
		service.WithStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, next grpc.StreamHandler) error {
			stream.Add(1)
			return next(srv, ss)
		}))
	if _, err := c.GetState(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	// issue 10 (blob lease): an upload needs the lease, taken by a second
	// unary call.
	l, _, err := c.Lock(ctx, "p", service.Holder{User: "u", Host: "h"}, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: "sha256:" + hex.EncodeToString(make([]byte, 32)), Size: 0, LeaseID: l.ID}, bytes.NewReader(nil)); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("UploadBlob(wrong digest) = %v, want invalid", err)
	}
	if unary.Load() != 2 || stream.Load() != 1 {
		t.Fatalf("interceptors saw %d unary and %d stream calls, want 2 (GetState, Lock) and 1", unary.Load(), stream.Load())
	}
	if _, err := service.Open(ctx, filepath.Join(t.TempDir(), "x.db"), service.WithUnaryInterceptor(nil)); err == nil {
		t.Fatal("Open(WithUnaryInterceptor(nil)) = nil error")
	}
}
