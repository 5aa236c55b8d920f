package service_test

import (
	"database/sql"
	"fmt"
	"testing"
)

// undoMigration holds, for each migration after the first, the SQL that
// takes a database of that migration back to the one before it. The
// migration tests make an old database from a new one with downgrade, so
// that a new migration needs one entry here and no edit of any test.
var undoMigration = map[int][]string{
	2: {
		"ALTER TABLE resources DROP COLUMN sensitive",
		"ALTER TABLE images DROP COLUMN sensitive",
		"ALTER TABLE versions DROP COLUMN sensitive",
	},
	3: {
		"DROP INDEX versions_by_key",
		"ALTER TABLE versions DROP COLUMN key",
		"ALTER TABLE versions DROP COLUMN secrets",
	},
	4: {"ALTER TABLE projects DROP COLUMN lineage"},
	// issue 10, drift
	5: {
		"DROP INDEX resources_by_expiry",
		"ALTER TABLE resources DROP COLUMN expires_at",
		"DROP TABLE drift",
	},
	// issue 10, data sources
	6: {"ALTER TABLE resources DROP COLUMN data_pins"},
	// issue 10, lifecycle
	7: {"DROP TABLE protections"},
	// issue 10: moves, forgetting, adoption
	8: {"ALTER TABLE resources DROP COLUMN id"},
	// issue 12: outputs
	9: {"DROP TABLE outputs"},
	// issue 13: the unused index of versions by hash dropped
	10: {"CREATE INDEX versions_by_hash ON versions (project, address, hash)"},
	// issue 13: a chunk names the process that stored it
	11: {"ALTER TABLE blob_chunks DROP COLUMN uploader"},
}

// downgrade takes the database at path, of the newest migration, back to
// migration to, undoing the newer ones newest first.
func downgrade(t *testing.T, path string, to int) {
	t.Helper()
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var from int
	if err := raw.QueryRow("PRAGMA user_version").Scan(&from); err != nil {
		t.Fatal(err)
	}
	for m := from; m > to; m-- {
		steps, ok := undoMigration[m]
		if !ok {
			t.Fatalf("no undo steps for migration %d: add them to undoMigration", m)
		}
		for _, q := range steps {
			if _, err := raw.Exec(q); err != nil {
				t.Fatalf("undoing migration %d: %s: %v", m, q, err)
			}
		}
	}
	if _, err := raw.Exec(fmt.Sprintf("PRAGMA user_version = %d", to)); err != nil {
		t.Fatal(err)
	}
}
