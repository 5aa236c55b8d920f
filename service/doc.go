// Package service is cc's platform service: the cc.v1 gRPC API (generated
// code in service/proto/cc/v1), the reference server that keeps a
// project's state in SQLite, and the Go client that plan and apply use.
//
// # A client, embedded or remote
//
// A program that embeds cc needs a *Client for applier.New (see package
// compiler for the whole flow), one of three ways:
//
//   - OpenProject opens the embedded state cc itself uses when no
//     --server is given: ROOT/.cc/state.db in the project's root
//     (ProjectStatePath), with a .gitignore that keeps it out of version
//     control. A program and cc then share the state.
//   - OpenEmbedded runs the same server in this process on a database of
//     your choice, over an in-memory connection: every call goes through
//     the same gRPC interceptors and handlers as over the network. Both
//     return a function that stops the server and closes the database.
//   - Dial connects to a cc service (cc server, or the platform's own) at
//     HOST:PORT or unix:///PATH; WithToken sends a token (cc sends
//     $CC_TOKEN) and WithTLSConfig speaks TLS. Close it when done.
//
// Clients get typed errors (NotFoundError, StaleError, LockedError,
// LeaseError, DependantsError, CycleError, UnauthenticatedError,
// PermissionDeniedError, …) instead of gRPC status codes. Client.GetState
// reads a project's state (a state.Project); the other calls are those
// the applier makes, and a program that plans and applies through package
// applier does not make them itself.
//
// # The server
//
// Open opens the server on a database, for any listener (cc server runs
// it); Option configures it: WithTokens (who may use which project),
// WithTLS, WithSync, WithLogger, limits.
//
// Every mutation carries the live lease of its project's lock, checked in
// the mutation's transaction. Mutations that wait for the single writer
// are committed together (group commit), each in a savepoint of its own,
// and answered once the commit, with its fsync under SyncFull, is done.
// Every spec is checked with
// schema.ValidateSpec and every dependency graph for missing nodes and
// cycles; every string of a request is bounded before it is looked at.
package service

//go:generate ./proto/generate.sh
