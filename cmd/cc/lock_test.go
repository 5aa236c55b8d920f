package main

import (
	"bytes"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"cc.dev/cc/schema"
)

// ccRun runs cc in-process and returns its exit code, stdout and stderr.
func ccRun(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	rc := run(args, strings.NewReader(""), &stdout, &stderr)
	return rc, stdout.String(), stderr.String()
}

// copyDir copies a project into a temporary directory.
func copyDir(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestLockThenOffline: cc lock pins the quickstart's base through a
// registry on 127.0.0.1 (as a docker.io mirror); with the registry gone,
// an offline compile works from cc.lock alone, and fails naming the base
// once its entry is removed.
func TestLockThenOffline(t *testing.T) {
	srv := httptest.NewServer(registry.New())
	host := strings.TrimPrefix(srv.URL, "http://")
	img, err := random.Image(64, 1)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := name.ParseReference(host + "/library/python:3.12-slim")
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.Write(ref, img); err != nil {
		t.Fatal(err)
	}
	want, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	dir := copyDir(t, filepath.Join("..", "..", "examples", "quickstart"))
	main := filepath.Join(dir, "main.cue")
	os.Remove(filepath.Join(dir, schema.LockFile))

	rc, stdout, stderr := ccRun(t, "lock", "--registry-mirror", "docker.io="+host, main)
	if rc != 0 {
		t.Fatalf("cc lock = %d\n%s%s", rc, stdout, stderr)
	}
	if !strings.Contains(stdout, "locked python:3.12-slim@"+want.String()) {
		t.Errorf("cc lock printed %q, want it to name the locked base", stdout)
	}
	b, err := os.ReadFile(filepath.Join(dir, schema.LockFile))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := schema.ParseLock(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := lock.Bases["python:3.12-slim"]; got != want.String() {
		t.Fatalf("cc.lock has python:3.12-slim = %q, want %s", got, want)
	}

	// Locking again changes nothing and needs no registry.
	srv.Close()
	if rc, stdout, stderr := ccRun(t, "lock", main); rc != 0 || strings.Contains(stdout, "locked ") {
		t.Errorf("second cc lock = %d, %q, %q; want 0 and nothing newly locked", rc, stdout, stderr)
	}

	offline := []string{"compile", "--offline", main}
	if commands["plan"] != nil {
		offline = []string{"plan", "--offline", main}
	}
	if rc, stdout, stderr := ccRun(t, offline...); rc != 0 {
		t.Fatalf("cc %s with cc.lock and no registry = %d\n%s%s", strings.Join(offline, " "), rc, stdout, stderr)
	}

	lock.Bases = map[string]string{}
	if err := os.WriteFile(filepath.Join(dir, schema.LockFile), lock.Marshal(), 0o644); err != nil {
		t.Fatal(err)
	}
	rc, _, stderr = ccRun(t, offline...)
	if rc == 0 || !strings.Contains(stderr, "python:3.12-slim") || !strings.Contains(stderr, "main.cue:") {
		t.Errorf("cc %s without the lock entry = %d, %q; want a failure naming the base at its position", strings.Join(offline, " "), rc, stderr)
	}
}

func TestLockInsecureRegistryAndErrors(t *testing.T) {
	dir := copyDir(t, filepath.Join("..", "..", "examples", "quickstart"))
	rc, _, stderr := ccRun(t, "lock", "--registry-mirror", "docker.io", filepath.Join(dir, "main.cue"))
	if rc != exitUsage || !strings.Contains(stderr, "REGISTRY=HOST") {
		t.Errorf("cc lock with a bad --registry-mirror = %d, %q", rc, stderr)
	}
	// An unreachable registry fails with the reference named.
	rc, _, stderr = ccRun(t, "lock", "--registry-mirror", "docker.io=127.0.0.1:1", filepath.Join(dir, "main.cue"))
	if rc != exitError || !strings.Contains(stderr, "python:3.12-slim") {
		t.Errorf("cc lock with no registry = %d, %q; want 1 naming the base", rc, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, schema.LockFile)); err == nil {
		t.Errorf("a failed cc lock wrote cc.lock")
	}
}
