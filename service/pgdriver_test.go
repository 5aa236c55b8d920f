package service

import (
	"strconv"
	"strings"
	"testing"
)

// TestRebind: issue 14. The ? placeholders of the service's SQL become
// PostgreSQL's $n, except inside quoted strings, quoted identifiers and
// comments.
func TestRebind(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT a FROM t WHERE b = ? AND c = ?", "SELECT a FROM t WHERE b = $1 AND c = $2"},
		{"SELECT '?', ? FROM t", "SELECT '?', $1 FROM t"},
		{"SELECT 'it''s ?', ?", "SELECT 'it''s ?', $1"},
		{`SELECT "we?ird", ?`, `SELECT "we?ird", $1`},
		{"SELECT ? -- what?\n, ?", "SELECT $1 -- what?\n, $2"},
		{"SELECT ? /* a ? b */ , ?", "SELECT $1 /* a ? b */ , $2"},
		{"SELECT '\n' || ? || '\n'", "SELECT '\n' || $1 || '\n'"},
		{"SELECT 'unclosed ?", "SELECT 'unclosed ?"},
		{"SELECT ? /* unclosed ?", "SELECT $1 /* unclosed ?"},
		{"?,?,?,?,?,?,?,?,?,?,?", "$1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11"},
	} {
		if got := rebind(tt.in); got != tt.want {
			t.Errorf("rebind(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzRebind: issue 14. rebind never panics, changes nothing but ?
// placeholders, and numbers them 1, 2, ... in order: putting ? back for
// each $n gives the input again.
func FuzzRebind(f *testing.F) {
	for _, s := range []string{"SELECT ?", "'?'", `"?"`, "-- ?\n?", "/* ? */?", "''?''", "?'?'?"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if strings.Contains(q, "$") {
			return
		}
		out := rebind(q)
		n := strings.Count(out, "$")
		back := out
		for i := n; i >= 1; i-- {
			back = strings.Replace(back, "$"+strconv.Itoa(i), "?", 1)
		}
		if n > 0 && !strings.Contains(out, "$1") {
			t.Fatalf("rebind(%q) = %q: numbering does not start at 1", q, out)
		}
		if back != q {
			t.Fatalf("rebind(%q) = %q, which is not the input with ? numbered", q, out)
		}
	})
}

// TestPGDDL: issue 14. SQLite's migrations become PostgreSQL's.
func TestPGDDL(t *testing.T) {
	in := "CREATE TABLE locks (\n\tproject TEXT PRIMARY KEY,\n\tuser    TEXT NOT NULL,\n\tpid     INTEGER NOT NULL,\n\tdata    BLOB NOT NULL\n) STRICT;\nALTER TABLE x ADD COLUMN y INTEGER NOT NULL DEFAULT 0;"
	want := "CREATE TABLE locks (\n\tproject TEXT PRIMARY KEY,\n\t\"user\"    TEXT NOT NULL,\n\tpid     BIGINT NOT NULL,\n\tdata    BYTEA NOT NULL\n);\nALTER TABLE x ADD COLUMN y BIGINT NOT NULL DEFAULT 0;"
	if got := pgDDL(in); got != want {
		t.Fatalf("pgDDL() = %q, want %q", got, want)
	}
}

// TestUpsert: issue 14. The portable INSERT OR REPLACE.
func TestUpsert(t *testing.T) {
	got := upsert("t", "a, b", "a, b, c, d", "e = 0")
	want := "INSERT INTO t (a, b, c, d) VALUES (?, ?, ?, ?) ON CONFLICT (a, b) DO UPDATE SET c = excluded.c, d = excluded.d, e = 0"
	if got != want {
		t.Fatalf("upsert() = %q, want %q", got, want)
	}
}
