package service_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"cc.dev/cc/service"
)

// lockedBuffer is a log sink safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return bytes.Clone(l.b.Bytes())
}

// TestCanarySecretNeverStoredOrShown puts a canary value through every path
// a value takes and looks for it, and for its hex and base64 forms, in the
// raw bytes of the database, its WAL and shared-memory files, the logs and
// every response.
func TestCanarySecretNeverStoredOrShown(t *testing.T) {
	ctx := context.Background()
	rnd := make([]byte, 12)
	rand.Read(rnd)
	canary := "canary-" + hex.EncodeToString(rnd)

	dir := t.TempDir()
	db := testDB(t)
	var logs lockedBuffer
	var responses lockedBuffer
	record := grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		err := invoker(ctx, method, req, reply, cc, opts...)
		if m, ok := reply.(proto.Message); ok && err == nil {
			b, _ := proto.Marshal(m)
			responses.Write(b)
		}
		if err != nil {
			responses.Write([]byte(err.Error()))
		}
		return err
	})
	srv, err := service.Open(ctx, db, withKey(db, []service.Option{service.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))})...)
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "s")
	lis := listenUnix(t, sock)
	go srv.Serve(lis)
	defer srv.Close()
	c, err := service.Dial("unix://"+sock, service.WithGRPCOptions(record, grpc.WithUnaryInterceptor(autoLease())))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()

	put := func(req service.SecretRequest) {
		t.Helper()
		res, err := c.PutSecretValue(ctx, req)
		if err != nil {
			responses.Write([]byte(err.Error()))
			return
		}
		responses.Write([]byte(fmt.Sprint(res.SecretValue)))
	}
	put(service.SecretRequest{Project: "p", Address: "secret.canary", Value: []byte(canary), IdempotencyKey: "k1"})
	put(service.SecretRequest{Project: "p", Address: "secret.canary", Value: []byte(canary), IdempotencyKey: "k1"}) // replayed
	put(service.SecretRequest{Project: "p", Address: "secret.canary", Value: []byte(canary), IdempotencyKey: "k2"}) // unchanged
	put(service.SecretRequest{Project: "p", Address: "secret.canary", Value: []byte(canary), ExpectedSerial: 99})   // refused
	put(service.SecretRequest{Project: "p", Address: "volume.canary", Value: []byte(canary)})                       // refused
	put(service.SecretRequest{Project: "p", Address: "secret.other", Value: []byte(canary + "-2")})
	if _, err := c.GetState(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Versions(ctx, "p", "secret.canary"); err != nil {
		t.Fatal(err)
	}

	forms := map[string][]byte{
		"plain": []byte(canary),
		"hex":   []byte(hex.EncodeToString([]byte(canary))),
	}
	check := func(where string, b []byte) {
		t.Helper()
		if len(b) == 0 {
			t.Errorf("%s is empty: nothing was checked", where)
		}
		for name, f := range forms {
			if bytes.Contains(b, f) {
				t.Errorf("the canary (%s) appears in %s", name, where)
			}
		}
	}
	// While the server runs, the mutations are in SQLite's WAL; on
	// PostgreSQL, in its tables (issue 14).
	stored := storedBytes(t, db)
	if !service.IsPostgres(db) && len(stored) != 3 {
		t.Fatalf("files of the database: %d, want state.db, -wal and -shm", len(stored))
	}
	for where, b := range stored {
		check(where, b)
	}
	check("the logs", logs.Bytes())
	check("the responses", responses.Bytes())
	if !bytes.Contains(logs.Bytes(), []byte("PutSecretValue")) {
		t.Errorf("the logs do not show the calls:\n%s", logs.Bytes())
	}

	// After a clean close the WAL is checkpointed into the database.
	c.Close()
	if err := srv.Close(); err != nil {
		t.Fatal(err)
	}
	for where, b := range storedBytes(t, db) {
		check(where+" after close", b)
	}
}
