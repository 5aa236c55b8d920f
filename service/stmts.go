package service

import (
	"context"
	"database/sql"
	"maps"
	"slices"
	"strings"
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
	// serials are the serials of projects that mutations bumped but that
	// are not written yet (setSerial), and flushErr a failure to write
	// them, which fails the commit (flushSerials).
	serials  map[string]int64
	flushErr error
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
	tx.flushFor(ctx, q)
	if s := tx.stmt(ctx, q); s != nil {
		return s.QueryRowContext(ctx, args...)
	}
	return tx.Tx.QueryRowContext(ctx, q, args...)
}

// QueryContext runs a query, after writing the serials it may read.
func (tx *stmtTx) QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	tx.flushFor(ctx, q)
	return tx.Tx.QueryContext(ctx, q, args...)
}

// ExecContext runs a statement, prepared when it can be, and forgets the
// facts of the tables it names (txFacts).
func (tx *stmtTx) ExecContext(ctx context.Context, q string, args ...any) (sql.Result, error) {
	tx.flushFor(ctx, q)
	tx.facts.forget(q)
	return tx.exec(ctx, q, args...)
}

func (tx *stmtTx) exec(ctx context.Context, q string, args ...any) (sql.Result, error) {
	if s := tx.stmt(ctx, q); s != nil {
		return s.ExecContext(ctx, args...)
	}
	return tx.Tx.ExecContext(ctx, q, args...)
}

// A batch of mutations bumps its project's serial once per mutation;
// each used to write the projects row again (issue 13: a tenth of the
// committer's statements). The serial a mutation bumped is now kept
// (setSerial, and in the transaction's facts for the next mutation), and
// written once: before any statement that names the projects table, and
// before the commit (committer.runOnce). A savepoint rolled back restores
// what was kept when it began (runSaved), as it undoes what was written.

// updateSerial writes a project's serial.
const updateSerial = "UPDATE projects SET serial = ? WHERE name = ?"

// setSerial keeps project's new serial, to be written by flushSerials.
func (tx *stmtTx) setSerial(project string, serial int64) {
	if tx.serials == nil {
		tx.serials = map[string]int64{}
	}
	tx.serials[project] = serial
}

// flushFor writes the kept serials before q when q names the projects
// table; a failure is kept for the commit, which it fails.
func (tx *stmtTx) flushFor(ctx context.Context, q string) {
	if len(tx.serials) > 0 && strings.Contains(q, "projects") {
		if err := tx.flushSerials(ctx); err != nil && tx.flushErr == nil {
			tx.flushErr = err
		}
	}
}

// flushSerials writes the kept serials, in project order, and forgets
// them; the facts already hold them.
func (tx *stmtTx) flushSerials(ctx context.Context) error {
	for _, p := range slices.Sorted(maps.Keys(tx.serials)) {
		if _, err := tx.exec(ctx, updateSerial, tx.serials[p], p); err != nil {
			return err
		}
	}
	clear(tx.serials)
	return tx.flushErr
}
