// Package servicetest gives tests the database a service runs on, chosen
// by the environment (issue 14: one conformance suite on both stores):
// with CC_TEST_POSTGRES set (the URL of a PostgreSQL superuser connection,
// as .ci/pg/up.sh exports it), each call makes a fresh PostgreSQL
// database, dropped when the test ends; otherwise, or with
// CC_TEST_STORE=sqlite, a SQLite file in the test's temporary directory.
package servicetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DB is the database a test's service opens: a fresh PostgreSQL
// database's URL when CC_TEST_POSTGRES is set (and CC_TEST_STORE is not
// "sqlite"), else a SQLite file path under t.TempDir(). A PostgreSQL
// database needs a secret key file: KeyFile(db).
func DB(t testing.TB) string {
	t.Helper()
	admin := os.Getenv("CC_TEST_POSTGRES")
	if admin == "" || os.Getenv("CC_TEST_STORE") == "sqlite" {
		return filepath.Join(t.TempDir(), "state.db")
	}
	return newDatabase(t, admin)
}

// Postgres is a fresh PostgreSQL database's URL, for a test that needs
// PostgreSQL itself: without CC_TEST_POSTGRES the test skips, or fails
// under CI=true.
func Postgres(t testing.TB) string {
	t.Helper()
	admin := os.Getenv("CC_TEST_POSTGRES")
	if admin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run this on PostgreSQL; .ci/test starts one (CC_TEST_POSTGRES is not set)")
		}
		t.Skip("CC_TEST_POSTGRES is not set: this test needs PostgreSQL (source .ci/pg/up.sh; cc_pg_up)")
	}
	return newDatabase(t, admin)
}

// OnPostgres reports whether DB makes PostgreSQL databases.
func OnPostgres() bool {
	return os.Getenv("CC_TEST_POSTGRES") != "" && os.Getenv("CC_TEST_STORE") != "sqlite"
}

var (
	mu   sync.Mutex
	keys = map[string]string{}
)

// KeyFile is the secret key file made for the PostgreSQL database db by
// DB or Postgres (the same file each time: a test that reopens db finds
// its secret values), or "" for a SQLite file, whose key is made beside
// it.
func KeyFile(db string) string {
	mu.Lock()
	defer mu.Unlock()
	return keys[db]
}

// newDatabase creates the database cc_t_RANDOM on the server of admin,
// drops it when t ends, and returns its URL.
func newDatabase(t testing.TB, admin string) string {
	t.Helper()
	b := make([]byte, 8)
	rand.Read(b)
	name := "cc_t_" + hex.EncodeToString(b)
	adminExec(t, admin, "CREATE DATABASE "+name)
	t.Cleanup(func() { adminExec(t, admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)") })
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("CC_TEST_POSTGRES is not a URL: %v", err)
	}
	u.Path = "/" + name
	db := u.String()
	key := filepath.Join(t.TempDir(), name+".key")
	k := make([]byte, 32)
	rand.Read(k)
	if err := os.WriteFile(key, []byte(hex.EncodeToString(k)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	keys[db] = key
	mu.Unlock()
	return db
}

// adminExec runs one statement on the server of admin.
func adminExec(t testing.TB, admin, stmt string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		t.Fatalf("connect to CC_TEST_POSTGRES: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}
