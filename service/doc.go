// Package service is cc's platform service: the cc.v1 gRPC API (generated
// code in service/proto/cc/v1), the reference server that keeps a
// project's state in SQLite, and the Go client that plan and apply use.
//
// The server is opened with Open and serves any listener; OpenEmbedded runs
// the same server in-process over an in-memory listener, which is what cc
// does when no --server is given. Clients get typed errors (NotFoundError,
// StaleError, LockedError, LeaseError, DependantsError, CycleError,
// UnauthenticatedError, PermissionDeniedError, …) instead of gRPC status
// codes.
//
// Every mutation carries the live lease of its project's lock, checked in
// the mutation's transaction; every spec is checked with
// schema.ValidateSpec and every dependency graph for missing nodes and
// cycles; every string of a request is bounded before it is looked at.
package service

//go:generate ./proto/generate.sh
