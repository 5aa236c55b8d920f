package service_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	"cc.dev/cc/service"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(s[:])
}

// serveUnix runs a server on a unix socket in dir and dials it with
// autoLease.
func serveUnix(t *testing.T, dir string, opts ...service.Option) (*service.Server, *service.Client, *grpc.ClientConn) {
	t.Helper()
	sock := filepath.Join(dir, "s")
	srv := serve(t, listenUnix(t, sock), testDB(t), opts...)
	// One autoLeaser for both: the raw uploads on conn hold the lock the
	// client's mutations do.
	leases := (&autoLeaser{}).dialOptions()
	c, err := service.Dial("unix://"+sock, service.WithGRPCOptions(leases...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	conn, err := grpc.NewClient("unix://"+sock, append(leases, grpc.WithTransportCredentials(insecure.NewCredentials()))...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return srv, c, conn
}

// within runs f, failing the test if it takes longer than a generous
// limit: f is expected to go on at once, and only a bug blocks it.
func within(t *testing.T, what string, f func(ctx context.Context) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := f(ctx); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestItem10UploadDoesNotHoldTheWriter: issue 8 item 10. An upload is
// spooled outside any transaction and stored a few chunks per short
// transaction, so another project's mutations commit while a large upload
// is still being received, and while it is being stored.
func TestItem10UploadDoesNotHoldTheWriter(t *testing.T) {
	dir := t.TempDir()
	srv, c, conn := serveUnix(t, dir)
	blob := bytes.Repeat([]byte("0123456789abcdef"), 6<<20/16) // 6 chunks of 1 MiB
	d := digest(blob)

	// Half sent: another project's apply commits meanwhile.
	stream, err := ccv1.NewBlobServiceClient(conn).UploadBlob(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	send := func(m *ccv1.UploadBlobRequest) {
		t.Helper()
		if err := stream.Send(m); err != nil {
			t.Fatal(err)
		}
	}
	send(&ccv1.UploadBlobRequest{Part: &ccv1.UploadBlobRequest_Header_{Header: &ccv1.UploadBlobRequest_Header{Project: "big", Digest: d, Size: int64(len(blob))}}})
	half := len(blob) / 2
	for i := 0; i < half; i += 256 << 10 {
		send(&ccv1.UploadBlobRequest{Part: &ccv1.UploadBlobRequest_Data{Data: blob[i:min(i+256<<10, half)]}})
	}
	within(t, "Apply() in another project while an upload is half sent", func(ctx context.Context) error {
		_, err := c.Apply(ctx, applyReq(t, "other", "volume.v", service.ActionCreate, volume("1Gi"), 0))
		return err
	})

	// Being stored: between two of its transactions, another project's
	// apply commits.
	var once sync.Once
	var during error
	service.SetAfterChunks(srv, func(project, digest string, chunks int) {
		once.Do(func() {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, during = c.Apply(ctx, applyReq(t, "other", "volume.w", service.ActionCreate, volume("1Gi"), 1))
		})
	})
	for i := half; i < len(blob); i += 256 << 10 {
		send(&ccv1.UploadBlobRequest{Part: &ccv1.UploadBlobRequest_Data{Data: blob[i:min(i+256<<10, len(blob))]}})
	}
	resp, err := stream.CloseAndRecv()
	if err != nil || resp.GetExisted() {
		t.Fatalf("UploadBlob() = %v, %v; want stored", resp, err)
	}
	if during != nil {
		t.Fatalf("Apply() in another project while an upload is stored: %v", during)
	}
	b, err := c.ReadBlob(context.Background(), "big", d, 4<<20)
	if err != nil || b.Size != int64(len(blob)) || !bytes.Equal(b.Data, blob[:4<<20]) {
		t.Fatalf("ReadBlob() = %v; want the blob's first 4 MiB", err)
	}
	st, err := c.GetState(context.Background(), "other")
	if err != nil || len(st.Resources) != 2 {
		t.Fatalf("GetState(other) = %v; want both volumes", err)
	}
}

// TestItem10BlobLimits: issue 8 item 10. A blob larger than --max-blob-size
// is refused from its header, naming the flag; data beyond the announced
// size is refused while streaming; one token's uploads beyond
// --max-uploads-per-token wait for its others.
func TestItem10BlobLimits(t *testing.T) {
	ctx := context.Background()
	srv, c, conn := serveUnix(t, t.TempDir(), service.WithMaxBlobSize(1<<20), service.WithMaxUploadsPerToken(1))
	small := []byte("small")
	_, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: digest(small), Size: 2 << 20}, bytes.NewReader(small))
	if !errors.Is(err, service.ErrInvalid) || !strings.Contains(err.Error(), "--max-blob-size") {
		t.Fatalf("UploadBlob(2 MiB) = %v, want invalid naming --max-blob-size", err)
	}
	long := bytes.Repeat([]byte("x"), 2<<20)
	if _, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: digest(small), Size: 5}, bytes.NewReader(long)); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("UploadBlob(more than announced) = %v, want invalid", err)
	}

	// One upload open: the next waits (here, until its deadline).
	stream, err := ccv1.NewBlobServiceClient(conn).UploadBlob(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&ccv1.UploadBlobRequest{Part: &ccv1.UploadBlobRequest_Header_{Header: &ccv1.UploadBlobRequest_Header{Project: "p", Digest: digest(small), Size: int64(len(small))}}}); err != nil {
		t.Fatal(err)
	}
	for service.Uploads(srv) == 0 {
		time.Sleep(time.Millisecond)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	other := []byte("other")
	_, err = c.UploadBlob(waitCtx, service.BlobUpload{Project: "p", Digest: digest(other), Size: int64(len(other))}, bytes.NewReader(other))
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second UploadBlob() while one runs = %v, want it to wait past its deadline", err)
	}
	if err := stream.Send(&ccv1.UploadBlobRequest{Part: &ccv1.UploadBlobRequest_Data{Data: small}}); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.CloseAndRecv(); err != nil {
		t.Fatal(err)
	}
	within(t, "UploadBlob() once the first ended", func(ctx context.Context) error {
		_, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: digest(other), Size: int64(len(other))}, bytes.NewReader(other))
		return err
	})
}

