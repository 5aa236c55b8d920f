package service

import (
	"context"
	"database/sql"
	"errors"
	"strings"

	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// txFacts is what a write transaction has learnt of rows that only it can
// change (issue 13: a batch of mutations read the same project row and
// lease once per mutation, and deleted tombstones and protections they
// had just found absent). No other writer runs while it is open: SQLite
// has one writer connection, and every PostgreSQL write transaction
// takes one advisory lock first (pgdriver.go). So a fact read in it stays
// true until the transaction itself writes the table: every statement it
// runs through stmtTx.ExecContext that names a table forgets that table's
// facts, and a savepoint rolled back forgets them all (runSaved).
//
// The commit's own lease check (committer.lostLeases) does not use them:
// it reads the lease again.
type txFacts struct {
	projects map[string]projectFact
	leases   map[string]*ccv1.Lease // nil: the project has no lease
	// absent are rows known not to exist, by table and key; present,
	// rows known to exist (blobs).
	absent, present map[string]map[place]bool // by table
	// deps are the depends_on of resource rows, by place (a row known
	// not to exist is absent), kept up to date by the one statement that
	// writes them in a mutation (mutation.put).
	deps map[place]string
	// secrets are the current revisions of managed secrets, by place
	// (nil: none; readVersionSecret), forgotten with the secret_revisions
	// table, the resources table, or a write of the secret's row (put).
	secrets map[place]*versionSecret
	// small are tables of few rows per project read whole: each row's
	// address and value (smallTable).
	small map[string]map[string]map[string]string // by table, then project
}

// smallQueries read a table of few rows per project whole: the address
// and a value of each, at most maxSmall+1 rows.
var smallQueries = map[string]string{
	"protections": "SELECT address, declared_at FROM protections WHERE project = ? LIMIT ?",
	"drift":       "SELECT address, address FROM drift WHERE project = ? LIMIT ?",
	"tombstones":  "SELECT address, CAST(serial AS TEXT) FROM tombstones WHERE project = ? LIMIT ?",
}

// maxSmall is how many rows of a project smallTable keeps of a table; a
// project with more is looked up a row at a time.
const maxSmall = 1000

// projectFact is a project's row as the transaction read or wrote it.
type projectFact struct {
	serial int64
	salt   []byte
}

// factTables are the tables facts are kept of, each with the word a
// statement that writes it names it by.
var factTables = []string{"projects", "locks", "tombstones", "protections", "drift", "idempotency", "blobs", "resources", "secret_revisions"}

// setExpirySQL records when a resource row expires (mutation.setExpiry).
const setExpirySQL = "UPDATE resources SET expires_at = ? WHERE project = ? AND address = ?"

// keepsFacts reports whether q, which names table, leaves the facts of
// table to its caller, which updates those of the one row it writes: the
// insert of an idempotency key (mutation.record), and the writes of a
// resource row by mutation.put, which changes its depends_on to what it
// records (setExpiry's changes none).
func keepsFacts(q, table string) bool {
	switch table {
	case "idempotency":
		return q == insertIdempotency
	case "resources":
		return q == upsertResource || q == setExpirySQL
	}
	return false
}

// insertIdempotency records a call's response under its idempotency key;
// its caller (mutation.record) updates the facts of the key it writes
// (keepsFacts).
const insertIdempotency = "INSERT INTO idempotency (project, key, method, request_mac, response, created_at) VALUES (?, ?, ?, ?, ?, ?)"

// forget forgets the facts of every table q names (all for a savepoint
// rolled back: forgetAll).
func (f *txFacts) forget(q string) {
	for _, t := range factTables {
		if !strings.Contains(q, t) || keepsFacts(q, t) {
			continue
		}
		switch t {
		case "resources":
			clear(f.deps)
			clear(f.secrets)
		case "secret_revisions":
			clear(f.secrets)
		case "projects":
			clear(f.projects)
		case "locks":
			clear(f.leases)
		}
		delete(f.absent, t)
		delete(f.present, t)
		delete(f.small, t)
	}
}

// newTxFacts knows nothing yet.
func newTxFacts() txFacts {
	return txFacts{projects: map[string]projectFact{}, leases: map[string]*ccv1.Lease{},
		absent: map[string]map[place]bool{}, present: map[string]map[place]bool{},
		deps: map[place]string{}, secrets: map[place]*versionSecret{}, small: map[string]map[string]map[string]string{}}
}

func (f *txFacts) forgetAll() { *f = newTxFacts() }

// project is the project's row as known, if known.
func (f *txFacts) project(name string) (projectFact, bool) {
	p, ok := f.projects[name]
	return p, ok
}

// setProject records the project's row as it now is in the transaction.
func (f *txFacts) setProject(name string, p projectFact) { f.projects[name] = p }

// lease is the project's lease (nil: none), read once per transaction
// until it writes the locks table.
func (tx *stmtTx) lease(ctx context.Context, project string) (*ccv1.Lease, error) {
	if l, ok := tx.facts.leases[project]; ok {
		return l, nil
	}
	l, err := lease(ctx, tx, project)
	if err != nil {
		return nil, err
	}
	tx.facts.leases[project] = l
	return l, nil
}

// isAbsent reports whether the row of table at project and address is
// known not to exist.
func (f *txFacts) isAbsent(table, project, address string) bool {
	return f.absent[table][place{project, address}]
}

// setAbsent records that the row of table at project and address does not
// exist.
func (f *txFacts) setAbsent(table, project, address string) {
	setFact(f.absent, table, place{project, address})
}

// smallTable is the rows of table (a key of smallQueries) of project, by
// address, read once per transaction until it writes the table; ok is
// false when the project has more than maxSmall of them.
func (tx *stmtTx) smallTable(ctx context.Context, table, project string) (rows map[string]string, ok bool, err error) {
	if m, known := tx.facts.small[table][project]; known {
		return m, m != nil, nil
	}
	rs, err := tx.QueryContext(ctx, smallQueries[table], project, maxSmall+1)
	if err != nil {
		return nil, false, err
	}
	m := map[string]string{}
	for rs.Next() {
		var addr, v string
		if err := rs.Scan(&addr, &v); err != nil {
			rs.Close()
			return nil, false, err
		}
		m[addr] = v
	}
	if err := closeRows(rs); err != nil {
		return nil, false, err
	}
	if len(m) > maxSmall {
		m = nil
	}
	if tx.facts.small[table] == nil {
		tx.facts.small[table] = map[string]map[string]string{}
	}
	tx.facts.small[table][project] = m
	return m, m != nil, nil
}

// smallLacks reports whether table, read whole for project (smallTable),
// has no row at address.
func (f *txFacts) smallLacks(table, project, address string) bool {
	m := f.small[table][project]
	if m == nil {
		return false
	}
	_, has := m[address]
	return !has
}

// isPresent reports whether the row of table at project and key is known
// to exist.
func (f *txFacts) isPresent(table, project, key string) bool {
	return f.present[table][place{project, key}]
}

// written records that the transaction wrote the row of table at project
// and key: it exists.
func (f *txFacts) written(table, project, key string) {
	delete(f.absent[table], place{project, key})
	setFact(f.present, table, place{project, key})
}

// prefetch looks up, in a few queries, which of the keys of table (a key
// of prefetchQueries) project has, and records each as present or absent:
// what a batch's calls would look up one at a time (committer.prefetch).
func (tx *stmtTx) prefetch(ctx context.Context, table, project string, keys []string) error {
	have, err := selectIn(ctx, tx, prefetchQueries[table], project, keys)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if have[k] {
			tx.facts.written(table, project, k)
		} else {
			tx.facts.setAbsent(table, project, k)
		}
	}
	return nil
}

