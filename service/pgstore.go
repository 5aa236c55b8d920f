package service

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5"
)

// IsPostgres reports whether db names a PostgreSQL database (a
// postgres:// or postgresql:// URL) rather than a SQLite file.
func IsPostgres(db string) bool {
	return strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://")
}

// RedactDB is db fit for logs and errors: a URL's password is replaced
// by "xxxxx" (in the user part and in a password= parameter); a file path
// is returned as it is.
func RedactDB(db string) string {
	if !IsPostgres(db) {
		return db
	}
	u, err := url.Parse(db)
	if err != nil {
		return "postgres://xxxxx"
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// redactErr is err with the password of db, wherever it appears in the
// text, replaced by "xxxxx".
func redactErr(db string, err error) error {
	pw := dbPassword(db)
	if err == nil || pw == "" || !strings.Contains(err.Error(), pw) {
		return err
	}
	return errors.New(strings.ReplaceAll(err.Error(), pw, "xxxxx"))
}

// dbPassword is the password in the URL db, or "".
func dbPassword(db string) string {
	u, err := url.Parse(db)
	if err != nil {
		return ""
	}
	if pw, ok := u.User.Password(); ok {
		return pw
	}
	return u.Query().Get("password")
}

// pgIdleInTransaction is how long PostgreSQL lets a session of cc's sit
// idle inside a transaction (idle_in_transaction_session_timeout) before
// it ends the session and rolls the transaction back. Every write
// transaction of every replica holds writeLockKey: without an end, one
// replica frozen inside one (its host stopped, its network cut) would
// stall every replica's writes until the server's TCP keepalive noticed,
// two hours by default. cc's transactions never wait on anything but the
// database between their statements, so a gap this long is a replica
// that is gone; what it had not committed is rolled back, and its
// clients get an error, never an acknowledgment. A database URL that
// sets idle_in_transaction_session_timeout itself keeps its own.
var pgIdleInTransaction = "30s"

// openPGStore opens the PostgreSQL database at the URL db and migrates
// it. As on SQLite, one connection writes (the group commit of batch.go
// runs one batch at a time per process) and a pool reads; across
// processes, write transactions take writeLockKey (pgdriver.go).
func openPGStore(ctx context.Context, db string) (*store, error) {
	cfg, err := pgx.ParseConfig(db)
	if err != nil {
		return nil, fmt.Errorf("database %s: %w", RedactDB(db), redactErr(db, err))
	}
	if _, set := cfg.RuntimeParams["idle_in_transaction_session_timeout"]; !set {
		if cfg.RuntimeParams == nil {
			cfg.RuntimeParams = map[string]string{}
		}
		cfg.RuntimeParams["idle_in_transaction_session_timeout"] = pgIdleInTransaction
	}
	w := sql.OpenDB(newPGConnector(cfg))
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	st := &store{w: w, stmts: newStmtCache(w)}
	if err := st.migratePG(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", RedactDB(db), redactErr(db, err))
	}
	r := sql.OpenDB(newPGConnector(cfg))
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	st.r = r
	if err := st.takeUploader(ctx, cfg); err != nil {
		st.close()
		return nil, fmt.Errorf("open %s: %w", RedactDB(db), redactErr(db, err))
	}
	return st, nil
}

// migratePG brings the schema up to date in ONE transaction, which holds
// the write lock: replicas starting at once migrate one after the other,
// and the second finds nothing to do. The version is kept in the table
// cc_schema (SQLite keeps it in PRAGMA user_version); version N is the
// same schema on both engines.
func (st *store) migratePG(ctx context.Context) error {
	tx, err := st.w.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS cc_schema (version BIGINT NOT NULL)"); err != nil {
		return err
	}
	var have int
	err = tx.QueryRowContext(ctx, "SELECT version FROM cc_schema").Scan(&have)
	if errors.Is(err, sql.ErrNoRows) {
		_, err = tx.ExecContext(ctx, "INSERT INTO cc_schema (version) VALUES (0)")
	}
	if err != nil {
		return err
	}
	if have > len(migrations) {
		return fmt.Errorf("the database has schema version %d; this cc knows up to %d: use a newer cc", have, len(migrations))
	}
	for i := have; i < len(migrations); i++ {
		if _, err := tx.ExecContext(ctx, pgDDL(migrations[i].sql)); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
		if then := migrations[i].then; then != nil {
			if err := then(ctx, tx); err != nil {
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
	}
	if _, err := tx.ExecContext(ctx, "UPDATE cc_schema SET version = ?", len(migrations)); err != nil {
		return err
	}
	return tx.Commit()
}

var (
	ddlStrict  = regexp.MustCompile(`\)\s*STRICT\s*;`)
	ddlBlob    = regexp.MustCompile(`\bBLOB\b`)
	ddlInteger = regexp.MustCompile(`\bINTEGER\b`)
	ddlUser    = regexp.MustCompile(`(?m)^(\s*)user(\s)`)
)

// pgDDL is a migration's SQLite DDL for PostgreSQL, so that both engines
// share one list of migrations: no STRICT (PostgreSQL's types are
// strict), BYTEA for BLOB, BIGINT for INTEGER (SQLite's integers have 64
// bits), and the column "user" quoted (a reserved word there).
func pgDDL(s string) string {
	s = ddlStrict.ReplaceAllString(s, ");")
	s = ddlBlob.ReplaceAllString(s, "BYTEA")
	s = ddlInteger.ReplaceAllString(s, "BIGINT")
	return ddlUser.ReplaceAllString(s, `$1"user"$2`)
}

// errNoPGKey refuses a PostgreSQL database without a secret key file: the
// key is not generated beside a database that has no file, and the
// replicas of one database must share it.
var errNoPGKey = errors.New("a PostgreSQL database needs a secret key file (--secret-key-file, WithSecretKeyFile): its replicas share it")
