package service_test

import (
	"context"
	"crypto/tls"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"

	"cc.dev/cc/service"
)

// TestReplicaAddrs is issue 14 (several replicas): a list of replicas is
// of HOST:PORT and unix:///PATH entries, none twice; anything else is
// refused, naming the entry.
func TestReplicaAddrs(t *testing.T) {
	got, err := service.ReplicaAddrs("10.0.0.1:7433, cc-b.internal:7433,unix:///run/cc.sock,[::1]:1")
	if want := "10.0.0.1:7433 cc-b.internal:7433 unix:///run/cc.sock [::1]:1"; err != nil || strings.Join(got, " ") != want {
		t.Errorf("ReplicaAddrs() = %q, %v, want %q", got, err, want)
	}
	for list, want := range map[string]string{
		"10.0.0.1:7433,":                   `"" is not HOST:PORT or unix:///PATH`,
		"10.0.0.1:7433,10.0.0.2":           `"10.0.0.2" is not HOST:PORT`,
		"10.0.0.1:7433,dns:///b:1":         `"dns:///b:1" is not HOST:PORT`,
		"10.0.0.1:7433,:7433":              `":7433" is not HOST:PORT`,
		"10.0.0.1:7433,unix://":            `"unix://" is not HOST:PORT`,
		"10.0.0.1:7433, 10.0.0.1:7433":     "10.0.0.1:7433 is listed twice",
		"10.0.0.1:7433,a b:1":              `"a b:1" is not HOST:PORT`,
		"10.0.0.1:7433,unix:relative.sock": `"unix:relative.sock" is not HOST:PORT`,
		"10.0.0.1:7433,b:http":             `"b:http" is not HOST:PORT`,
		"10.0.0.1:7433,b:70000":            `"b:70000" is not HOST:PORT`,
	} {
		if _, err := service.ReplicaAddrs(list); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ReplicaAddrs(%q) = %v, want an error with %q", list, err, want)
		}
		if _, err := service.Dial(list); err == nil {
			t.Errorf("Dial(%q) accepted the list", list)
		}
	}
}

// TestDialReplicaListWithTLS: a client dialled to a list of two replicas
// serving TLS reaches both, each checked against its own host name in the
// list (127.0.0.1 and localhost), not the list's.
func TestDialReplicaListWithTLS(t *testing.T) {
	cert, pool := selfSigned(t)
	var addrs []string
	counts := make([]*atomic.Int64, 2)
	for i := range counts {
		counts[i] = &atomic.Int64{}
		n := counts[i]
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		serve(t, lis, "", service.WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}),
			service.WithUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
				n.Add(1)
				return next(ctx, req)
			}))
		addrs = append(addrs, lis.Addr().String())
	}
	_, port, _ := net.SplitHostPort(addrs[1])
	c, err := service.Dial(addrs[0]+",localhost:"+port, service.WithTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for deadline := time.Now().Add(10 * time.Second); counts[0].Load() == 0 || counts[1].Load() == 0; {
		if time.Now().After(deadline) {
			t.Fatalf("calls reached the replicas %d and %d times, want both", counts[0].Load(), counts[1].Load())
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := c.Ping(ctx)
		cancel()
		if err != nil {
			t.Fatalf("Ping() = %v", err)
		}
	}
}