// inChunk is how many keys one query of selectIn asks for.
const inChunk = 500

// selectIn runs query, which selects one column of project's rows before
// an IN list, for keys (inChunk at a time) and returns the values found;
// its error is a status (dbError).
func selectIn(ctx context.Context, q rowsQuerier, query, project string, keys []string) (map[string]bool, error) {
	have := map[string]bool{}
	err := queryIn(ctx, q, query, project, keys, func(rows *sql.Rows) error {
		var k string
		if err := rows.Scan(&k); err != nil {
			return err
		}
		have[k] = true
		return nil
	})
	return have, err
}

// queryIn runs query, which selects project's rows before an IN list, for
// keys (inChunk at a time, with the query's end after the list), giving
// each row to scan; its error is a status (dbError).
func queryIn(ctx context.Context, q rowsQuerier, query, project string, keys []string, scan func(*sql.Rows) error, end ...string) error {
	for i := 0; i < len(keys); i += inChunk {
		part := keys[i:min(i+inChunk, len(keys))]
		args := make([]any, 0, len(part)+1)
		args = append(args, project)
		for _, k := range part {
			args = append(args, k)
		}
		rows, err := q.QueryContext(ctx, query+" IN (?"+strings.Repeat(",?", len(part)-1)+")"+strings.Join(end, ""), args...)
		if err != nil {
			return dbError(err)
		}
		for rows.Next() {
			if err := scan(rows); err != nil {
				rows.Close()
				return dbError(err)
			}
		}
		if err := closeRows(rows); err != nil {
			return err
		}
	}
	return nil
}

// prefetchQueries select the keys a project has of a table, before an IN
// list.
var prefetchQueries = map[string]string{
	"idempotency": "SELECT key FROM idempotency WHERE project = ? AND key",
	"resources":   "SELECT address FROM resources WHERE project = ? AND address",
	"blobs":       "SELECT digest FROM blobs WHERE project = ? AND digest",
}

// dependsOn is the depends_on of the resource row at project and address;
// found is false when there is none.
func (tx *stmtTx) dependsOn(ctx context.Context, project, address string) (deps string, found bool, err error) {
	if tx.facts.isAbsent("resources", project, address) {
		return "", false, nil
	}
	if d, ok := tx.facts.deps[place{project, address}]; ok {
		return d, true, nil
	}
	err = tx.QueryRowContext(ctx, "SELECT depends_on FROM resources WHERE project = ? AND address = ?", project, address).Scan(&deps)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		tx.facts.setAbsent("resources", project, address)
		return "", false, nil
	case err != nil:
		return "", false, err
	}
	tx.facts.deps[place{project, address}] = deps
	return deps, true, nil
}

// versionSecret is readVersionSecret, remembered for the transaction.
func (tx *stmtTx) versionSecret(ctx context.Context, project, address string) (*versionSecret, error) {
	pl := place{project, address}
	if s, ok := tx.facts.secrets[pl]; ok {
		return s, nil
	}
	s, err := readVersionSecret(ctx, tx, project, address)
	if err != nil {
		return nil, err
	}
	tx.facts.secrets[pl] = s
	return s, nil
}

// setFact adds pl to the facts of table in m.
func setFact(m map[string]map[place]bool, table string, pl place) {
	if m[table] == nil {
		m[table] = map[place]bool{}
	}
	m[table][pl] = true
}
