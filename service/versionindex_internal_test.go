package service

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/schema"
)

// TestVersionsIndexedWithoutHash: a store has no index of versions by
// hash (migration 10), and every query of versions by a resource still
// searches an index rather than scanning the table.
func TestVersionsIndexedWithoutHash(t *testing.T) {
	ctx := context.Background()
	st, err := openStore(ctx, filepath.Join(t.TempDir(), "state.db"), SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	var n int
	if err := st.w.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'index' AND name = 'versions_by_hash'").Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatal("versions_by_hash is still there")
	}
	queries := []string{
		reuseQuery(schema.KindFunction),
		reuseQuery(schema.KindScalingGroup),
		"SELECT COALESCE(MAX(version), 0) + 1 FROM versions WHERE project = ? AND address = ?",
		"SELECT hash, spec, sensitive FROM versions WHERE project = ? AND address = ? AND version = ?",
		"SELECT version, hash, spec, created_at, key, secrets, sensitive FROM versions WHERE project = ? AND address = ? ORDER BY version",
		"DELETE FROM versions WHERE project = ? AND address = ?",
	}
	for _, q := range queries {
		args := make([]any, strings.Count(q, "?"))
		for i := range args {
			args[i] = "x"
		}
		rows, err := st.w.QueryContext(ctx, "EXPLAIN QUERY PLAN "+q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		for _, d := range plan {
			if strings.HasPrefix(d, "SCAN v") || strings.HasPrefix(d, "SCAN versions") {
				t.Errorf("%s: %s", q, strings.Join(plan, "; "))
			}
		}
	}
}
