package service

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
	_ "modernc.org/sqlite" // the pure-Go SQLite driver
)

// Sync is how hard a commit waits for the disk.
type Sync int

const (
	// SyncNormal (SQLite's synchronous=NORMAL in WAL mode) writes each commit
	// to the WAL before the commit returns and fsyncs at checkpoints. A
	// killed process loses nothing committed, since the written pages are
	// in the operating system's cache; a power cut or kernel crash may lose
	// the last commits but never leaves a half-applied one.
	SyncNormal Sync = iota
	// SyncFull (synchronous=FULL) also fsyncs the WAL at every commit, so a
	// commit survives a power cut too, at the cost of one fsync per commit
	// (mutations that wait together share one: batch.go).
	SyncFull
)

func (s Sync) String() string {
	if s == SyncFull {
		return "full"
	}
	return "normal"
}

// ParseSync parses "normal" or "full".
func ParseSync(v string) (Sync, error) {
	switch v {
	case "normal":
		return SyncNormal, nil
	case "full":
		return SyncFull, nil
	}
	return 0, fmt.Errorf("sync %q: want normal or full", v)
}

// store is the database, SQLite or PostgreSQL (pgstore.go): one
// connection for writes, so that mutations queue in the process instead
// of retrying on SQLITE_BUSY (on PostgreSQL, writes of all replicas also
// take one advisory lock: pgdriver.go), and a pool of readers that see
// committed snapshots (WAL; REPEATABLE READ on PostgreSQL).
type store struct {
	w, r *sql.DB
	// stmts are the writer's prepared statements (stmts.go).
	stmts *stmtCache
	// tmpSpool is the spool directory of a PostgreSQL store (pgstore.go):
	// this process's own, removed at close; spoolLock holds it locked
	// while the process lives (openSpool).
	tmpSpool  string
	spoolLock *os.File
	// uploader is, on PostgreSQL, what this process's chunks are stored
	// under (0 on SQLite): a key of its own, held locked by uploaderConn
	// while the process lives, so that a replica starting can tell the
	// chunks of a dead one's unfinished uploads (reapChunks).
	uploader     int32
	uploaderConn *pgx.Conn
	// reaper, on PostgreSQL, reaps what replicas that ended left, every
	// reapEvery while the store is open (startReaper); stopped by close.
	reaper struct {
		stop context.CancelFunc
		done chan struct{}
	}
	// closed makes close run once: a server may be closed by two
	// goroutines at once (a test's cleanup and its own stop), and a pgx
	// connection is not for two goroutines.
	closed   sync.Once
	closeErr error
}

// migration is one step of the schema: SQL, then (when set) Go code, in
// one transaction.
type migration struct {
	sql  string
	then func(ctx context.Context, tx *sql.Tx) error
}

