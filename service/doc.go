// Package service is cc's platform service: the cc.v1 gRPC API (generated
// code in service/proto/cc/v1), the reference server that keeps a
// project's state in SQLite, and the Go client that plan and apply use.
//
// The server is opened with Open and serves any listener; OpenEmbedded runs
// the same server in-process over an in-memory listener, which is what cc
// does when no --server is given. Clients get typed errors (NotFoundError,
// StaleError, LockedError, UnauthenticatedError, PermissionDeniedError, …)
// instead of gRPC status codes.
package service

//go:generate ./proto/generate.sh
