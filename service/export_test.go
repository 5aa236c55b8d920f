package service

import (
	"context"
	"database/sql"
	"time"

	"google.golang.org/grpc"
)

// OpenEmbeddedDial is OpenEmbedded with options for the client's
// connection, for tests.
func OpenEmbeddedDial(ctx context.Context, dbPath string, dial []grpc.DialOption, opts ...Option) (*Client, func() error, error) {
	return openEmbedded(ctx, dbPath, dial, opts...)
}

// SetAfterChunks makes s call f after each transaction of an upload's
// chunks commits.
func SetAfterChunks(s *Server, f func(project, digest string, chunks int)) { s.afterChunks = f }

// Uploads is how many uploads s runs.
func Uploads(s *Server) int {
	s.uploads.mu.Lock()
	defer s.uploads.mu.Unlock()
	n := 0
	for _, c := range s.uploads.slots {
		n += len(c)
	}
	return n
}

// ClientConn is the connection a client of OpenEmbedded calls on.
func ClientConn(c *Client) *grpc.ClientConn { return c.conn }

// SetBatchHooks sets the hooks of s's group commits (batch.go): before
// runs before each batch with its size, after after each mutation of a
// batch with its place in it, commit after each commit with the number of
// mutations it held. A nil hook is not called.
func SetBatchHooks(s *Server, before func(n int), after func(i int), commit func(n int)) {
	s.commits.beforeBatch, s.commits.afterMutation, s.commits.onCommit = before, after, commit
}

// Queued is how many mutations wait for s's running batch.
func Queued(s *Server) int { return s.commits.queued() }

// SetPGIdleInTransaction sets how long PostgreSQL lets a session of the
// stores opened from now on sit idle in a transaction, and returns the
// setting it replaced.
func SetPGIdleInTransaction(d string) (was string) {
	was, pgIdleInTransaction = pgIdleInTransaction, d
	return was
}

// BeginPGWrite opens a store on the PostgreSQL database db as a replica
// does and begins a write transaction on it, which takes the write lock:
// a replica that froze inside one, as PostgreSQL sees it.
func BeginPGWrite(ctx context.Context, db string) (tx *sql.Tx, closeStore func() error, err error) {
	st, err := openPGStore(ctx, db)
	if err != nil {
		return nil, nil, err
	}
	tx, err = st.w.BeginTx(ctx, nil)
	if err != nil {
		st.close()
		return nil, nil, err
	}
	return tx, st.close, nil
}

// SetReapEvery sets how often the PostgreSQL stores opened from now on
// reap what ended replicas left, and returns the period it replaced.
func SetReapEvery(d time.Duration) (was time.Duration) {
	was, reapEvery = reapEvery, d
	return was
}
