package planner_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/planner"
)

// TestSaveLoadFile is issue 12 (cc as a Go library): a program saves a
// plan file and reads it back without cmd/cc; the file is its owner's
// alone, and LoadFile takes only a regular file and names it in errors.
func TestSaveLoadFile(t *testing.T) {
	_, f := samplePlanFile(t)
	dir := t.TempDir()
	name := filepath.Join(dir, "plan.json")
	if err := f.Save(name); err != nil {
		t.Fatalf("Save() = %v", err)
	}
	if fi, err := os.Stat(name); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("saved plan file: %v, mode %v, want 0600", err, fi.Mode().Perm())
	}
	if _, err := os.Stat(name + ".tmp"); !os.IsNotExist(err) {
		t.Errorf("Save left %s.tmp behind (%v)", name, err)
	}
	got, err := planner.LoadFile(name)
	if err != nil {
		t.Fatalf("LoadFile() = %v", err)
	}
	if diff := cmp.Diff(jsonOf(t, f.Plan), jsonOf(t, got.Plan)); diff != "" {
		t.Errorf("plan after Save and LoadFile (-want +got):\n%s", diff)
	}

	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\n  \"kind\": 3\n}\n"), 0o600)
	if _, err := planner.LoadFile(bad); err == nil || !strings.HasPrefix(err.Error(), bad+":") {
		t.Errorf("LoadFile(bad) = %v, want an error naming %s", err, bad)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	if _, err := planner.LoadFile(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("LoadFile(fifo) = %v, want: not a regular file", err)
	}
}
