package service_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// selfSigned makes a certificate for 127.0.0.1 and localhost, and a pool
// that trusts it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "cc test server"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1)},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}

// serve runs a server on lis until the test ends.
func serve(t testing.TB, lis net.Listener, dbPath string, opts ...service.Option) *service.Server {
	t.Helper()
	if dbPath == "" {
		dbPath = testDB(t)
	}
	srv, err := service.Open(context.Background(), dbPath, withKey(dbPath, opts)...)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(lis)
	}()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close() = %v", err)
		}
		<-done
	})
	return srv
}

const (
	tokenA   = "token-for-project-a-0123456789"
	tokenAll = "token-for-every-project-98765"
)

// calls makes one call of every RPC about project.
var calls = []struct {
	name string
	call func(ctx context.Context, c *service.Client, project string) error
}{
	{"GetState", func(ctx context.Context, c *service.Client, p string) error { _, err := c.GetState(ctx, p); return err }},
	{"Lock", func(ctx context.Context, c *service.Client, p string) error {
		_, _, err := c.Lock(ctx, p, service.Holder{User: "u", Host: "h"}, 0)
		return err
	}},
	{"RenewLock", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.RenewLock(ctx, p, "lease", 0)
		return err
	}},
	{"Unlock", func(ctx context.Context, c *service.Client, p string) error { return c.Unlock(ctx, p, "lease") }},
	{"ForceUnlock", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.ForceUnlock(ctx, p)
		return err
	}},
	{"FindMissingBlobs", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.MissingBlobs(ctx, p, []string{blobDigest})
		return err
	}},
	{"UploadBlob", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.UploadBlob(ctx, service.BlobUpload{Project: p, Digest: blobDigest, Size: int64(len(blobData))}, bytes.NewReader(blobData))
		return err
	}},
	{"EnsureImage", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.EnsureImage(ctx, service.ImageRequest{Project: p, Address: "image.x", Spec: imageSpec, Hash: schema.Hash(imageSpec)})
		return err
	}},
	{"ApplyResource", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.Apply(ctx, service.ApplyRequest{Project: p, Address: "function.f", Action: service.ActionCreate, Spec: functionSpec, Hash: schema.Hash(functionSpec)})
		return err
	}},
	{"DeleteResource", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.Delete(ctx, service.DeleteRequest{Project: p, Address: "function.f"})
		return err
	}},
	{"ListVersions", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.Versions(ctx, p, "function.f")
		return err
	}},
	{"Rollback", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.Rollback(ctx, service.RollbackRequest{Project: p, Address: "function.f", Version: 1})
		return err
	}},
	{"PutSecretValue", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.PutSecretValue(ctx, service.SecretRequest{Project: p, Address: "secret.s", Value: []byte("v")})
		return err
	}},
	// issue 10: moves, forgetting, adoption.
	{"MoveResource", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.Move(ctx, service.MoveRequest{Project: p, From: "function.f", To: "function.g"})
		return err
	}},
	{"ForgetResource", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.Forget(ctx, service.TransferRequest{Project: p, Address: "function.f"})
		return err
	}},
	{"AdoptResource", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.Adopt(ctx, service.TransferRequest{Project: p, Address: "function.f", ID: "f"})
		return err
	}},
	// issue 12: outputs.
	{"SetOutputs", func(ctx context.Context, c *service.Client, p string) error {
		_, err := c.SetOutputs(ctx, service.SetOutputsRequest{Project: p, Outputs: []schema.Output{{Name: "url", Value: []byte(`"x"`)}}})
		return err
	}},
}

var (
	blobData     = []byte("blob")
	blobDigest   = func() string { s := sha256.Sum256(blobData); return "sha256:" + hex.EncodeToString(s[:]) }()
	imageSpec    = []byte(`{"from":"busybox"}`)
	functionSpec = func() []byte {
		_, b, err := schema.HashOf(function("main.run"))
		if err != nil {
			panic(err)
		}
		return b
	}()
)

