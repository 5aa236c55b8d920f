package service

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestWALCheckpointsLessOften: the writer's WAL holds walCheckpointPages
// before a commit checkpoints it, not SQLite's default of 1,000: eight
// commits of 1 MiB each (about 2,100 pages) leave every page in the WAL,
// where a checkpoint at 1,000 pages would have reset it to its start.
func TestWALCheckpointsLessOften(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "state.db")
	st, err := openStore(ctx, db, SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	var pages int
	if err := st.w.QueryRowContext(ctx, "PRAGMA wal_autocheckpoint").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if pages != walCheckpointPages {
		t.Fatalf("wal_autocheckpoint = %d, want %d", pages, walCheckpointPages)
	}
	if _, err := st.w.ExecContext(ctx, "CREATE TABLE filler (b BLOB)"); err != nil {
		t.Fatal(err)
	}
	for i := range 8 {
		if _, err := st.w.ExecContext(ctx, "INSERT INTO filler (b) VALUES (?)", bytes.Repeat([]byte{byte(i)}, 1<<20)); err != nil {
			t.Fatal(err)
		}
	}
	fi, err := os.Stat(db + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 8<<20 {
		t.Fatalf("the WAL is %d bytes after 8 MiB of commits: it was checkpointed", fi.Size())
	}
}
