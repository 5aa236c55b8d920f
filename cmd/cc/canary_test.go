package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/service"
)

// TestCanaryEverywhere is issue 8's acceptance 2: one canary in a from_env
// secret, one in a from_env_file secret and one in an HCL sensitive
// variable used by an image step, a sandbox's env and a function's env,
// swept through every command (compile, validate, plan in three formats,
// plan --out, show, apply, state list/show, versions, error paths). Neither
// a canary nor its sha256 nor any 8-digit prefix of that sha256 is in any
// byte of output, plan files, the state database (with its -wal and -shm),
// the server's log or the temporary directory.
func TestCanaryEverywhere(t *testing.T) {
	examples, err := filepath.Abs("../../examples/multi-service")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, examples, dir)
	t.Chdir(dir)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")

	const (
		envCanary  = "canary-env-5d1e8b07"
		fileCanary = "canary-file-a93c62f4"
		varCanary  = "canary-var-0e7bd4c9"
	)
	canaries := []string{envCanary, fileCanary, varCanary, envCanary + "-2", fileCanary + "-2", varCanary + "-2"}
	t.Setenv("OPENAI_API_KEY", envCanary)
	if err := os.WriteFile("dev.env", []byte("DATABASE_URL="+fileCanary+"\nREDIS_URL=redis://x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	edit(t, "main.hcl", `project = "docs-platform"`, `project = "docs-platform"

variable "token" {
  type      = string
  sensitive = true
}`)
	// An image step, a sandbox's env and a function's env.
	edit(t, "main.hcl", `  entrypoint = ["celery", "-A", "worker.jobs"]`, `  env {
    vars = { BUILD_TOKEN = var.token }
  }

  entrypoint = ["celery", "-A", "worker.jobs"]`)
	edit(t, "main.hcl", `    MODE         = "development"`, `    MODE         = "development"
    TOKEN        = "t=${var.token}"`)
	edit(t, "main.hcl", `  handler = "api.server:summarize"
  env     = { OPENAI_API_KEY = secret.openai }`, `  handler = "api.server:summarize"
  env     = { OPENAI_API_KEY = secret.openai, TOKEN = var.token }`)

	var logs lockedBuffer
	withServerOptions(t, service.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	var seen bytes.Buffer
	run := func(want int, args ...string) {
		t.Helper()
		out, errs, code := cc(t, args...)
		// The command line holds the canary: the transcript names the
		// command by its first words only.
		fmt.Fprintf(&seen, "$ cc %s\n%s%s", args[0], out, errs)
		if code != want {
			t.Fatalf("cc %s exited %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, errs)
		}
	}
	v := "token=" + varCanary
	run(0, "validate", "--var", v, "main.hcl")
	run(0, "compile", "--var", v, "main.hcl")
	run(0, "compile", "--json", "--var", v, "main.hcl")
	run(0, "plan", "--var", v, "main.hcl")
	run(0, "plan", "--json", "--var", v, "main.hcl")
	run(0, "plan", "--format", "markdown", "--var", v, "main.hcl")
	run(0, "plan", "--out", "first.plan", "--var", v, "main.hcl")
	for _, f := range []string{"text", "json", "markdown"} {
		run(0, "show", "--format", f, "first.plan")
	}
	run(0, "apply", "--var", v, "first.plan")
	run(0, "state", "list", "--var", v, "main.hcl")
	for _, addr := range []string{"secret.openai", "secret.database", "sandbox.dev", "function.summarize", "image.worker"} {
		run(0, "state", "show", "--var", v, addr, "main.hcl")
	}
	run(0, "versions", "--var", v, "function.summarize", "main.hcl")
	run(0, "versions", "--var", v, "secret.database", "main.hcl")

	// Every value changes: the plan says so without showing them.
	t.Setenv("OPENAI_API_KEY", envCanary+"-2")
	if err := os.WriteFile("dev.env", []byte("DATABASE_URL="+fileCanary+"-2\nREDIS_URL=redis://x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	v = "token=" + varCanary + "-2"
	run(0, "plan", "--var", v, "main.hcl")
	run(0, "plan", "--json", "--var", v, "main.hcl")
	run(0, "plan", "--format", "markdown", "--var", v, "main.hcl")
	run(0, "plan", "--out", "second.plan", "--var", v, "main.hcl")
	run(0, "show", "second.plan")
	// The sandbox's env changed, so it is replaced, and its snapshot with it.
	run(1, "apply", "--auto-approve", "--var", v, "main.hcl")
	run(0, "apply", "--auto-approve", "--allow-data-loss", "--var", v, "main.hcl")
	run(0, "versions", "--var", v, "function.summarize", "main.hcl")

	// Error paths: a stale saved plan, a sensitive value where a quantity
	// belongs, a missing secret value.
	run(1, "apply", "--var", v, "second.plan")
	edit(t, "main.hcl", `      cpu    = "4"`, `      cpu    = var.token`)
	run(1, "validate", "--var", v, "main.hcl")
	run(1, "plan", "--var", v, "main.hcl")
	edit(t, "main.hcl", `      cpu    = var.token`, `      cpu    = "4"`)
	os.Unsetenv("OPENAI_API_KEY")
	run(0, "apply", "--auto-approve", "--var", v, "main.hcl")

	files := map[string][]byte{"output and errors": seen.Bytes(), "server log": logs.Bytes()}
	for _, name := range []string{"first.plan", "second.plan"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	for _, root := range []string{".cc", tmp} {
		filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			files[path] = b
			return nil
		})
	}
	if len(files[filepath.Join(".cc", "state.db")]) == 0 || len(logs.Bytes()) == 0 {
		t.Fatalf("no state database or no log to check")
	}
	for _, c := range canaries {
		sum := sha256.Sum256([]byte(c))
		hexSum := hex.EncodeToString(sum[:])
		for name, b := range files {
			if i := bytes.Index(b, []byte(c)); i >= 0 {
				t.Errorf("%s holds the canary %s: …%s…", name, c, b[max(0, i-300):min(len(b), i+100)])
			}
			// Any 8 hex digits of the prefix would do for an offline
			// check; the shortest prefix covers every longer one.
			if bytes.Contains(bytes.ToLower(b), []byte(hexSum[:8])) {
				t.Errorf("%s holds the first 8 hex digits of the canary %s's sha256", name, c)
			}
		}
	}
	for _, want := range []string{"(sensitive", "OPENAI_API_KEY is not set"} {
		if !strings.Contains(seen.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, seen.String())
		}
	}
}
