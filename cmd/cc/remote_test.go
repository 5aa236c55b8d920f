package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"cc.dev/cc/internal/servicetest"
	"cc.dev/cc/service"
)

// TestRemoteServer: --server with TLS (--ca) and a token ($CC_TOKEN), as a
// team's CI would use cc server; nothing is kept in .cc of the project.
func TestRemoteServer(t *testing.T) {
	dir := fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-remote")
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "cc-server"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	const token = "ci-runner-token-0123456789abcdef"
	tokens, err := service.ParseTokens("tokens", []byte(token+" support-bot ci\n"))
	if err != nil {
		t.Fatal(err)
	}
	db, opts := serviceDB(t, service.WithTokens(tokens), service.WithTLS(&tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}))
	srv, err := service.Open(context.Background(), db, opts...)
	if err != nil {
		t.Fatal(err)
	}
	addr := servicetest.ServeTCP(t, srv)

	t.Setenv("CC_TOKEN", "")
	if _, errs := mustCC(t, 1, "plan", "--server", addr, "--ca", caFile, "main.hcl"); !strings.Contains(errs, "cc plan: read the state of project support-bot: no bearer token") || !strings.Contains(errs, "(cc sends $CC_TOKEN as its token)") {
		t.Errorf("without a token:\n%s", errs)
	}
	t.Setenv("CC_TOKEN", token)
	t.Setenv("CC_SERVER", addr)
	out, _ := mustCC(t, 0, "apply", "--auto-approve", "--ca", caFile, "main.hcl")
	if !strings.Contains(out, "Apply complete: 6 created") {
		t.Fatalf("apply:\n%s", out)
	}
	mustCC(t, 0, "plan", "--out", "p.plan", "--ca", caFile, "main.hcl")
	if out, _ := mustCC(t, 0, "plan", "--detailed-exitcode", "--ca", caFile, "main.hcl"); !strings.HasPrefix(out, "No changes.") {
		t.Errorf("plan:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cc", "state.db")); err == nil {
		t.Error("an embedded state was made although a server was named")
	}
	// Without --ca the server's certificate is not trusted.
	if _, errs := mustCC(t, 1, "plan", "--tls", "main.hcl"); !strings.Contains(errs, "certificate") {
		t.Errorf("--tls without the CA:\n%s", errs)
	}
	if _, errs := mustCC(t, 1, "plan", "--ca", filepath.Join(dir, "main.hcl"), "main.hcl"); !strings.Contains(errs, "no PEM certificate") {
		t.Errorf("--ca of a non-certificate:\n%s", errs)
	}
}