func TestTLSAndTokens(t *testing.T) {
	ctx := context.Background()
	cert, pool := selfSigned(t)
	sumAll := sha256.Sum256([]byte(tokenAll))
	tokens, err := service.ParseTokens("tokens", []byte("# token projects name\n"+
		tokenA+" a,c alice\n"+
		"sha256:"+hex.EncodeToString(sumAll[:])+" * admin\n"))
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, lis, "", service.WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}), service.WithTokens(tokens))
	dial := func(opts ...service.DialOption) *service.Client {
		t.Helper()
		opts = append(opts, service.WithTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}),
			service.WithGRPCOptions(autoLeasing()...))
		c, err := service.Dial(lis.Addr().String(), opts...)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a := dial(service.WithToken(tokenA))
	admin := dial(service.WithToken(tokenAll))
	none := dial()
	wrong := dial(service.WithToken("not-a-token-at-all-0000"))

	for _, tc := range calls {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call(ctx, a, "b")
			var pd *service.PermissionDeniedError
			if !errors.As(err, &pd) || !errors.Is(err, service.ErrPermissionDenied) {
				t.Errorf("token A, project b: %v (%T), want a *PermissionDeniedError", err, err)
			}
			if err := tc.call(ctx, a, "a"); errors.Is(err, service.ErrPermissionDenied) || errors.Is(err, service.ErrUnauthenticated) {
				t.Errorf("token A, project a: %v, want it allowed", err)
			}
			if err := tc.call(ctx, admin, "b"); errors.Is(err, service.ErrPermissionDenied) || errors.Is(err, service.ErrUnauthenticated) {
				t.Errorf("token for *, project b: %v, want it allowed", err)
			}
			for name, c := range map[string]*service.Client{"no token": none, "unknown token": wrong} {
				err := tc.call(ctx, c, "a")
				var ua *service.UnauthenticatedError
				if !errors.As(err, &ua) || !errors.Is(err, service.ErrUnauthenticated) {
					t.Errorf("%s: %v (%T), want an *UnauthenticatedError", name, err, err)
				}
			}
		})
	}
	// issue 8 item 12: health checking needs no token, so that standard
	// probes work.
	if err := none.Ping(ctx); err != nil {
		t.Errorf("Ping() without a token = %v, want it served", err)
	}
	if err := a.Ping(ctx); err != nil {
		t.Errorf("Ping() with a token = %v", err)
	}
	// The state A's token wrote is there for A, under TLS.
	st, err := a.GetState(ctx, "a")
	if err != nil || st.Lookup("function.f") == nil {
		t.Fatalf("GetState(a) = %v, %v; want function.f", st, err)
	}
	// A plain-text client cannot talk to the TLS server.
	plain, err := service.Dial(lis.Addr().String(), service.WithToken(tokenA))
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.GetState(ctx, "a"); !errors.Is(err, service.ErrUnavailable) {
		t.Fatalf("plain-text GetState() = %v, want unavailable", err)
	}
}

// remoteListener makes every connection look as if it came from another
// machine (192.0.2.10, a documentation address: no traffic goes there).
type remoteListener struct{ net.Listener }

func (l remoteListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return remoteConn{c}, nil
}

type remoteConn struct{ net.Conn }

func (remoteConn) RemoteAddr() net.Addr {
	return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 10), Port: 40000}
}

func TestWithoutTokensOnlyLocalClients(t *testing.T) {
	ctx := context.Background()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	serve(t, remoteListener{lis}, testDB(t))
	c, err := service.Dial(lis.Addr().String(), service.WithGRPCOptions(autoLeasing()...))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for _, tc := range calls {
		if err := tc.call(ctx, c, "a"); !errors.Is(err, service.ErrUnauthenticated) {
			t.Errorf("%s from a non-local peer = %v, want unauthenticated", tc.name, err)
		}
	}

	// Loopback TCP and a unix socket are local.
	lo, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, lo, testDB(t))
	sock := filepath.Join(dir, "cc.sock")
	ul, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	serve(t, ul, testDB(t))
	for _, target := range []string{lo.Addr().String(), "unix://" + sock} {
		c, err := service.Dial(target, service.WithGRPCOptions(autoLeasing()...))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if _, err := c.Apply(ctx, applyReq(t, "a", "volume.v", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)); err != nil {
			t.Errorf("Apply() over %s = %v", target, err)
		}
	}
}

func TestParseTokens(t *testing.T) {
	for _, tt := range []struct{ name, data, want string }{
		{"short", "short a\n", "too short"},
		{"no projects", tokenA + "\n", "want TOKEN PROJECTS [NAME]"},
		{"bad project", tokenA + " Bad_Project\n", "not a project name"},
		{"bad sum", "sha256:abc a\n", "64 lowercase hex"},
		{"twice", tokenA + " a\n" + tokenA + " b\n", "listed twice"},
		{"empty", "# nothing\n", "no tokens"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := service.ParseTokens("tokens", []byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ParseTokens() = %v, want an error containing %q", err, tt.want)
			}
			if err != nil && strings.Contains(err.Error(), tokenA) {
				t.Fatalf("ParseTokens() error %q shows the token", err)
			}
		})
	}
	path := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(path, []byte(tokenA+" a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := service.LoadTokens(path); err != nil {
		t.Fatalf("LoadTokens() = %v", err)
	}
}

func listenUnix(t testing.TB, path string) net.Listener {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	return l
}
