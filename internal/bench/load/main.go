// Command load is cc's load generator (issue 14, acceptance 4), run as
// .ci/load: C concurrent clients, each applying its own generated project
// of P resources (images, secrets, sandboxes, functions) with the library
// (compiler, applier, service client, as cmd/cc does), through cc server
// processes it starts itself, in two setups measured by the same code in
// the same run:
//
//   - sqlite: one cc server --db FILE --sync full;
//
//   - postgres: two cc server replicas --db postgres://... on one fresh
//     database (created from -postgres, else $CC_TEST_POSTGRES, and
//     dropped after), the clients spread over both.
//
// A gRPC client interceptor times every call. It prints Markdown: wall
// time, throughput (calls/s, resources/s), p50 and p99 call latency,
// overall and per method, and whether every project converged (a second
// plan of each, through another replica when there are two, shows no
// changes). With -rounds N the setups are interleaved round by round and
// the figures are medians.
//
//	.ci/load -clients 20 -resources 200 -setups sqlite,postgres -rounds 3 -o /tmp/load.md
//
// It is not part of .ci/test; go test ./internal/bench/load runs a tiny
// load (2 clients, 5 resources) to keep it from rotting.
package main

import "cc.dev/cc/internal/bench/host"

func main() { host.Main("load", run) }
