package main

import (
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// closedPort is the testscript command `closedport VAR`: it sets VAR to
// 127.0.0.1:PORT, a port that was just listened on and closed, where
// nothing listens (issue 12: an unreachable --server).
func closedPort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: closedport VAR")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ts.Fatalf("listen: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	ts.Setenv(args[0], addr)
}

func init() { scriptCmds["closedport"] = closedPort }

// TestUnreachableInWords checks that an error of a server that cannot be
// reached says what was dialled, with TLS or not, what happened and what
// to check, keeps what was being done, and shows none of gRPC's text.
// Issue 12: an unreachable --server.
func TestUnreachableInWords(t *testing.T) {
	raw := errors.New(`lock project p: rpc error: code = Unavailable desc = connection error: desc = "transport: Error while dialing: dial tcp 127.0.0.1:1: connect: connection refused"`)
	for _, tc := range []struct {
		cn   conn
		want []string
	}{
		{conn{server: "127.0.0.1:1"}, []string{"lock project p: cannot reach the cc service at 127.0.0.1:1: dialled 127.0.0.1:1 without TLS", "nothing listens", "--server"}},
		{conn{server: "127.0.0.1:1", tls: true}, []string{"with TLS"}},
		{conn{server: "unix:///run/cc.sock"}, []string{"dialled the unix socket /run/cc.sock"}},
	} {
		got := tc.cn.explain(raw).Error()
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: %q lacks %q", tc.cn.server, got, w)
			}
		}
		for _, bad := range []string{"rpc error", "desc =", "transport", "Unavailable"} {
			if strings.Contains(got, bad) {
				t.Errorf("%s: %q shows gRPC's %q", tc.cn.server, got, bad)
			}
		}
	}
}

// TestHandshakeFailureInWords checks that a TLS handshake that fails is
// said in words, with TLS's reason and what to check, without gRPC's
// text. Issue 12: an unreachable --server.
func TestHandshakeFailureInWords(t *testing.T) {
	raw := errors.New(`read the state of project p: rpc error: code = Unavailable desc = connection error: desc = "transport: authentication handshake failed: tls: first record does not look like a TLS handshake"`)
	cn := conn{server: "127.0.0.1:7433", tls: true}
	got := cn.explain(raw).Error()
	want := "read the state of project p: cannot reach the cc service at 127.0.0.1:7433: dialled 127.0.0.1:7433 with TLS, and the TLS handshake failed (tls: first record does not look like a TLS handshake). Check that it serves TLS on that address"
	if !strings.HasPrefix(got, want) {
		t.Errorf("got %q, want it to start with %q", got, want)
	}
	for _, bad := range []string{"rpc error", "desc =", "transport", "Unavailable"} {
		if strings.Contains(got, bad) {
			t.Errorf("%q shows gRPC's %q", got, bad)
		}
	}
}
