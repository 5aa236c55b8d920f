package service

import (
	"fmt"
	"net"
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
)

// balancing is the service config of every connection Dial makes: calls
// go round robin over the addresses the target resolves to (the replicas
// of a list, or of a DNS name with several records), and only to those
// that are connected, so that a call retried after a replica went away
// (applier.WithRetries) goes to another one.
const balancing = `{"loadBalancingConfig": [{"round_robin": {}}]}`

// replicasScheme is the scheme of the static resolver over a list of
// replicas.
const replicasScheme = "cc-replicas"

// IsReplicaList reports whether a Dial target is a list of replicas,
// "HOST:PORT,HOST:PORT".
func IsReplicaList(target string) bool { return strings.Contains(target, ",") }

// ReplicaAddrs splits a list of replicas ("10.0.0.1:7070,10.0.0.2:7070")
// into its addresses: each HOST:PORT or unix:///PATH, none twice.
func ReplicaAddrs(target string) ([]string, error) {
	var addrs []string
	seen := map[string]bool{}
	for _, a := range strings.Split(target, ",") {
		a = strings.TrimSpace(a)
		if !replicaAddr(a) {
			return nil, fmt.Errorf("replica list %q: %q is not HOST:PORT or unix:///PATH (a list of replicas is HOST:PORT,HOST:PORT,...)", target, a)
		}
		if seen[a] {
			return nil, fmt.Errorf("replica list %q: %s is listed twice", target, a)
		}
		seen[a] = true
		addrs = append(addrs, a)
	}
	return addrs, nil
}

// replicaAddr reports whether a is an address a list may hold: HOST:PORT
// (a port number) or unix:///PATH (gRPC dials a resolved address of that form as a unix
// socket).
func replicaAddr(a string) bool {
	if p, ok := strings.CutPrefix(a, "unix://"); ok {
		return strings.HasPrefix(p, "/") && len(p) > 1
	}
	host, port, err := net.SplitHostPort(a)
	if err != nil || host == "" || strings.ContainsAny(a, "/ ") {
		return false
	}
	n, err := strconv.Atoi(port)
	return err == nil && n > 0 && n < 1<<16
}

// replicaTarget is the gRPC target and dial options for a Dial target: a
// list of replicas becomes a static resolver over its addresses, each
// checked by TLS against its own host name; any other target (HOST:PORT,
// dns:///NAME:PORT, unix:///PATH) is gRPC's own.
func replicaTarget(target string) (string, []grpc.DialOption, error) {
	opts := []grpc.DialOption{grpc.WithDefaultServiceConfig(balancing)}
	if !IsReplicaList(target) {
		return target, opts, nil
	}
	addrs, err := ReplicaAddrs(target)
	if err != nil {
		return "", nil, err
	}
	var st resolver.State
	for _, a := range addrs {
		host, _, err := net.SplitHostPort(a)
		if err != nil {
			host = "" // a unix socket
		}
		st.Endpoints = append(st.Endpoints, resolver.Endpoint{Addresses: []resolver.Address{{Addr: a, ServerName: host}}})
	}
	r := manual.NewBuilderWithScheme(replicasScheme)
	r.InitialState(st)
	return replicasScheme + ":///replicas", append(opts, grpc.WithResolvers(r)), nil
}
