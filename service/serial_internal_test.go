package service

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestBatchWritesSerialsOnce: issue 13. In one batch, the serial each
// mutation bumps is written once, before a statement that reads the
// projects table and before the commit; a mutation that fails, before or
// after such a write, takes its own bump with it and nothing of the
// others'. Mutations a, c and e succeed (serials 1, 2, 3); b and d fail.
func TestBatchWritesSerialsOnce(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	failed := errors.New("failed on purpose")
	readSerial := func(tx *stmtTx) (n int64) {
		if err := tx.QueryRowContext(ctx, "SELECT serial FROM projects WHERE name = 'p'").Scan(&n); err != nil {
			t.Error(err)
		}
		return n
	}
	var seen []int64
	step := func(read, fail bool) *pending {
		return &pending{ctx: ctx, project: "p", run: func(tx *stmtTx) error {
			m := &mutation{tx: tx, ctx: ctx, s: s, project: "p"}
			if err := m.openProject(); err != nil {
				return err
			}
			m.bump()
			if err := m.record("test", "", nil, nil); err != nil {
				return err
			}
			if read {
				seen = append(seen, readSerial(tx))
			}
			if fail {
				return failed
			}
			return nil
		}}
	}
	ps := []*pending{step(false, false), step(false, true), step(true, false), step(true, true), step(false, false)}
	s.commits.doAll(ps)
	for i, want := range []error{nil, failed, nil, failed, nil} {
		if !errors.Is(ps[i].err, want) {
			t.Errorf("mutation %d: %v, want %v", i, ps[i].err, want)
		}
	}
	if want := []int64{2, 3}; len(seen) != 2 || seen[0] != want[0] || seen[1] != want[1] {
		t.Errorf("serials read inside the batch %v, want %v", seen, want)
	}
	var serial int64
	if err := s.st.r.QueryRowContext(ctx, "SELECT serial FROM projects WHERE name = 'p'").Scan(&serial); err != nil || serial != 3 {
		t.Errorf("committed serial %d (%v), want 3", serial, err)
	}
}