// migrations are applied in order; PRAGMA user_version counts those done.
// Never edit one that has shipped: append a new one.
var migrations = []migration{{sql: `
CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value BLOB NOT NULL
) STRICT;

CREATE TABLE projects (
	name       TEXT PRIMARY KEY,
	serial     INTEGER NOT NULL,
	salt       BLOB NOT NULL,
	created_at INTEGER NOT NULL
) STRICT;

CREATE TABLE resources (
	project    TEXT NOT NULL,
	address    TEXT NOT NULL,
	kind       TEXT NOT NULL,
	name       TEXT NOT NULL,
	hash       TEXT NOT NULL,
	spec       BLOB NOT NULL,
	version    INTEGER NOT NULL,
	status     INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	serial     INTEGER NOT NULL,
	depends_on TEXT NOT NULL,
	pins       TEXT NOT NULL,
	PRIMARY KEY (project, address)
) STRICT;

-- tombstones remember the serial at which an address was deleted, so that a
-- change planned before the deletion is refused as stale.
CREATE TABLE tombstones (
	project TEXT NOT NULL,
	address TEXT NOT NULL,
	serial  INTEGER NOT NULL,
	PRIMARY KEY (project, address)
) STRICT;

CREATE TABLE versions (
	project    TEXT NOT NULL,
	address    TEXT NOT NULL,
	version    INTEGER NOT NULL,
	hash       TEXT NOT NULL,
	spec       BLOB NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (project, address, version)
) STRICT;
CREATE INDEX versions_by_hash ON versions (project, address, hash);

CREATE TABLE images (
	project    TEXT NOT NULL,
	hash       TEXT NOT NULL,
	spec       BLOB NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (project, hash)
) STRICT;

-- secret_revisions hold values encrypted with AES-256-GCM; the additional
-- data binds each ciphertext to its project, address and revision.
CREATE TABLE secret_revisions (
	project     TEXT NOT NULL,
	address     TEXT NOT NULL,
	revision    INTEGER NOT NULL,
	nonce       BLOB NOT NULL,
	ciphertext  BLOB NOT NULL,
	fingerprint TEXT NOT NULL,
	created_at  INTEGER NOT NULL,
	serial      INTEGER NOT NULL,
	PRIMARY KEY (project, address, revision)
) STRICT;

CREATE TABLE blobs (
	project    TEXT NOT NULL,
	digest     TEXT NOT NULL,
	size       INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (project, digest)
) STRICT;

CREATE TABLE blob_chunks (
	project TEXT NOT NULL,
	digest  TEXT NOT NULL,
	seq     INTEGER NOT NULL,
	data    BLOB NOT NULL,
	PRIMARY KEY (project, digest, seq)
) STRICT;

CREATE TABLE locks (
	project     TEXT PRIMARY KEY,
	lease_id    TEXT NOT NULL,
	user        TEXT NOT NULL,
	host        TEXT NOT NULL,
	command     TEXT NOT NULL,
	pid         INTEGER NOT NULL,
	acquired_at INTEGER NOT NULL,
	expires_at  INTEGER NOT NULL
) STRICT;

-- idempotency keeps the response of each keyed mutation; request_mac is an
-- HMAC of the request (never the request, which may hold a secret value).
CREATE TABLE idempotency (
	project     TEXT NOT NULL,
	key         TEXT NOT NULL,
	method      TEXT NOT NULL,
	request_mac BLOB NOT NULL,
	response    BLOB NOT NULL,
	created_at  INTEGER NOT NULL,
	PRIMARY KEY (project, key)
) STRICT;
`},
	// 2: the JSON pointers of values in a spec that came from sensitive
	// variables, one per line, so that no reader of the state shows them.
	{sql: `
ALTER TABLE resources ADD COLUMN sensitive TEXT NOT NULL DEFAULT '';
ALTER TABLE images ADD COLUMN sensitive TEXT NOT NULL DEFAULT '';
ALTER TABLE versions ADD COLUMN sensitive TEXT NOT NULL DEFAULT '';
`},
	// 3: a version's key (its identity: the hash, and the values of the
	// managed secrets it uses) and those secrets' revisions, one per line
	// ("ADDRESS REVISION FINGERPRINT"). Versions made before have the key
	// of their hash, as they were reused before; the current version of
	// each resource is keyed with the secret revisions current now, which
	// are those it has been running with, so that an unchanged project
	// stays unchanged across the upgrade.
	{sql: `
ALTER TABLE versions ADD COLUMN key TEXT NOT NULL DEFAULT '';
ALTER TABLE versions ADD COLUMN secrets TEXT NOT NULL DEFAULT '';
UPDATE versions SET key = hash;
CREATE INDEX versions_by_key ON versions (project, address, key);
`, then: keyCurrentVersions},
	// 4: each project's lineage, a random id made when the project is
	// first written and kept for ever, so that a plan made against one
	// server, or one incarnation of a project, is refused by another that
	// happens to be at the same serial. Projects written before get one now.
	{sql: `
ALTER TABLE projects ADD COLUMN lineage TEXT NOT NULL DEFAULT '';
`, then: addLineages},
	// 5 (issue 10, drift): changes made to resources outside cc, kept
	// until cc applies the resource again or accepts them (AcceptDrift),
	// and when each sandbox with a lifetime expires (created_at +
	// lifetime; 0 for none), so that a read finds the expired ones
	// without opening a spec.
	{sql: `
CREATE TABLE drift (
	project TEXT NOT NULL,
	address TEXT NOT NULL,
	serial  INTEGER NOT NULL,
	what    TEXT NOT NULL,
	actor   TEXT NOT NULL,
	at      INTEGER NOT NULL,
	fields  TEXT NOT NULL,
	PRIMARY KEY (project, address, serial)
) STRICT;
ALTER TABLE resources ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
CREATE INDEX resources_by_expiry ON resources (project, expires_at) WHERE expires_at > 0;
`, then: addExpiries},
	// 6 (issue 10, data sources): what each data source a resource uses
	// resolved to when it was last applied, one per line
	// ("ADDRESS TARGET VERSION HASH PINNED", see encodeDataPins).
	{sql: `
ALTER TABLE resources ADD COLUMN data_pins TEXT NOT NULL DEFAULT '';
`},
	// 7 (issue 10, lifecycle): the resources protected by
	// lifecycle.prevent_destroy, with where the protection was declared
	// ("file:line:col"); a resource without a row is not protected
	// (service/lifecycle.go).
	{sql: `
CREATE TABLE protections (
	project     TEXT NOT NULL,
	address     TEXT NOT NULL,
	declared_at TEXT NOT NULL,
	PRIMARY KEY (project, address)
) STRICT;
`},
	// 8 (issue 10: moves, forgetting, adoption): each resource's identity,
	// a random id made when it is created and kept when it moves to another
	// address or project. Resources written before get one now.
	{sql: `
ALTER TABLE resources ADD COLUMN id TEXT NOT NULL DEFAULT '';
`, then: addResourceIDs},
	// 9 (issue 12: outputs): each project's output values; a sensitive
	// one's value sealed (nonce non-empty), as secret values are
	// (service/outputs.go).
	{sql: outputsTable},
	// 10 (issue 13): versions_by_hash goes. Since migration 3 a version
	// is found by its key (versions_by_key) or its number (the primary
	// key), never by its hash, and every new version still paid a write
	// of the index.
	{sql: `
DROP INDEX IF EXISTS versions_by_hash;
`},
	// 11 (issue 13): a chunk names the process that stored it (store's
	// uploader; 0 on SQLite and for the chunks stored before), so that a
	// PostgreSQL replica starting removes the chunks a killed one left
	// (reapChunks) and no other's.
	{sql: `
ALTER TABLE blob_chunks ADD COLUMN uploader INTEGER NOT NULL DEFAULT 0;
`},
}

