package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"cc.dev/cc/service"
	"github.com/jackc/pgx/v5"
)

// database is a fresh PostgreSQL database on the server of an admin URL.
type database struct {
	admin string
	name  string
	// url is the database's own URL, for cc server --db.
	url string
}

// databaseURL is admin's URL with the database name replaced.
func databaseURL(admin, name string) (string, error) {
	u, err := url.Parse(admin)
	if err != nil {
		return "", fmt.Errorf("the PostgreSQL URL: not a URL")
	}
	if u.Scheme != "postgres" && u.Scheme != "postgresql" {
		return "", fmt.Errorf("the PostgreSQL URL %s: want postgres:// or postgresql://", service.RedactDB(admin))
	}
	u.Path = "/" + name
	u.RawPath = ""
	return u.String(), nil
}

// createDatabase creates a database of a random name cc_load_HEX.
func createDatabase(ctx context.Context, admin string) (*database, error) {
	b := make([]byte, 6)
	rand.Read(b)
	db := &database{admin: admin, name: "cc_load_" + hex.EncodeToString(b)}
	var err error
	if db.url, err = databaseURL(admin, db.name); err != nil {
		return nil, err
	}
	if err := db.exec(ctx, "CREATE DATABASE "+pgx.Identifier{db.name}.Sanitize()); err != nil {
		return nil, fmt.Errorf("create database %s on %s: %w", db.name, service.RedactDB(admin), err)
	}
	return db, nil
}

// drop drops the database, closing the connections still open to it.
func (db *database) drop(ctx context.Context) error {
	if err := db.exec(ctx, "DROP DATABASE IF EXISTS "+pgx.Identifier{db.name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("drop database %s on %s: %w", db.name, service.RedactDB(db.admin), err)
	}
	return nil
}

// exec runs one statement on the admin connection.
func (db *database) exec(ctx context.Context, sql string) error {
	conn, err := pgx.Connect(ctx, db.admin)
	if err != nil {
		return scrub(err, db.admin)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	_, err = conn.Exec(ctx, sql)
	return scrub(err, db.admin)
}

// checkUsed refuses a database the servers started on it created no
// table in: their cc does not open postgres:// URLs (an older one takes
// the URL for a SQLite file name, and would be measured instead).
func (db *database) checkUsed(ctx context.Context) error {
	conn, err := pgx.Connect(ctx, db.url)
	if err != nil {
		return scrub(err, db.url)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var n int
	err = conn.QueryRow(ctx, "SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema()").Scan(&n)
	if err != nil {
		return scrub(err, db.url)
	}
	if n == 0 {
		return fmt.Errorf("the cc server replicas on database %s created no table in it: does their cc open postgres:// URLs? (build cc from a tree with the PostgreSQL store, or pass one with -cc)", db.name)
	}
	return nil
}

// scrub keeps the URL's password out of an error, as written in the URL
// (escaped) and as sent (unescaped).
func scrub(err error, raw string) error {
	if err == nil {
		return nil
	}
	u, perr := url.Parse(raw)
	if perr != nil || u.User == nil {
		return err
	}
	pw, ok := u.User.Password()
	if !ok || pw == "" {
		return err
	}
	_, escaped, _ := strings.Cut(u.User.String(), ":")
	msg := err.Error()
	for _, p := range []string{escaped, pw} {
		if p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// writeSecretKey writes a random key for --secret-key-file (64 hex
// digits), mode 0600: the replicas share it.
func writeSecretKey(path string) error {
	b := make([]byte, 32)
	rand.Read(b)
	return os.WriteFile(path, []byte(hex.EncodeToString(b)+"\n"), 0o600)
}

// describePostgres is what the output says of the PostgreSQL server: its
// version and durability settings, at its URL without the password.
func describePostgres(ctx context.Context, admin string) string {
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Sprintf("PostgreSQL at %s (not described: %v)", service.RedactDB(admin), scrub(err, admin))
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var version, fsync, syncCommit string
	err = conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('fsync'), current_setting('synchronous_commit')").Scan(&version, &fsync, &syncCommit)
	if err != nil {
		return fmt.Sprintf("PostgreSQL at %s (not described: %v)", service.RedactDB(admin), scrub(err, admin))
	}
	return fmt.Sprintf("PostgreSQL %s at %s, fsync %s, synchronous_commit %s", version, service.RedactDB(admin), fsync, syncCommit)
}
