package service_test

import (
	"testing"

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
