package service_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"cc.dev/cc/service"
)

// TestOpenProjectState is issue 12 (cc as a Go library): a program opens
// the embedded state cc itself uses, ROOT/.cc/state.db, with the
// .gitignore that keeps it out of version control, and a .gitignore of
// its own is left alone.
func TestOpenProjectState(t *testing.T) {
	root := t.TempDir()
	c, closeFn, err := service.OpenProject(context.Background(), root)
	if err != nil {
		t.Fatalf("OpenProject() = %v", err)
	}
	if _, err := c.GetState(context.Background(), "p"); err != nil {
		t.Errorf("GetState() = %v", err)
	}
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(root, ".cc", "state.db"); service.ProjectStatePath(root) != want {
		t.Errorf("ProjectStatePath() = %q, want %q", service.ProjectStatePath(root), want)
	}
	if _, err := os.Stat(service.ProjectStatePath(root)); err != nil {
		t.Errorf("the state database: %v", err)
	}
	dir := filepath.Join(root, ".cc")
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf(".cc: %v, mode %v, want 0700", err, fi.Mode().Perm())
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".gitignore")); err != nil || string(b) != "# cc's local state: never commit it.\n*\n" {
		t.Errorf(".cc/.gitignore = %q, %v", b, err)
	}
	os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("mine\n"), 0o644)
	_, closeFn, err = service.OpenProject(context.Background(), root)
	if err != nil {
		t.Fatalf("OpenProject() again = %v", err)
	}
	closeFn()
	if b, _ := os.ReadFile(filepath.Join(dir, ".gitignore")); string(b) != "mine\n" {
		t.Errorf(".cc/.gitignore rewritten: %q", b)
	}
}
