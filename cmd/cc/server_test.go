package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestServerUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--tls-cert", "cert.pem"},
		{"--sync", "sometimes"},
		{"--log-format", "xml"},
		{"--max-blob-size", "big"},
		{"--max-blob-size", "0"},
		{"--max-uploads-per-token", "0"},
		{"extra"},
	} {
		var stdout, stderr bytes.Buffer
		e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: os.Getenv}
		if rc := commands["server"].run(e, args); rc != exitUsage {
			t.Errorf("cc server %v = %d, want %d; stderr:\n%s", args, rc, exitUsage, stderr.String())
		}
	}
}

func TestServerServesUntilCanceled(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "cc.sock")
	tokens := filepath.Join(dir, "tokens")
	const token = "a-token-for-the-demo-project"
	if err := os.WriteFile(tokens, []byte(token+" demo ci\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stdout, stderr syncBuffer
	e := &env{ctx: ctx, stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: os.Getenv}
	done := make(chan int, 1)
	go func() {
		done <- commands["server"].run(e, []string{"--listen", "unix://" + sock, "--db", filepath.Join(dir, "state.db"), "--tokens", tokens, "--log-format", "json"})
	}()

	c, err := service.Dial("unix://"+sock, service.WithToken(token))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	deadline := time.Now().Add(time.Minute)
	for {
		err := c.Ping(ctx)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cc server does not answer: %v\n%s", err, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	h, b, err := schema.HashOf(map[string]any{"size": "1Gi"})
	if err != nil {
		t.Fatal(err)
	}
	lease, _, err := c.Lock(ctx, "demo", service.Holder{User: "u", Host: "h"}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Apply(ctx, service.ApplyRequest{Project: "demo", Address: "volume.v", Action: service.ActionCreate, Spec: b, Hash: h, LeaseID: lease.ID}); err != nil {
		t.Fatalf("Apply() = %v", err)
	}
	if _, err := c.GetState(ctx, "other"); !errors.Is(err, service.ErrPermissionDenied) {
		t.Fatalf("GetState(other) = %v, want permission denied", err)
	}

	cancel()
	if rc := <-done; rc != exitOK {
		t.Fatalf("cc server = %d, want %d; stderr:\n%s", rc, exitOK, stderr.String())
	}
	logs := stderr.String()
	for _, want := range []string{`"msg":"serving"`, `"method":"/cc.v1.ResourceService/ApplyResource"`, `"token":"ci"`, `"code":"PermissionDenied"`, `"msg":"stopped"`} {
		if !strings.Contains(logs, want) {
			t.Errorf("logs lack %s:\n%s", want, logs)
		}
	}
	if strings.Contains(logs, token) {
		t.Errorf("logs show the token:\n%s", logs)
	}
}

// TestItem12ServerRefusesPlainTokensOnTheNetwork: issue 8 item 12. With
// --tokens and no TLS, cc server refuses a listen address other than
// loopback unless --insecure is given; health checks need no token.
func TestItem12ServerRefusesPlainTokensOnTheNetwork(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens")
	if err := os.WriteFile(tokens, []byte("a-token-for-the-demo-project demo ci\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr syncBuffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: os.Getenv}
	rc := commands["server"].run(e, []string{"--listen", "0.0.0.0:0", "--db", filepath.Join(dir, "a.db"), "--tokens", tokens})
	if rc != exitError || !strings.Contains(stderr.String(), "--insecure") || !strings.Contains(stderr.String(), "--tls-cert") {
		t.Fatalf("cc server --tokens on 0.0.0.0 without TLS = %d, want %d naming --tls-cert and --insecure; stderr:\n%s", rc, exitError, stderr.String())
	}

	// With --insecure it serves, and health needs no token.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs syncBuffer
	e = &env{ctx: ctx, stdin: strings.NewReader(""), stdout: &stdout, stderr: &logs, getenv: os.Getenv}
	done := make(chan int, 1)
	go func() {
		done <- commands["server"].run(e, []string{"--listen", "0.0.0.0:0", "--db", filepath.Join(dir, "b.db"), "--tokens", tokens, "--insecure", "--log-format", "json"})
	}()
	var addr string
	deadline := time.Now().Add(time.Minute)
	for addr == "" {
		if time.Now().After(deadline) {
			t.Fatalf("cc server does not serve:\n%s", logs.String())
		}
		if _, rest, ok := strings.Cut(logs.String(), `"listen":"`); ok {
			addr, _, _ = strings.Cut(rest, `"`)
		}
		time.Sleep(10 * time.Millisecond)
	}
	c, err := service.Dial("127.0.0.1:" + addr[strings.LastIndexByte(addr, ':')+1:])
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if err := c.Ping(ctx); err != nil {
		t.Fatalf("Ping() without a token = %v, want served", err)
	}
	cancel()
	if rc := <-done; rc != exitOK {
		t.Fatalf("cc server --insecure = %d; stderr:\n%s", rc, logs.String())
	}
}
