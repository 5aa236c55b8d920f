package main

import (
	"testing"

	"cc.dev/cc/internal/servicetest"
	"cc.dev/cc/service"
)

// serviceDB is the database of a test's server and the options it needs
// (issue 14): a fresh PostgreSQL database and its key file when
// CC_TEST_POSTGRES is set, else a SQLite file under t.TempDir().
func serviceDB(t testing.TB, opts ...service.Option) (string, []service.Option) {
	t.Helper()
	db := servicetest.DB(t)
	if k := servicetest.KeyFile(db); k != "" {
		opts = append([]service.Option{service.WithSecretKeyFile(k)}, opts...)
	}
	return db, opts
}
