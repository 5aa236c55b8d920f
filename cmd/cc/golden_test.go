package main

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/internal/golden"
)

// cc runs a command in this process and returns its output.
func cc(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

// mustCC runs a command that must exit with want.
func mustCC(t *testing.T, want int, args ...string) (stdout, stderr string) {
	t.Helper()
	out, errs, code := cc(t, args...)
	if code != want {
		t.Fatalf("cc %s exited %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errs)
	}
	return out, errs
}

// copyTree copies a directory, leaving out .cc state.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() && d.Name() == ".cc" {
			return filepath.SkipDir
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func edit(t *testing.T, file, old, new string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(b, []byte(old)) {
		t.Fatalf("%s has no %q", file, old)
	}
	if err := os.WriteFile(file, bytes.Replace(b, []byte(old), []byte(new), 1), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGoldenPlans is acceptance 3: the text, JSON and Markdown plans of a
// project's life, each against its golden file in testdata/golden: the
// first apply; a pip package changed (the image says which step, the
// function gets a new version, the sandbox is replaced); a source file
// changed (its line diff); both changes reverted (the function reuses its
// first version); a resource removed; a secret's value changed (shown only
// as sensitive).
func TestGoldenPlans(t *testing.T) {
	goldens, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	fixture, err := filepath.Abs("testdata/plan/project")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, fixture, dir)
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	const value1, value2 = "sk-golden-first-value", "sk-golden-second-value"
	t.Setenv("OPENAI_API_KEY", value1)
	origHCL, _ := os.ReadFile("main.hcl")
	origSrc, _ := os.ReadFile("src/support.py")

	step := func(name string) {
		t.Helper()
		for _, f := range []struct{ ext, flag string }{{"txt", "--format=text"}, {"json", "--json"}, {"md", "--format=markdown"}} {
			out, errs := mustCC(t, 0, "plan", f.flag, "main.hcl")
			if errs != "" {
				t.Errorf("%s: cc plan %s wrote to stderr:\n%s", name, f.flag, errs)
			}
			for _, v := range []string{value1, value2} {
				if strings.Contains(out, v) {
					t.Errorf("%s: cc plan %s shows a secret value", name, f.flag)
				}
			}
			golden.Check(t, filepath.Join(goldens, name+"."+f.ext), []byte(out))
		}
		out, _ := mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
		if !strings.Contains(out, "\nApply complete: ") {
			t.Fatalf("%s: apply:\n%s", name, out)
		}
		if out, _ := mustCC(t, 0, "plan", "--detailed-exitcode", "main.hcl"); !strings.HasPrefix(out, "No changes.") {
			t.Fatalf("%s: after apply, plan:\n%s", name, out)
		}
	}

	step("first-apply")

	edit(t, "main.hcl", `"requests==2.32.3", "numpy"`, `"requests==2.32.3", "numpy==2.1"`)
	step("pip-changed")

	edit(t, "src/support.py", `        return "Refunds are processed within 5 business days."`,
		`        return "Refunds are processed within 3 business days."`)
	step("source-changed")

	if err := os.WriteFile("main.hcl", origHCL, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("src/support.py", origSrc, 0o644); err != nil {
		t.Fatal(err)
	}
	step("reverted")

	hcl := string(origHCL)
	i := strings.Index(hcl, `evaluation "support-quality" {`)
	if err := os.WriteFile("main.hcl", []byte(hcl[:i]), 0o644); err != nil {
		t.Fatal(err)
	}
	step("removed")

	t.Setenv("OPENAI_API_KEY", value2)
	step("secret-changed")
}
