package service

import (
	"context"
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
	// absent are rows known not to exist, by table and key.
	absent map[absentKey]bool
	// small are tables of few rows per project read whole: each row's
	// address and value (smallTable).
	small map[smallKey]map[string]string
}

type smallKey struct{ table, project string }

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

type absentKey struct{ table, project, address string }

// factTables are the tables facts are kept of, each with the word a
// statement that writes it names it by.
var factTables = []string{"projects", "locks", "tombstones", "protections", "drift"}

// forget forgets the facts of every table q names (all for a savepoint
// rolled back: forgetAll).
func (f *txFacts) forget(q string) {
	for _, t := range factTables {
		if !strings.Contains(q, t) {
			continue
		}
		switch t {
		case "projects":
			f.projects = nil
		case "locks":
			f.leases = nil
		default:
			for k := range f.absent {
				if k.table == t {
					delete(f.absent, k)
				}
			}
			for k := range f.small {
				if k.table == t {
					delete(f.small, k)
				}
			}
		}
	}
}

func (f *txFacts) forgetAll() { *f = txFacts{} }

// project is the project's row as known, if known.
func (f *txFacts) project(name string) (projectFact, bool) {
	p, ok := f.projects[name]
	return p, ok
}

// setProject records the project's row as it now is in the transaction.
func (f *txFacts) setProject(name string, p projectFact) {
	if f.projects == nil {
		f.projects = map[string]projectFact{}
	}
	f.projects[name] = p
}

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
	if tx.facts.leases == nil {
		tx.facts.leases = map[string]*ccv1.Lease{}
	}
	tx.facts.leases[project] = l
	return l, nil
}

// isAbsent reports whether the row of table at project and address is
// known not to exist.
func (f *txFacts) isAbsent(table, project, address string) bool {
	return f.absent[absentKey{table, project, address}]
}

// setAbsent records that the row of table at project and address does not
// exist.
func (f *txFacts) setAbsent(table, project, address string) {
	if f.absent == nil {
		f.absent = map[absentKey]bool{}
	}
	f.absent[absentKey{table, project, address}] = true
}

// smallTable is the rows of table (a key of smallQueries) of project, by
// address, read once per transaction until it writes the table; ok is
// false when the project has more than maxSmall of them.
func (tx *stmtTx) smallTable(ctx context.Context, table, project string) (rows map[string]string, ok bool, err error) {
	k := smallKey{table, project}
	if m, known := tx.facts.small[k]; known {
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
	if tx.facts.small == nil {
		tx.facts.small = map[smallKey]map[string]string{}
	}
	tx.facts.small[k] = m
	return m, m != nil, nil
}

// smallLacks reports whether table, read whole for project (smallTable),
// has no row at address.
func (f *txFacts) smallLacks(table, project, address string) bool {
	m := f.small[smallKey{table, project}]
	if m == nil {
		return false
	}
	_, has := m[address]
	return !has
}
