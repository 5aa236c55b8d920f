package buildkit

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/buildkit/buildkittest"
)

// TestTLSClientOptions: WithTLS hands the CA, the client certificate and
// the server name to BuildKit's client, so a buildkitd that verifies
// clients accepts the right certificate and refuses the rest with an
// error that names TLS (issue 14: a shared BuildKit).
func TestTLSClientOptions(t *testing.T) {
	dir := t.TempDir()
	ca := buildkittest.NewCA(t, dir, "team")
	addr := buildkittest.TLSControl(t, ca)
	cert, key := ca.Client(t, "alice")
	other := buildkittest.NewCA(t, dir, "other")
	otherCert, otherKey := other.Client(t, "mallory")
	for _, tc := range []struct {
		name string
		tls  TLS
		want string // "" connects
	}{
		{"client certificate", TLS{CA: ca.File, Cert: cert, Key: key}, ""},
		{"server name", TLS{CA: ca.File, Cert: cert, Key: key, ServerName: "localhost"}, ""},
		{"no client certificate", TLS{CA: ca.File}, "no buildkitd accepted a TLS connection at " + addr},
		{"certificate of another CA", TLS{CA: ca.File, Cert: otherCert, Key: otherKey}, "no buildkitd accepted a TLS connection"},
		{"server of another CA", TLS{CA: other.File, Cert: cert, Key: key}, "x509"},
		{"wrong server name", TLS{CA: ca.File, Cert: cert, Key: key, ServerName: "buildkit.example"}, "buildkit.example"},
		{"plain text", TLS{}, "no buildkitd at " + addr + " (start one, or name it with --buildkit or BUILDKIT_HOST; a buildkitd that requires TLS needs --buildkit-tls-ca"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := New(addr, WithTLS(tc.tls))
			defer b.Close()
			_, err := b.dial(context.Background())
			if tc.want == "" {
				if err != nil {
					t.Fatalf("dial() = %v, want connected", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("dial() = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// TestTLSCheck: bad TLS settings are refused before anything connects,
// saying what is wrong (issue 14: a shared BuildKit).
func TestTLSCheck(t *testing.T) {
	dir := t.TempDir()
	ca := buildkittest.NewCA(t, dir, "team")
	cert, key := ca.Client(t, "alice")
	_, otherKey := ca.Client(t, "bob")
	junk := filepath.Join(dir, "junk.pem")
	if err := os.WriteFile(junk, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	const tcp = "tcp://127.0.0.1:1234"
	for _, tc := range []struct {
		name, addr string
		tls        TLS
		want       string // "" is fine
	}{
		{"no TLS", "unix:///run/buildkit/buildkitd.sock", TLS{}, ""},
		{"complete", tcp, TLS{CA: ca.File, Cert: cert, Key: key, ServerName: "buildkit"}, ""},
		{"CA only", tcp, TLS{CA: ca.File}, ""},
		{"unix address", "unix:///run/buildkit/buildkitd.sock", TLS{CA: ca.File}, `TLS needs a tcp://HOST:PORT address of buildkitd, not "unix:///run/buildkit/buildkitd.sock"`},
		{"default address", "", TLS{ServerName: "x"}, "not \"" + DefaultAddress + "\""},
		{"cert without key", tcp, TLS{Cert: cert}, "a client certificate needs its key"},
		{"key without cert", tcp, TLS{Key: key}, "a client certificate needs its key"},
		{"missing CA", tcp, TLS{CA: filepath.Join(dir, "nope.pem")}, "nope.pem: no such file"},
		{"CA not PEM", tcp, TLS{CA: junk}, "junk.pem: no PEM certificate"},
		{"missing cert", tcp, TLS{Cert: filepath.Join(dir, "nope.pem"), Key: key}, "nope.pem"},
		{"key of another cert", tcp, TLS{Cert: cert, Key: otherKey}, "does not match"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.tls.Check(tc.addr)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Check(%q) = %v, want nil", tc.addr, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Check(%q) = %v, want an error with %q", tc.addr, err, tc.want)
			}
		})
	}
}

// TestTLSDir: a directory is read as buildctl's --tlsdir reads it.
func TestTLSDir(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"ca.crt", "tls.crt", "tls.key", "cert.pem"} {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	got, err := TLSDir(dir)
	want := TLS{CA: filepath.Join(dir, "ca.crt"), Cert: filepath.Join(dir, "cert.pem"), Key: filepath.Join(dir, "tls.key")}
	if err != nil || got != want {
		t.Fatalf("TLSDir() = %+v, %v, want %+v", got, err, want)
	}
	os.Remove(filepath.Join(dir, "tls.key"))
	if _, err := TLSDir(dir); err == nil || !strings.Contains(err.Error(), "neither key.pem nor tls.key") {
		t.Fatalf("TLSDir() without a key = %v", err)
	}
}