// TestItem10UploadLimitPerToken: issue 8 item 10. The upload limit is per
// token: one token running its most does not hold up another's.
func TestItem10UploadLimitPerToken(t *testing.T) {
	ctx := context.Background()
	const tokenB = "token-for-tenant-b-0123456789"
	tokens, err := service.ParseTokens("tokens", []byte(tokenAll+" * a\n"+tokenB+" * b\n"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "s")
	srv := serve(t, listenUnix(t, sock), testDB(t), service.WithTokens(tokens), service.WithMaxUploadsPerToken(1))
	dial := func(token string) *service.Client {
		c, err := service.Dial("unix://"+sock, service.WithToken(token), service.WithGRPCOptions(autoLeasing()...))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a, b := dial(tokenAll), dial(tokenB)
	// A's upload stays open, its data never sent.
	pr, pw := io.Pipe()
	defer pw.Close()
	data := []byte("data of a")
	go a.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: digest(data), Size: int64(len(data))}, pr)
	for service.Uploads(srv) == 0 {
		time.Sleep(time.Millisecond)
	}
	within(t, "B's upload while A runs its most", func(ctx context.Context) error {
		other := []byte("data of b")
		_, err := b.UploadBlob(ctx, service.BlobUpload{Project: "q", Digest: digest(other), Size: int64(len(other))}, bytes.NewReader(other))
		return err
	})
	waitCtx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer cancel()
	more := []byte("more of a")
	if _, err := a.UploadBlob(waitCtx, service.BlobUpload{Project: "p", Digest: digest(more), Size: int64(len(more))}, bytes.NewReader(more)); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("A's second upload = %v, want it to wait", err)
	}
}

