package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSensitiveOutputNotInStateDatabase checks that a sensitive output's
// value, stored with the state by apply, is sealed at rest: the canary is
// in no byte of the embedded state database (nor its -wal, -shm or
// spool), while cc output --show-sensitive reads it back (issue 12:
// outputs).
func TestSensitiveOutputNotInStateDatabase(t *testing.T) {
	const canary = "canary-output-7f3a91c2"
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	cfg := `project = "outs"
variable "token" {
  type      = string
  sensitive = true
}
volume "cache" { size = "1Gi" }
output "token" {
  value     = var.token
  sensitive = true
}
output "url" { value = "https://example.com" }
`
	if err := os.WriteFile("main.cc.hcl", []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errs, code := cc(t, "apply", "--auto-approve", "--var", "token="+canary, ".")
	if code != 0 {
		t.Fatalf("cc apply exited %d\n%s%s", code, out, errs)
	}
	if strings.Contains(out+errs, canary) {
		t.Fatalf("cc apply printed the sensitive output:\n%s%s", out, errs)
	}
	if !strings.Contains(out, "token = <sensitive>") {
		t.Fatalf("cc apply did not print the redacted output:\n%s", out)
	}
	out, errs, code = cc(t, "output", "--project", "outs", "--show-sensitive", "token")
	if code != 0 || strings.TrimSpace(out) != `"`+canary+`"` {
		t.Fatalf("cc output --show-sensitive token = %q, %q, %d; want the canary", out, errs, code)
	}
	found := 0
	err := filepath.WalkDir(".cc", func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		found++
		if bytes.Contains(b, []byte(canary)) {
			t.Errorf("%s holds the sensitive output's value in clear", path)
		}
		if strings.HasPrefix(filepath.Base(path), "state.db") && bytes.Contains(b, []byte("https://example.com")) {
			found += 100 // the plain output is there: the right file was read
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < 100 {
		t.Fatalf("the plain output is in no file under .cc (read %d files): the database was not where the test looked", found)
	}
}
