package servicetest

import (
	"net"
	"testing"

	"cc.dev/cc/service"
)

// ServeTCP serves srv on a free loopback port until the test ends, when
// it is closed, and returns the address.
func ServeTCP(t testing.TB, srv *service.Server) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(func() { srv.Close() })
	return lis.Addr().String()
}