// TestItem10SpoolCleaned: issue 8 item 10. The spool file of a failed
// upload is removed at once, and what an interrupted upload left (spool
// files, chunks of a blob never registered) at start-up.
func TestItem10SpoolCleaned(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := filepath.Join(dir, "state.db")
	spool := service.SpoolDir(db)
	c, closeFn, err := openEmbedded(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("y"), 3<<20)
	if _, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: digest([]byte("not this")), Size: int64(len(data))}, bytes.NewReader(data)); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("UploadBlob(wrong digest) = %v, want invalid", err)
	}
	if ents, err := os.ReadDir(spool); err != nil || len(ents) != 0 {
		t.Fatalf("spool after a failed upload = %v, %v; want empty", ents, err)
	}
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}

	// As a server killed mid-upload leaves them.
	left := filepath.Join(spool, "upload-123")
	if err := os.WriteFile(left, data, 0o600); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec("INSERT INTO blob_chunks (project, digest, seq, data) VALUES ('p', ?, 0, x'00')", digest(data)); err != nil {
		t.Fatal(err)
	}
	raw.Close()

	c = open(t, db)
	if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("spool file of an interrupted upload after a restart: %v, want it removed", err)
	}
	raw, err = sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var n int
	if err := raw.QueryRow("SELECT COUNT(*) FROM blob_chunks").Scan(&n); err != nil || n != 0 {
		t.Fatalf("chunks of an unregistered blob after a restart = %d, %v; want none", n, err)
	}
	// And the blob can be uploaded whole.
	if existed, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: digest(data), Size: int64(len(data))}, bytes.NewReader(data)); err != nil || existed {
		t.Fatalf("UploadBlob() = %v, %v", existed, err)
	}
}

// syncBuffer is a log sink safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Len()
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestItem11HugeFields: issue 8 item 11. A call is authenticated before
// its request is read (so before any of its fields is logged), every string of a request is bounded (a
// name at 253 bytes), and an error never quotes an oversized value.
func TestItem11HugeFields(t *testing.T) {
	ctx := context.Background()
	tokens, err := service.ParseTokens("tokens", []byte(tokenAll+" * admin\n"))
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	dir := t.TempDir()
	sock := filepath.Join(dir, "s")
	serve(t, listenUnix(t, sock), testDB(t), service.WithTokens(tokens), service.WithLogger(slog.New(slog.NewJSONHandler(&logs, nil))))
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	projects := ccv1.NewProjectServiceClient(conn)
	resources := ccv1.NewResourceServiceClient(conn)
	authed := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+tokenAll)

	for _, size := range []int{10 << 20, 60 << 20} {
		before := logs.Len()
		_, err := projects.GetState(ctx, &ccv1.GetStateRequest{Project: strings.Repeat("a", size)})
		if status.Code(err) != codes.Unauthenticated {
			t.Fatalf("GetState(%d-byte project, no token) = %.300v, want Unauthenticated", size, err)
		}
		if grew := logs.Len() - before; grew >= 1024 {
			t.Fatalf("the log grew by %d bytes for an unauthenticated call with a %d-byte project", grew, size)
		}
	}
	// With a token, oversized strings are refused without being quoted.
	long := strings.Repeat("b", 254)
	for name, call := range map[string]func() error{
		"GetState(254-byte project)": func() error {
			_, err := projects.GetState(authed, &ccv1.GetStateRequest{Project: long})
			return err
		},
		"ApplyResource(254-byte address)": func() error {
			_, err := resources.ApplyResource(authed, &ccv1.ApplyResourceRequest{Project: "p", Address: "volume." + long})
			return err
		},
		"ApplyResource(254-byte dependency)": func() error {
			_, err := resources.ApplyResource(authed, &ccv1.ApplyResourceRequest{Project: "p", Address: "volume.v", DependsOn: []string{"volume." + long}})
			return err
		},
		"ApplyResource(5000-byte pointer)": func() error {
			_, err := resources.ApplyResource(authed, &ccv1.ApplyResourceRequest{Project: "p", Address: "volume.v", Sensitive: []string{"/" + strings.Repeat("c", 5000)}})
			return err
		},
		"Lock(5000-byte command)": func() error {
			_, err := projects.Lock(authed, &ccv1.LockRequest{Project: "p", Holder: &ccv1.Holder{User: "u", Command: strings.Repeat("d", 5000)}})
			return err
		},
	} {
		before := logs.Len()
		err := call()
		if status.Code(err) != codes.InvalidArgument || strings.Contains(err.Error(), strings.Repeat("b", 64)) || strings.Contains(err.Error(), strings.Repeat("c", 64)) ||
			strings.Contains(err.Error(), strings.Repeat("d", 64)) {
			t.Errorf("%s = %v, want InvalidArgument without the value", name, err)
		}
		if grew := logs.Len() - before; grew >= 1024 {
			t.Errorf("%s: the log grew by %d bytes", name, grew)
		}
	}
	// An error that quotes a request's bytes (an unknown field of a spec)
	// is cut, in the answer and in the log.
	huge := strings.Repeat("e", 100<<10)
	specBytes := []byte(`{"` + huge + `":1,"size":"1Gi"}`)
	lease, err := projects.Lock(authed, &ccv1.LockRequest{Project: "p", Holder: &ccv1.Holder{User: "u"}})
	if err != nil {
		t.Fatal(err)
	}
	before := logs.Len()
	_, err = resources.ApplyResource(authed, &ccv1.ApplyResourceRequest{Project: "p", Address: "volume.v", Action: ccv1.Action_ACTION_CREATE,
		Spec: specBytes, Hash: digest(specBytes), LeaseId: lease.GetLease().GetId()})
	if status.Code(err) != codes.InvalidArgument || len(status.Convert(err).Message()) > 1024 {
		t.Errorf("ApplyResource(spec with a 100 KiB field name) = %.200v (%d bytes), want InvalidArgument of less than 1 KiB", err, len(fmtErr(err)))
	}
	if grew := logs.Len() - before; grew >= 2048 {
		t.Errorf("ApplyResource(spec with a 100 KiB field name): the log grew by %d bytes", grew)
	}
	if t.Failed() {
		t.Logf("log:\n%.4000s", logs.String())
	}
}

