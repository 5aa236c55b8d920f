package compiler

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigCannotReadStateDir: no function, module or CUE load reads
// cc's own .cc (the embedded state's database and key, the compile
// cache's key): a configuration that asks is an error at its place, and
// no value of .cc reaches the desired state (it would be shown by a plan
// and sent by an apply).
func TestConfigCannotReadStateDir(t *testing.T) {
	for _, expr := range []string{
		`file(".cc/state.db.key")`, `filebase64(".cc/cache/key")`, `templatefile(".cc/state.db.key", {})`,
		`filesha256(".cc/state.db.key")`, `tostring(fileexists(".cc/state.db.key"))`, `join(",", fileset(".cc", "**"))`,
		`file("state/state.db.key")`, `file("src/key")`,
	} {
		t.Run(expr, func(t *testing.T) {
			dir := t.TempDir()
			os.MkdirAll(filepath.Join(dir, ".cc", "cache"), 0o700)
			os.WriteFile(filepath.Join(dir, ".cc", "state.db.key"), []byte("the-state-key\n"), 0o600)
			os.WriteFile(filepath.Join(dir, ".cc", "cache", "key"), []byte("the-cache-key"), 0o600)
			os.MkdirAll(filepath.Join(dir, "src"), 0o755)
			os.Symlink(".cc", filepath.Join(dir, "state"))
			os.Symlink("../.cc/state.db.key", filepath.Join(dir, "src", "key"))
			os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(`project = "p"
image "app" {
  from = "python:3.12-slim"
  env {
    vars = { K = `+expr+` }
  }
}
`), 0o644)
			res, err := Compile(context.Background(), Input{Path: dir})
			if err == nil {
				b, _ := res.Desired.MarshalCanonical()
				t.Fatalf("compiled: %s", b)
			}
			if msg := err.Error(); !strings.Contains(msg, "is in .cc, cc's own state directory") || !strings.Contains(msg, "main.hcl:5:") {
				t.Fatalf("error %q, want one at main.hcl:5 that says the path is in .cc", msg)
			}
			if strings.Contains(err.Error(), "the-state-key") || strings.Contains(err.Error(), "the-cache-key") {
				t.Fatalf("the error quotes .cc: %v", err)
			}
		})
	}
	t.Run("module", func(t *testing.T) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, ".cc", "m"), 0o700)
		os.WriteFile(filepath.Join(dir, ".cc", "m", "m.hcl"), []byte(`image "x" { from = "python:3.12-slim" }`+"\n"), 0o600)
		os.WriteFile(filepath.Join(dir, "main.hcl"), []byte("project = \"p\"\nmodule \"m\" {\n  source = \"./.cc/m\"\n}\n"), 0o644)
		_, err := Compile(context.Background(), Input{Path: dir})
		if err == nil || !strings.Contains(err.Error(), "is in .cc, cc's own state directory") {
			t.Fatalf("error %v, want one that says the module is in .cc", err)
		}
	})
}
