package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/buildkit/buildkittest"
)

// TestBuildTLSUsage: cc build's --buildkit-tls-* flags (and their
// $CC_BUILDKIT_TLS_* defaults) are checked before anything is compiled,
// each error naming the flag or variable at fault (issue 14: a shared
// BuildKit).
func TestBuildTLSUsage(t *testing.T) {
	dir := t.TempDir()
	ca := buildkittest.NewCA(t, dir, "team")
	cert, key := ca.Client(t, "alice")
	_, otherKey := ca.Client(t, "bob")
	tlsDir := filepath.Join(dir, "certs")
	os.Mkdir(tlsDir, 0o755)
	os.WriteFile(filepath.Join(tlsDir, "ca.pem"), nil, 0o600)
	// The project does not exist: a TLS error comes before the compile's.
	project := filepath.Join(dir, "no-such-project")
	tcp := []string{"--buildkit", "tcp://127.0.0.1:1234"}
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"cert without key", nil, append(tcp, "--buildkit-tls-cert", cert), "--buildkit-tls-cert needs --buildkit-tls-key"},
		{"key without cert", nil, append(tcp, "--buildkit-tls-key", key), "--buildkit-tls-key needs --buildkit-tls-cert"},
		{"default unix address", nil, []string{"--buildkit-tls-ca", ca.File}, `--buildkit-tls-ca needs a tcp://HOST:PORT BuildKit address (--buildkit or $BUILDKIT_HOST), not "unix:///run/buildkit/buildkitd.sock"`},
		{"unix address", nil, []string{"--buildkit", "unix:///tmp/b.sock", "--buildkit-tls-cert", cert, "--buildkit-tls-key", key}, `--buildkit-tls-cert, --buildkit-tls-key needs a tcp://HOST:PORT BuildKit address`},
		{"unix BUILDKIT_HOST, CA from the environment", map[string]string{"BUILDKIT_HOST": "unix:///tmp/b.sock", "CC_BUILDKIT_TLS_CA": ca.File}, nil, `$CC_BUILDKIT_TLS_CA needs a tcp://HOST:PORT BuildKit address (--buildkit or $BUILDKIT_HOST), not "unix:///tmp/b.sock"`},
		{"cert from the environment without key", map[string]string{"CC_BUILDKIT_TLS_CERT": cert}, tcp, "$CC_BUILDKIT_TLS_CERT needs --buildkit-tls-key"},
		{"unreadable CA", nil, append(tcp, "--buildkit-tls-ca", filepath.Join(dir, "nope.pem")), "CA certificate: open " + filepath.Join(dir, "nope.pem") + ": no such file or directory"},
		{"CA that is no certificate", nil, append(tcp, "--buildkit-tls-ca", key), "CA certificate " + key + ": no PEM certificate in it"},
		{"unreadable cert", nil, append(tcp, "--buildkit-tls-cert", filepath.Join(dir, "nope.pem"), "--buildkit-tls-key", key), "client certificate " + filepath.Join(dir, "nope.pem") + " with key " + key + ": open"},
		{"key of another certificate", nil, append(tcp, "--buildkit-tls-cert", cert, "--buildkit-tls-key", otherKey), "private key does not match public key"},
		{"directory and files", nil, append(tcp, "--buildkit-tls-dir", tlsDir, "--buildkit-tls-ca", ca.File), "--buildkit-tls-dir and --buildkit-tls-ca: give a TLS directory or its files, not both"},
		{"directory, server name and files", map[string]string{"CC_BUILDKIT_TLS_KEY": key}, append(tcp, "--buildkit-tls-dir", tlsDir, "--buildkit-tls-server-name", "b", "--buildkit-tls-cert", cert), "--buildkit-tls-dir and --buildkit-tls-cert, $CC_BUILDKIT_TLS_KEY: give a TLS directory or its files, not both"},
		{"directory without a cert", nil, append(tcp, "--buildkit-tls-dir", tlsDir), "--buildkit-tls-dir: TLS directory " + tlsDir + " has neither cert.pem nor tls.crt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			args := append(append([]string{"build"}, tc.args...), project)
			rc, _, stderr := ccRun(t, args...)
			if rc != exitUsage || !strings.HasPrefix(stderr, "cc build: ") || !strings.Contains(stderr, tc.want) {
				t.Errorf("cc %q = %d, %q; want %d and %q", args, rc, stderr, exitUsage, tc.want)
			}
			if strings.Contains(stderr, "PRIVATE KEY") {
				t.Errorf("cc %q printed a key: %q", args, stderr)
			}
		})
	}
}

// TestBuildTLSPrintReachesNoDaemon: --print needs no daemon, so TLS
// settings from the environment do not stand in its way.
func TestBuildTLSPrintReachesNoDaemon(t *testing.T) {
	t.Setenv("CC_BUILDKIT_TLS_CERT", "/nonexistent/cert.pem")
	qs := filepath.Join("..", "..", "examples", "quickstart", "main.cue")
	if rc, _, stderr := ccRun(t, "build", "--print", qs); rc != exitOK {
		t.Errorf("cc build --print with $CC_BUILDKIT_TLS_CERT = %d, %s", rc, stderr)
	}
}

// TestBuildTLSWiring: the flags reach BuildKit's client. A control API
// that requires a client certificate of its CA (and can list workers,
// nothing more) accepts cc build's connection with --buildkit-tls-dir, so
// the build gets as far as solving, and refuses it without the
// certificate, saying TLS (issue 14: a shared BuildKit).
func TestBuildTLSWiring(t *testing.T) {
	dir := t.TempDir()
	ca := buildkittest.NewCA(t, dir, "team")
	addr := buildkittest.TLSControl(t, ca)
	cert, key := ca.Client(t, "alice")
	certs := filepath.Join(dir, "client")
	os.Mkdir(certs, 0o755)
	for from, to := range map[string]string{ca.File: "ca.pem", cert: "cert.pem", key: "key.pem"} {
		os.Rename(from, filepath.Join(certs, to))
	}
	qs := copyDir(t, filepath.Join("..", "..", "examples", "quickstart"))
	out := filepath.Join(t.TempDir(), "app.tar")
	build := func(tls ...string) string {
		t.Helper()
		args := append([]string{"build", "--buildkit", addr, "--progress", "quiet", "--output", "type=oci,dest=" + out}, tls...)
		rc, _, stderr := ccRun(t, append(args, filepath.Join(qs, "main.cue"), "image.app")...)
		if rc != exitError {
			t.Fatalf("cc %q = %d, want %d: %s", args, rc, exitError, stderr)
		}
		return stderr
	}
	if stderr := build("--buildkit-tls-dir", certs); strings.Contains(stderr, "no buildkitd") || !strings.Contains(stderr, "Unimplemented") {
		t.Errorf("with the client certificate, cc build said %q; want it connected and refused the solve", stderr)
	}
	if stderr := build("--buildkit-tls-ca", filepath.Join(certs, "ca.pem")); !strings.Contains(stderr, "no buildkitd accepted a TLS connection at "+addr) {
		t.Errorf("without the client certificate, cc build said %q; want a refused TLS connection", stderr)
	}
}
