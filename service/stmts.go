package service

import (
	"context"
	"database/sql"
	"sync"
)

// maxStmts bounds how many statements the writer keeps prepared: SQL made
// for a number of arguments (an IN list) is parsed each time past it.
const maxStmts = 256

// stmtCache holds the writer's prepared statements (issue 13: SQLite
// spent a sixth of an apply parsing the same SQL again), keyed by their
// SQL: the SQL stays where it is used, and is parsed once per writer
// connection. A statement first seen inside a transaction cannot be
// prepared there (the writer has one connection, which the transaction
// holds), so it is run unprepared and prepared between transactions
// (prepareWanted).
type stmtCache struct {
	db       *sql.DB
	mu       sync.Mutex
	prepared map[string]*sql.Stmt // nil: it could not be prepared
	wanted   map[string]bool
}

func newStmtCache(db *sql.DB) *stmtCache {
	return &stmtCache{db: db, prepared: map[string]*sql.Stmt{}, wanted: map[string]bool{}}
}

// get is q's prepared statement, or nil when it is not prepared yet (it
// is then wanted).
func (c *stmtCache) get(q string) *sql.Stmt {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, known := c.prepared[q]
	if !known && len(c.prepared)+len(c.wanted) < maxStmts {
		c.wanted[q] = true
	}
	return s
}

// prepareWanted prepares the statements wanted since the last call. It
// takes the writer's connection: never call it inside a transaction.
func (c *stmtCache) prepareWanted(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q := range c.wanted {
		s, err := c.db.PrepareContext(ctx, q)
		if err != nil {
			s = nil // run unprepared: its error shows where it is used
		}
		c.prepared[q] = s
		delete(c.wanted, q)
	}
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for q, s := range c.prepared {
		if s != nil {
			s.Close()
		}
		delete(c.prepared, q)
	}
}

// rowsQuerier runs multi-row queries: a *sql.Tx or a *stmtTx.
type rowsQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// stmtTx is a write transaction whose single-row queries and statements
// run prepared (stmtCache). Multi-row queries (QueryContext) are not: a
// prepared statement runs once at a time, and a caller may run the same
// query again while it reads the rows of the first.
type stmtTx struct {
	*sql.Tx
	c     *stmtCache
	stmts map[string]*sql.Stmt // c's statements bound to Tx
	facts txFacts
}

// newStmtTx is tx with the statements of c (nil: none, for a reader).
func newStmtTx(tx *sql.Tx, c *stmtCache) *stmtTx {
	return &stmtTx{Tx: tx, c: c, stmts: map[string]*sql.Stmt{}, facts: newTxFacts()}
}

// stmt is q's prepared statement in tx, or nil.
func (tx *stmtTx) stmt(ctx context.Context, q string) *sql.Stmt {
	if tx.c == nil {
		return nil
	}
	if s, ok := tx.stmts[q]; ok {
		return s
	}
	s := tx.c.get(q)
	if s != nil {
		s = tx.Tx.StmtContext(ctx, s)
	}
	tx.stmts[q] = s
	return s
}

// QueryRowContext runs a single-row query, prepared when it can be.
func (tx *stmtTx) QueryRowContext(ctx context.Context, q string, args ...any) *sql.Row {
	if s := tx.stmt(ctx, q); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return tx.Tx.QueryRowContext(ctx, q, args...)
}

// ExecContext runs a statement, prepared when it can be, and forgets the
// facts of the tables it names (txFacts).
func (tx *stmtTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	tx.facts.forget(q)
	if s := tx.stmt(ctx, q); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return tx.Tx.ExecContext(ctx, q, args...)
}
