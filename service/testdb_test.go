package service_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql's "pgx" driver, for rawDB

	"cc.dev/cc/internal/servicetest"
	"cc.dev/cc/service"
)

// testDB is the database of a test's server (issue 14: one conformance
// suite on both stores): a fresh PostgreSQL database when
// CC_TEST_POSTGRES is set, else a SQLite file under t.TempDir()
// (internal/servicetest.DB).
func testDB(t testing.TB) string {
	t.Helper()
	return servicetest.DB(t)
}

// withKey is opts with, first, the secret key file of db when db is a
// PostgreSQL database made by testDB (which has no key beside it); a key
// file in opts wins.
func withKey(db string, opts []service.Option) []service.Option {
	if k := servicetest.KeyFile(db); k != "" {
		return append([]service.Option{service.WithSecretKeyFile(k)}, opts...)
	}
	return opts
}

// rawDB opens db, as testDB made it, to look at its rows as they are
// stored (read-only on SQLite). Queries in tests use no placeholders, so
// that they run on both engines.
func rawDB(t testing.TB, db string) *sql.DB {
	t.Helper()
	driver, dsn := "sqlite", "file:"+db+"?_pragma=query_only(1)"
	if service.IsPostgres(db) {
		driver, dsn = "pgx", db
	}
	raw, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { raw.Close() })
	return raw
}

// storedBytes is what db stores, by where: on SQLite the bytes of the
// database's files (with its -wal and -shm), on PostgreSQL the text of
// every row of every table (BYTEA in hex).
func storedBytes(t testing.TB, db string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	if !service.IsPostgres(db) {
		for _, f := range []string{db, db + "-wal", db + "-shm"} {
			if b, err := os.ReadFile(f); err == nil {
				out[filepath.Base(f)] = b
			}
		}
		return out
	}
	raw := rawDB(t, db)
	rows, err := raw.Query("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		tables = append(tables, n)
	}
	rows.Close()
	for _, tb := range tables {
		rows, err := raw.Query(`SELECT r::text FROM "` + tb + `" r`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out["table "+tb] = append(append(out["table "+tb], s...), '\n')
		}
		rows.Close()
	}
	if len(out) == 0 {
		t.Fatal("no rows in any table")
	}
	return out
}
