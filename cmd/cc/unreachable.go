package main

import (
	"fmt"
	"strings"

	"cc.dev/cc/service"
)

// unreachable says in words that the service at cn.server could not be
// reached: what was tried (the address dialled, with TLS or not), what
// happened, and what to check. err is the call's error: what came before
// gRPC's transport text in its message ("lock project NAME: ") is kept,
// the transport text is not shown.
func (cn *conn) unreachable(err error) error {
	msg := err.Error()
	prefix := ""
	for _, marker := range []string{"rpc error:", "connection error:"} {
		if i := strings.Index(msg, marker); i > 0 {
			prefix = msg[:i]
			break
		}
	}
	how := "without TLS"
	if cn.tls {
		how = "with TLS"
	}
	target := "dialled " + cn.server
	if service.IsReplicaList(cn.server) {
		target = "dialled each of the replicas " + cn.server
	} else if rest, ok := strings.CutPrefix(cn.server, "unix://"); ok {
		target = "dialled the unix socket " + rest
	} else if rest, ok := strings.CutPrefix(cn.server, "unix:"); ok {
		target = "dialled the unix socket " + rest
	}
	return fmt.Errorf("%scannot reach the cc service at %s: %s %s, and %s. Check that the cc service is running there (cc server), that the address is right (--server, $CC_SERVER), and whether it serves TLS (--tls, --ca)",
		prefix, cn.server, target, how, dialOutcome(msg, cn.tls))
}

// dialOutcome is what happened to a connection, in words, by the text of
// the error gRPC gave.
func dialOutcome(msg string, tls bool) string {
	switch {
	case strings.Contains(msg, "connection refused"):
		return "the connection was refused: nothing listens at that address"
	case strings.Contains(msg, "no such host"), strings.Contains(msg, "server misbehaving"), strings.Contains(msg, "zero addresses"), strings.Contains(msg, "lookup "):
		return "the host name does not resolve"
	case strings.Contains(msg, "no such file or directory"):
		return "the socket does not exist"
	case strings.Contains(msg, "permission denied"):
		return "this user may not connect to it"
	case strings.Contains(msg, "i/o timeout"), strings.Contains(msg, "deadline"), strings.Contains(msg, "network is unreachable"), strings.Contains(msg, "no route to host"):
		return "nothing answered in time: the host is unreachable or a firewall drops the connection"
	case strings.Contains(msg, "preface"), strings.Contains(msg, "EOF"), strings.Contains(msg, "reset by peer"):
		if !tls {
			return "it closed the connection without answering: is it a server that expects TLS, or not a cc service"
		}
		return "it closed the connection without answering: is it a cc service"
	}
	return "the connection failed"
}

// tlsFailure is, for an error of a call to a --server whose TLS handshake
// failed, the reason TLS gave ("x509: certificate signed by unknown
// authority"), without gRPC's text; ok is false for any other error.
func tlsFailure(err error) (prefix, reason string, ok bool) {
	msg := err.Error()
	const marker = "authentication handshake failed: "
	i := strings.Index(msg, marker)
	if i < 0 {
		return "", "", false
	}
	reason = strings.TrimRight(msg[i+len(marker):], `"`)
	for _, m := range []string{"rpc error:", "connection error:"} {
		if j := strings.Index(msg, m); j > 0 {
			prefix = msg[:j]
			break
		}
	}
	return prefix, reason, true
}

// handshakeFailed says in words that the TLS handshake with the service at
// cn.server failed, why, and what to check.
func (cn *conn) handshakeFailed(prefix, reason string) error {
	check := "that it serves TLS on that address, and that --ca names the CA that signed its certificate (or the system's roots do)"
	if !cn.tls {
		check = "whether it expects TLS (--tls, --ca)"
	}
	return fmt.Errorf("%scannot reach the cc service at %s: dialled %s with TLS, and the TLS handshake failed (%s). Check %s",
		prefix, cn.server, cn.server, reason, check)
}
