package applier

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// PlanKey is the key that a saved plan's SensitiveMAC is made with
// (planner.SensitiveMAC): a random key in the project's .cc directory
// (ROOT/.cc/plan-key, mode 0600, beside the embedded state), made on first
// use; root is the project root (schema.Desired.Root). A plan file holds no
// sensitive value and nothing that can be checked against a guess of one
// without this key (issue 8 item 8); cc apply PLANFILE checks with it that
// the values compiled again are those planned, so a plan with sensitive
// values is applied from the checkout it was made in.
func PlanKey(root string) ([]byte, error) {
	dir, err := service.OwnStateDir(root)
	if err != nil {
		return nil, fmt.Errorf("plan key: %w", err)
	}
	path := filepath.Join(dir, "plan-key")
	key, err := readPlanKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return key, err
	}
	key, err = createPlanKey(path)
	if errors.Is(err, fs.ErrExist) {
		// Another cc made the key first: use that one.
		return readPlanKey(path)
	}
	return key, err
}

// readPlanKey reads a plan key file; a missing file's error wraps
// fs.ErrNotExist.
func readPlanKey(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("plan key: %w", err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("plan key %s: want 64 hex digits", path)
	}
	return key, nil
}

// createPlanKey makes a new random key at path. The key is written to a
// temporary file first and then linked into place, so a cc running at the
// same time never reads a half-written key; if path exists by then, the
// error wraps fs.ErrExist.
func createPlanKey(path string) ([]byte, error) {
	key := make([]byte, 32)
	rand.Read(key)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("plan key: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".plan-key-*")
	if err != nil {
		return nil, fmt.Errorf("plan key: %w", err)
	}
	defer os.Remove(f.Name())
	_, err = f.WriteString(hex.EncodeToString(key) + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(f.Name(), path)
	}
	if err != nil {
		return nil, fmt.Errorf("plan key: %w", err)
	}
	return key, nil
}

// HasSensitive reports whether a desired state holds values of sensitive
// variables: a plan file saved from it then needs a SensitiveMAC made with
// PlanKey, for an apply of it to check the values compiled again.
func HasSensitive(d *schema.Desired) bool {
	for _, r := range d.Resources {
		if len(r.Sensitive) > 0 {
			return true
		}
	}
	for _, o := range d.Outputs {
		if o.Sensitive { // issue 12: outputs
			return true
		}
	}
	return false
}
