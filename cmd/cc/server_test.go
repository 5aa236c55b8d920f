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
	if _, err := c.Apply(ctx, service.ApplyRequest{Project: "demo", Address: "volume.v", Action: service.ActionCreate, Spec: b, Hash: h}); err != nil {
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
