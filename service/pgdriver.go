package service

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// writeLockKey is the PostgreSQL advisory lock every write transaction
// of every replica takes first (pg_advisory_xact_lock, released at its
// commit or rollback, or when its connection dies): writes to one
// database run one at a time, as on SQLite, so that two replicas'
// mutations never interleave nor both pass a lease check, with no retry
// loop. Reads do not take it. ("cc-state" in ASCII.)
const writeLockKey = 0x63632d7374617465

// pgConnector opens connections to PostgreSQL through pgx's database/sql
// driver, each wrapped in a pgConn: the SQL of service/ stays as it is
// (SQLite's ? placeholders), and transactions get the isolation the
// service needs.
type pgConnector struct {
	inner driver.Connector
}

func newPGConnector(cfg *pgx.ConnConfig) *pgConnector {
	return &pgConnector{inner: stdlib.GetConnector(*cfg)}
}

// Connect implements driver.Connector.
func (c *pgConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &pgConn{Conn: conn.(*stdlib.Conn)}, nil
}

// Driver implements driver.Connector.
func (c *pgConnector) Driver() driver.Driver { return c.inner.Driver() }

// pgConn is a pgx connection that rewrites ? placeholders to $n
// (rebind), takes the write lock at the start of each read-write
// transaction, runs read-only transactions at REPEATABLE READ (one
// snapshot, as a SQLite read transaction is) and passes booleans as
// integers (the schema has no boolean columns, as on SQLite).
type pgConn struct {
	*stdlib.Conn
}

var (
	_ driver.ConnPrepareContext = (*pgConn)(nil)
	_ driver.ExecerContext      = (*pgConn)(nil)
	_ driver.QueryerContext     = (*pgConn)(nil)
	_ driver.ConnBeginTx        = (*pgConn)(nil)
	_ driver.NamedValueChecker  = (*pgConn)(nil)
	_ driver.SessionResetter    = (*pgConn)(nil)
	_ driver.Pinger             = (*pgConn)(nil)
)

// Prepare implements driver.Conn.
func (c *pgConn) Prepare(q string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(context.Background(), rebind(q))
}

// PrepareContext implements driver.ConnPrepareContext.
func (c *pgConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return c.Conn.PrepareContext(ctx, rebind(q))
}

// ExecContext implements driver.ExecerContext.
func (c *pgConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return c.Conn.ExecContext(ctx, rebind(q), args)
}

// QueryContext implements driver.QueryerContext.
func (c *pgConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return c.Conn.QueryContext(ctx, rebind(q), args)
}

// Begin implements driver.Conn.
func (c *pgConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// BeginTx implements driver.ConnBeginTx.
func (c *pgConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.ReadOnly && sql.IsolationLevel(opts.Isolation) == sql.LevelDefault {
		opts.Isolation = driver.IsolationLevel(sql.LevelRepeatableRead)
	}
	tx, err := c.Conn.BeginTx(ctx, opts)
	if err != nil || opts.ReadOnly {
		return tx, err
	}
	if _, err := c.Conn.ExecContext(ctx, "SELECT pg_advisory_xact_lock($1)", []driver.NamedValue{{Ordinal: 1, Value: int64(writeLockKey)}}); err != nil {
		tx.Rollback()
		return nil, err
	}
	return tx, nil
}

// CheckNamedValue implements driver.NamedValueChecker: a bool is stored
// as 0 or 1, as SQLite's driver stores it; anything else goes to pgx.
func (c *pgConn) CheckNamedValue(v *driver.NamedValue) error {
	if b, ok := v.Value.(bool); ok {
		v.Value = int64(0)
		if b {
			v.Value = int64(1)
		}
	}
	return nil
}

// rebind rewrites the ? placeholders of q to PostgreSQL's $1, $2, ...,
// leaving alone those inside quoted strings ('...'), quoted identifiers
// ("...") and comments (-- to the end of the line, /* ... */).
func rebind(q string) string {
	if !strings.Contains(q, "?") {
		return q
	}
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case c == '?':
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		case c == '\'' || c == '"':
			j := closeQuote(q, i+1, c)
			b.WriteString(q[i:j])
			i = j - 1
			continue
		case c == '-' && i+1 < len(q) && q[i+1] == '-':
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				j = len(q) - i
			}
			b.WriteString(q[i : i+j])
			i += j - 1
			continue
		case c == '/' && i+1 < len(q) && q[i+1] == '*':
			j := strings.Index(q[i+2:], "*/")
			end := len(q)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(q[i:end])
			i = end - 1
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// closeQuote is the index just past the quote that closes the one before
// q[from] (a doubled quote is part of the text), or len(q).
func closeQuote(q string, from int, quote byte) int {
	for i := from; i < len(q); i++ {
		if q[i] != quote {
			continue
		}
		if i+1 < len(q) && q[i+1] == quote {
			i++
			continue
		}
		return i + 1
	}
	return len(q)
}
