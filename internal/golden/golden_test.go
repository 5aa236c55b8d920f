package golden

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of stopping.
type recorder struct {
	testing.TB
	failed bool
	msg    string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.failed = true
	r.msg = fmt.Sprintf(format, args...)
}
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...) }
func (r *recorder) Fatal(args ...any)                 { r.failed = true }

// TestCheck is issue 16 item 6 (one golden helper): equal content passes,
// different or missing content fails, and -update rewrites the file.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "a.txt")
	r := &recorder{TB: t}
	Check(r, path, []byte("one\n"))
	if !r.failed {
		t.Fatal("Check() of a missing file passed")
	}
	t.Setenv("CC_UPDATE", "1")
	r = &recorder{TB: t}
	Check(r, path, []byte("one\n"))
	if b, err := os.ReadFile(path); r.failed || err != nil || string(b) != "one\n" {
		t.Fatalf("Check() under CC_UPDATE=1 wrote %q, %v (failed %v)", b, err, r.failed)
	}
	t.Setenv("CC_UPDATE", "")
	r = &recorder{TB: t}
	Check(r, path, []byte("one\n"))
	if r.failed {
		t.Fatal("Check() of equal content failed")
	}
	r = &recorder{TB: t}
	Check(r, path, []byte("two\n"))
	if !r.failed || !strings.Contains(r.msg, "differs") {
		t.Fatalf("Check() of different content: failed %v, message %q", r.failed, r.msg)
	}
}
