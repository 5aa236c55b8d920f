package service

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReapSpools: a PostgreSQL replica's spool directory whose process
// has ended (its lock let go of, as at kill -9) is removed by the next
// replica on the host, with what its interrupted uploads left; a live
// one's, one without a lock (of a cc from before it), the replica's own
// and anything not a spool are kept.
func TestReapSpools(t *testing.T) {
	tmp := t.TempDir()
	mk := func(name string) string {
		d := filepath.Join(tmp, name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(d, "upload-1"), []byte("part of an upload"), 0o600)
		return d
	}
	live, dead, old, own, other := mk(tmpSpoolPrefix+"live"), mk(tmpSpoolPrefix+"dead"), mk(tmpSpoolPrefix+"old"), mk(tmpSpoolPrefix+"own"), mk("other")
	held, err := lockSpool(live)
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, d := range []string{dead, own, other} {
		f, err := lockSpool(d)
		if err != nil {
			t.Fatal(err)
		}
		f.Close() // its process ended
	}
	reapSpools(tmp, own)
	for d, want := range map[string]bool{live: true, dead: false, old: true, own: true, other: true} {
		_, err := os.Stat(d)
		if got := err == nil; got != want {
			t.Errorf("%s kept: %v, want %v", filepath.Base(d), got, want)
		}
	}
	// A lock being made (its temporary name) is not the lock: the
	// directory is not dead yet.
	making := mk(tmpSpoolPrefix + "making")
	os.WriteFile(filepath.Join(making, ".lock-123"), nil, 0o600)
	reapSpools(tmp, own)
	if _, err := os.Stat(making); err != nil {
		t.Errorf("a spool whose lock is being made was removed: %v", err)
	}
}