// newLineage makes a project's lineage: 16 random bytes in hex.
func newLineage() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// addLineages is part of migration 4: every project gets a lineage.
func addLineages(ctx context.Context, tx *sql.Tx) error {
	rows, err := tx.QueryContext(ctx, "SELECT name FROM projects WHERE lineage = ''")
	if err != nil {
		return err
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return err
		}
		names = append(names, n)
	}
	if err := rows.Close(); err != nil {
		return err
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, n := range names {
		if _, err := tx.ExecContext(ctx, "UPDATE projects SET lineage = ? WHERE name = ?", newLineage(), n); err != nil {
			return err
		}
	}
	return nil
}

// walCheckpointPages is how many pages the WAL holds before a commit
// copies them into the database file (SQLite's wal_autocheckpoint, 1,000
// by default). A checkpoint writes each page once, however many commits
// wrote it, and fsyncs both files: at 1,000 pages, 10,000 creates paid
// a checkpoint every few batches, rewriting the same index pages each
// time (a tenth of the committer's time, issue 13). At 8,192 (32 MiB of
// WAL at most, 4 KiB pages) they pay a few. Durability is the same: a
// commit is in the WAL, which a restart replays, before it returns.
const walCheckpointPages = 8192

func openStore(ctx context.Context, path string, sync Sync) (*store, error) {
	if IsPostgres(path) {
		return openPGStore(ctx, path)
	}
	if path == "" {
		return nil, errors.New("no database file")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("database file %q: the name must not contain ? or #", path)
	}
	// The database holds specs and encrypted secrets: only its owner reads
	// it. SQLite gives the -wal and -shm files the database's mode.
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	f.Close()
	pragmas := "_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(" + strings.ToUpper(sync.String()) + ")"
	w, err := sql.Open("sqlite", "file:"+path+"?"+pragmas+"&_pragma=journal_mode(WAL)&_pragma=temp_store(MEMORY)"+
		"&_pragma=wal_autocheckpoint("+strconv.Itoa(walCheckpointPages)+")&_txlock=immediate")
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(0)
	w.SetConnMaxIdleTime(0)
	st := &store{w: w, stmts: newStmtCache(w)}
	if err := st.migrate(ctx); err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", "file:"+path+"?"+pragmas+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	r.SetMaxOpenConns(8)
	r.SetMaxIdleConns(8)
	r.SetConnMaxIdleTime(0)
	r.SetConnMaxLifetime(0)
	st.r = r
	return st, nil
}

