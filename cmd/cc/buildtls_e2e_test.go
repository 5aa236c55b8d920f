package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"cc.dev/cc/buildkit"
	"cc.dev/cc/buildkit/buildkittest"
)

// tlsProject is a one-image project for TestE2EBuildTLS.
const tlsProject = `package tls

project: "tls"

images: hello: {
	from: "busybox:1.36"
	steps: [{run: commands: ["echo built over TLS > /hello.txt"]}]
}
`

// TestE2EBuildTLS: cc build builds and pushes through a shared buildkitd
// of the test's own on tcp://127.0.0.1 that verifies client certificates
// (buildkitd --tlscacert --tlscert --tlskey), with the client certificate
// given by flags, and by $CC_BUILDKIT_TLS_DIR with $BUILDKIT_HOST; a
// client without a certificate, with one from another CA, or without TLS
// is refused with an error that says so (issue 14: a shared BuildKit).
func TestE2EBuildTLS(t *testing.T) {
	env := buildkittest.Setup(t)
	bin := buildkittest.Buildkitd(t)
	certs := t.TempDir()
	ca := buildkittest.NewCA(t, certs, "team")
	d := env.StartTLS(t, bin, ca)
	cert, key := ca.Client(t, "alice")
	other := buildkittest.NewCA(t, certs, "other")
	otherCert, otherKey := other.Client(t, "mallory")

	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.cue"), []byte(tlsProject), 0o644); err != nil {
		t.Fatal(err)
	}
	repo := env.Registry + "/e2e/tls-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	build := func(want int, args ...string) (string, string) {
		t.Helper()
		args = append(append([]string{"build", "--progress", "plain", "--push", repo}, args...), dir)
		rc, stdout, stderr := ccRun(t, args...)
		if rc != want {
			b, _ := os.ReadFile(d.Log)
			t.Fatalf("cc %s = %d, want %d\n%s%s\nbuildkitd:\n%s", strings.Join(args, " "), rc, want, stdout, stderr, b)
		}
		return stdout, stderr
	}

	withCert := []string{"--buildkit", d.Addr, "--buildkit-tls-ca", ca.File, "--buildkit-tls-cert", cert, "--buildkit-tls-key", key}
	stdout, _ := build(exitOK, withCert...)
	if !strings.Contains(stdout, "image.hello: built "+repo+":cc-") {
		t.Fatalf("build over TLS printed %q, want image.hello built", stdout)
	}
	ref := strings.Fields(stdout[strings.Index(stdout, repo):])[0]
	if _, err := (&buildkit.Registry{}).Image(context.Background(), ref); err != nil {
		t.Errorf("the image built over TLS is not in the registry: %v", err)
	}

	tlsDir := filepath.Join(certs, "client")
	os.Mkdir(tlsDir, 0o755)
	for from, to := range map[string]string{ca.File: "ca.pem", cert: "cert.pem", key: "key.pem"} {
		b, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(tlsDir, to), b, 0o600)
	}
	t.Setenv("BUILDKIT_HOST", d.Addr)
	t.Setenv("CC_BUILDKIT_TLS_DIR", tlsDir)
	if stdout, _ := build(exitOK, "--force"); !strings.Contains(stdout, "image.hello: built "+ref) {
		t.Errorf("build with $CC_BUILDKIT_TLS_DIR printed %q, want image.hello built as %s", stdout, ref)
	}
	t.Setenv("CC_BUILDKIT_TLS_DIR", "")

	refused := "no buildkitd accepted a TLS connection at " + d.Addr
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"no client certificate", []string{"--buildkit-tls-ca", ca.File}, refused},
		{"certificate of another CA", []string{"--buildkit-tls-ca", ca.File, "--buildkit-tls-cert", otherCert, "--buildkit-tls-key", otherKey}, refused},
		{"no TLS", nil, "no buildkitd at " + d.Addr + " (start one, or name it with --buildkit or BUILDKIT_HOST; a buildkitd that requires TLS needs --buildkit-tls-ca"},
	} {
		_, stderr := build(exitError, append([]string{"--force"}, tc.args...)...)
		if !strings.Contains(stderr, tc.want) {
			t.Errorf("%s: cc build said %q, want %q", tc.name, stderr, tc.want)
		}
		if strings.Contains(stderr, "PRIVATE KEY") {
			t.Errorf("%s: cc build printed a key: %q", tc.name, stderr)
		}
	}
}