// TestItem12HealthAndReflection: issue 8 item 12. With tokens, health
// checking is served without one; reflection needs one unless the server
// makes it public.
func TestItem12HealthAndReflection(t *testing.T) {
	ctx := context.Background()
	tokens, err := service.ParseTokens("tokens", []byte(tokenAll+" * admin\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, public := range []bool{false, true} {
		dir := t.TempDir()
		sock := filepath.Join(dir, "s")
		opts := []service.Option{service.WithTokens(tokens)}
		if public {
			opts = append(opts, service.WithPublicReflection())
		}
		serve(t, listenUnix(t, sock), testDB(t), opts...)
		conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		r, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		if err != nil || r.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("health without a token = %v, %v; want SERVING", r.GetStatus(), err)
		}
		stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil && !errors.Is(err, context.Canceled) {
			t.Logf("Send() = %v", err)
		}
		_, err = stream.Recv()
		if public && err != nil {
			t.Fatalf("public reflection without a token = %v", err)
		}
		if !public && status.Code(err) != codes.Unauthenticated {
			t.Fatalf("reflection without a token = %v, want Unauthenticated", err)
		}
		// The cc API itself still needs a token.
		if _, err := ccv1.NewProjectServiceClient(conn).GetState(ctx, &ccv1.GetStateRequest{Project: "p"}); status.Code(err) != codes.Unauthenticated {
			t.Fatalf("GetState() without a token = %v, want Unauthenticated", err)
		}
	}
}

// TestItem12LeaseIDNotShown: issue 8 item 12. No one but the holder learns
// a lease's id: not from a refused Lock, nor from GetState.
func TestItem12LeaseIDNotShown(t *testing.T) {
	ctx := context.Background()
	c := openRaw(t, "")
	l, _, err := c.Lock(ctx, "p", service.Holder{User: "alice", Host: "h"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil || st.Lock == nil || st.Lock.ID != "" || st.Lock.Holder.User != "alice" {
		t.Fatalf("GetState().Lock = %+v, %v; want alice's lease without its id", st.Lock, err)
	}
	_, _, err = c.Lock(ctx, "p", service.Holder{User: "bob", Host: "h"}, 0)
	var le *service.LockedError
	if !errors.As(err, &le) || le.Lease.ID != "" || strings.Contains(err.Error(), l.ID) {
		t.Fatalf("Lock(bob) = %v, want a refusal without alice's lease id", err)
	}
	if err := c.Unlock(ctx, "p", "not-it"); !errors.As(err, &le) || le.Lease.ID != "" {
		t.Fatalf("Unlock(wrong lease) = %v, want a refusal without alice's lease id", err)
	}
}
