package buildkit

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/moby/buildkit/client"
)

// TLS is how a Builder reaches a shared buildkitd over tcp:// with TLS
// (issue 14: a shared BuildKit). The fields mean what buildctl's
// --tlscacert, --tlscert, --tlskey and --tlsservername mean, and they are
// passed to BuildKit's own client options (client.WithServerConfig,
// client.WithCredentials).
type TLS struct {
	// CA is a PEM file of the certificates that buildkitd's certificate
	// is checked against; "" is the system's roots.
	CA string
	// Cert and Key are the PEM files of the client certificate and its
	// private key, which a buildkitd started with --tlscacert requires;
	// both or neither.
	Cert, Key string
	// ServerName is the name buildkitd's certificate must hold; "" is
	// the address's host.
	ServerName string
}

// IsZero reports whether t asks for no TLS at all.
func (t TLS) IsZero() bool { return t == TLS{} }

// TLSDir returns the TLS files in dir as buildctl's --tlsdir finds them:
// ca.pem or ca.crt, cert.pem or tls.crt, key.pem or tls.key.
func TLSDir(dir string) (TLS, error) {
	var t TLS
	for _, f := range []struct {
		to         *string
		either, or string
	}{{&t.CA, "ca.pem", "ca.crt"}, {&t.Cert, "cert.pem", "tls.crt"}, {&t.Key, "key.pem", "tls.key"}} {
		p, err := oneOf(dir, f.either, f.or)
		if err != nil {
			return TLS{}, err
		}
		*f.to = p
	}
	return t, nil
}

func oneOf(dir, either, or string) (string, error) {
	for _, name := range []string{either, or} {
		p := filepath.Join(dir, name)
		_, err := os.Stat(p)
		if err == nil {
			return p, nil
		}
		if !errors.Is(err, os.ErrNotExist) {
			return "", err
		}
	}
	return "", fmt.Errorf("TLS directory %s has neither %s nor %s", dir, either, or)
}

// Check checks, before anything connects, that t can be used to reach
// the buildkitd at addr: a tcp:// address, a certificate with its key,
// files that read and hold PEM certificates and a key that matches.
func (t TLS) Check(addr string) error {
	if t.IsZero() {
		return nil
	}
	if addr == "" {
		addr = DefaultAddress
	}
	if u, err := url.Parse(addr); err != nil || u.Scheme != "tcp" || u.Host == "" {
		return fmt.Errorf("TLS needs a tcp://HOST:PORT address of buildkitd, not %q", addr)
	}
	if (t.Cert == "") != (t.Key == "") {
		return errors.New("a client certificate needs its key, and a key its certificate: give both or neither")
	}
	if t.CA != "" {
		if err := checkCA(t.CA); err != nil {
			return err
		}
	}
	if t.Cert != "" {
		if _, err := tls.LoadX509KeyPair(t.Cert, t.Key); err != nil {
			return fmt.Errorf("client certificate %s with key %s: %w", t.Cert, t.Key, err)
		}
	}
	return nil
}

// checkCA checks that file holds at least one PEM certificate.
func checkCA(file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return fmt.Errorf("CA certificate: %w", err)
	}
	if !x509.NewCertPool().AppendCertsFromPEM(b) {
		return fmt.Errorf("CA certificate %s: no PEM certificate in it", file)
	}
	return nil
}

// clientOptions are BuildKit's client options for t at addr: the server
// name defaults to the address's host, as buildctl's does, and without a
// CA file buildkitd's certificate is checked against the system's roots.
func (t TLS) clientOptions(addr string) []client.ClientOpt {
	if t.IsZero() {
		return nil
	}
	name := t.ServerName
	if u, err := url.Parse(addr); err == nil && name == "" {
		name = u.Hostname()
	}
	opts := []client.ClientOpt{client.WithServerConfigSystem(name)}
	if t.CA != "" {
		opts = []client.ClientOpt{client.WithServerConfig(name, t.CA)}
	}
	if t.Cert != "" || t.Key != "" {
		opts = append(opts, client.WithCredentials(t.Cert, t.Key))
	}
	return opts
}

// WithTLS has the Builder reach buildkitd over TLS, presenting the client
// certificate when t has one. Check t first: a Builder reports a bad t
// only when it connects.
func WithTLS(t TLS) Option { return func(b *Builder) { b.tls = t } }

// dialError says why buildkitd at b.addr could not be reached; over TLS,
// the error says so, since a refused certificate looks like no daemon.
func (b *Builder) dialError(err error) error {
	if !b.tls.IsZero() {
		return fmt.Errorf("no buildkitd accepted a TLS connection at %s (check the address and the certificates: --buildkit-tls-ca, --buildkit-tls-cert, --buildkit-tls-key): %w", b.addr, err)
	}
	hint := ""
	if strings.HasPrefix(b.addr, "tcp://") {
		hint = "; a buildkitd that requires TLS needs --buildkit-tls-ca, --buildkit-tls-cert and --buildkit-tls-key"
	}
	return fmt.Errorf("no buildkitd at %s (start one, or name it with --buildkit or BUILDKIT_HOST%s): %w", b.addr, hint, err)
}
