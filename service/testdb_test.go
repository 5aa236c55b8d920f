package service_test

import (
	"database/sql"
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
