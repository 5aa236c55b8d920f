package buildkittest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"testing"

	controlapi "github.com/moby/buildkit/api/services/control"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
)

// workers answers ListWorkers, the call a Builder makes when it connects.
type workers struct {
	controlapi.UnimplementedControlServer
}

func (workers) ListWorkers(context.Context, *controlapi.ListWorkersRequest) (*controlapi.ListWorkersResponse, error) {
	return &controlapi.ListWorkersResponse{}, nil
}

// TLSControl serves BuildKit's control API on 127.0.0.1 over TLS with the
// certificate of ca, requiring a client certificate that ca signed, as
// buildkitd --tlscacert does; it returns the tcp:// address. It answers
// ListWorkers, and nothing else: enough to check how a client connects.
func TLSControl(t testing.TB, ca *CA) string {
	t.Helper()
	certFile, keyFile := ca.Server(t, "server")
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		t.Fatal(err)
	}
	pem, err := os.ReadFile(ca.File)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	s := grpc.NewServer(grpc.Creds(credentials.NewTLS(&tls.Config{
		Certificates: []tls.Certificate{cert},
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
	})))
	controlapi.RegisterControlServer(s, workers{})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go s.Serve(l)
	t.Cleanup(s.Stop)
	return "tcp://" + l.Addr().String()
}
