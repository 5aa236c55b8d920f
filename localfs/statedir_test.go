package localfs

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestResolveRefusesStateDir: .cc, cc's own state (its database, the
// database's key, the compile cache's key), is never resolved for a
// configuration, named or through a link, existing or not.
func TestResolveRefusesStateDir(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, ".cc", "cache"), 0o700)
	os.WriteFile(filepath.Join(root, ".cc", "state.db.key"), []byte("k"), 0o600)
	os.MkdirAll(filepath.Join(root, "src"), 0o755)
	os.Symlink(".cc", filepath.Join(root, "state"))
	os.Symlink("../.cc/state.db.key", filepath.Join(root, "src", "key"))
	for _, rel := range []string{".cc", ".cc/state.db.key", "./.cc/cache", "src/../.cc/state.db.key", ".cc/missing", "state/state.db.key", "state", "src/key"} {
		if _, err := Resolve(root, rel); !errors.Is(err, ErrStateDir) {
			t.Errorf("Resolve(%q) = %v, want ErrStateDir", rel, err)
		}
	}
	for _, rel := range []string{"src", ".ccignore-not", ".ccx"} {
		if _, err := Resolve(root, rel); errors.Is(err, ErrStateDir) {
			t.Errorf("Resolve(%q) = %v: not in .cc", rel, err)
		}
	}
}
