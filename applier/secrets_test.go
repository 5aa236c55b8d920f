package applier_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// TestItem9EmptyFromEnvRefused: issue 8 item 9. A from_env secret whose
// variable is set to the empty string used to be taken as a new value; it
// is refused when planning, naming the secret and the variable. An empty
// key in an env file is a value the user wrote and is kept.
func TestItem9EmptyFromEnvRefused(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "dev.env"), []byte("A=\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(`project = "p"
secret "k" { from_env = "K" }
secret "f" {
  from_env_file { path = "dev.env" }
}
`), 0o644)
	res, err := compiler.Compile(context.Background(), compiler.Input{Path: filepath.Join(dir, "main.hcl")})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Desired
	l := applier.LocalSecrets{Root: dir, LookupEnv: func(k string) (string, bool) { return "", k == "K" }}

	_, _, err = l.Value("secret.k", schema.SecretSpec{FromEnv: "K"})
	var ev *applier.EmptyValueError
	if !errors.As(err, &ev) || ev.Addr != "secret.k" || ev.Variable != "K" {
		t.Errorf("Value(from_env K=\"\") error = %v, want an *EmptyValueError naming secret.k and K", err)
	}
	if v, _, err := l.Value("secret.f", schema.SecretSpec{FromEnvFile: &schema.EnvFileSource{Path: "dev.env"}}); err != nil || string(v) != `{"A":""}` {
		t.Errorf("Value(from_env_file A=) = %q, %v; want {\"A\":\"\"}", v, err)
	}

	cl, _ := server(t)
	a, err := applier.New(cl, applier.WithSecrets(l))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = a.Plan(context.Background(), d, planner.Options{})
	want := "secret.k takes its value from the environment variable K, which is set to the empty string"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Plan() error = %v, want %q", err, want)
	}
	// Destroying needs no value.
	if _, _, err := a.Plan(context.Background(), d, planner.Options{Destroy: true}); err != nil {
		t.Errorf("Plan(destroy) error = %v", err)
	}
}

// TestItem13EnvFileFIFORefused: issue 8 item 13. An env file that is a
// FIFO used to block the plan for ever; it is refused unopened.
func TestItem13EnvFileFIFORefused(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "dev.env"), 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := applier.LocalSecrets{Root: dir}.Value("secret.f", schema.SecretSpec{FromEnvFile: &schema.EnvFileSource{Path: "dev.env"}})
		done <- err
	}()
	select {
	case err := <-done:
		want := "secret.f takes its value from the env file dev.env, which is a named pipe (FIFO), not a regular file"
		if err == nil || err.Error() != want {
			t.Errorf("Value(FIFO env file) error = %v, want %q", err, want)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Value(FIFO env file) blocks")
	}
}

// TestIssue16EnvFileLinkOutOfRootRefused: issue 16 item 4. The applier
// reads env files under the one local-files policy: a symbolic link out of
// the project root is refused, as the compiler refuses it, instead of
// being followed.
func TestIssue16EnvFileLinkOutOfRootRefused(t *testing.T) {
	outside := t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "stolen.env"), []byte("TOKEN=from-outside\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "stolen.env"), filepath.Join(root, "dev.env")); err != nil {
		t.Fatal(err)
	}
	v, _, err := applier.LocalSecrets{Root: root}.Value("secret.f", schema.SecretSpec{FromEnvFile: &schema.EnvFileSource{Path: "dev.env"}})
	if err == nil {
		t.Fatalf("Value(link out of the root) = %q, want an error", v)
	}
	if !strings.Contains(err.Error(), "outside the project root") {
		t.Errorf("Value(link out of the root) error = %v, want it to say the file is outside the project root", err)
	}
	if strings.Contains(err.Error(), "from-outside") {
		t.Errorf("error shows the file's content: %v", err)
	}
}

// TestIssue9EnvFileMalformedLineNamed: issue 9 item 12. A malformed line
// of an env file the applier reads is named by file and line, never by
// its content.
func TestIssue9EnvFileMalformedLineNamed(t *testing.T) {
	root := t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "dev.env"), []byte("TOKEN=s3cret-value\nthis line is wrong\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, _, err := applier.LocalSecrets{Root: root}.Value("secret.f", schema.SecretSpec{FromEnvFile: &schema.EnvFileSource{Path: "dev.env"}})
	if err == nil {
		t.Fatal("Value(malformed env file) = nil error")
	}
	const want = "secret.f takes its value from the env file dev.env, which has a malformed line: dev.env:2: "
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Value(malformed env file) error = %q, want it to start %q", err, want)
	}
	if strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "wrong") {
		t.Errorf("error shows the file's content: %v", err)
	}
}