func (st *store) migrate(ctx context.Context) error {
	var mode string
	if err := st.w.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil {
		return err
	}
	if mode != "wal" {
		return fmt.Errorf("journal mode is %q, not wal", mode)
	}
	var have int
	if err := st.w.QueryRowContext(ctx, "PRAGMA user_version").Scan(&have); err != nil {
		return err
	}
	if have > len(migrations) {
		return fmt.Errorf("the database has schema version %d; this cc knows up to %d: use a newer cc", have, len(migrations))
	}
	for i := have; i < len(migrations); i++ {
		tx, err := st.w.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, migrations[i].sql); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
		if then := migrations[i].then; then != nil {
			if err := then(ctx, tx); err != nil {
				tx.Rollback()
				return fmt.Errorf("migration %d: %w", i+1, err)
			}
		}
		if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", i+1)); err != nil {
			tx.Rollback()
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
		if err := tx.Commit(); err != nil {
			return fmt.Errorf("migration %d: %w", i+1, err)
		}
	}
	return nil
}

// postgres reports whether the store is PostgreSQL (else SQLite), from
// the driver it was opened with, as isSQLite says for the rotation.
func (st *store) postgres() bool { return !isSQLite(st.w) }

// close closes the store, once; a second call waits for the first and
// returns what it did.
func (st *store) close() error {
	st.closed.Do(func() { st.closeErr = st.closeOnce() })
	return st.closeErr
}

func (st *store) closeOnce() error {
	if st.reaper.stop != nil {
		st.reaper.stop()
		<-st.reaper.done // it uses the pools, closed below
	}
	var errs []error
	if st.r != nil {
		errs = append(errs, st.r.Close())
	}
	st.stmts.close()
	// A clean close checkpoints the WAL into the database file.
	errs = append(errs, st.w.Close())
	if st.tmpSpool != "" {
		errs = append(errs, os.RemoveAll(st.tmpSpool))
	}
	if st.spoolLock != nil {
		st.spoolLock.Close()
	}
	if st.uploaderConn != nil {
		errs = append(errs, st.uploaderConn.Close(context.Background()))
	}
	return errors.Join(errs...)
}

// splitLines is the inverse of strings.Join(s, "\n") for stored lists.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// unionSorted merges two sorted lists without duplicates.
func unionSorted(a, b []string) []string {
	out := make([]string, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			out = append(out, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			out = append(out, b[j])
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// upsert is SQL that writes a row of table whatever is there: "INSERT
// INTO table (cols) VALUES (?, ...) ON CONFLICT (key) DO UPDATE SET" each
// column not in key, and the assignments of reset (columns missing from
// cols back to their defaults, "col = 0"), as SQLite's INSERT OR REPLACE
// does, in SQL that SQLite and
// PostgreSQL both run. It is made once per statement, at init.
func upsert(table, key, cols string, reset ...string) string {
	names := strings.Split(cols, ",")
	keys := map[string]bool{}
	for _, k := range strings.Split(key, ",") {
		keys[strings.TrimSpace(k)] = true
	}
	var set []string
	for _, n := range names {
		if n = strings.TrimSpace(n); !keys[n] {
			set = append(set, n+" = excluded."+n)
		}
	}
	set = append(set, reset...)
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(names)), ", ")
	return "INSERT INTO " + table + " (" + cols + ") VALUES (" + marks + ") ON CONFLICT (" + key + ") DO UPDATE SET " + strings.Join(set, ", ")
}

// The upserts of the service's tables (upsert).
var (
	upsertResource   = upsert("resources", "project, address", "project, "+rowColumns, "expires_at = 0")
	upsertTombstone  = upsert("tombstones", "project, address", "project, address, serial")
	upsertChunk      = upsert("blob_chunks", "project, digest, seq", "project, digest, seq, data, uploader")
	upsertDrift      = upsert("drift", "project, address, serial", "project, address, serial, what, actor, at, fields")
	upsertProtection = upsert("protections", "project, address", "project, address, declared_at")
	upsertLock       = upsert("locks", "project", `project, lease_id, "user", host, command, pid, acquired_at, expires_at`)
)
