package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"cc.dev/cc/buildkit/buildkittest"
)

// TestBuildPrint: cc build --print prints, with no daemon, the Dockerfile
// that buildkit's golden tests pin for the examples.
func TestBuildPrint(t *testing.T) {
	for _, tc := range []struct{ path, addr, golden string }{
		{"quickstart/main.cue", "image.app", "quickstart.app"},
		{"quickstart/main.hcl", "app", "quickstart.app"},
		{"multi-service/main.cue", "api", "multi-service.api"},
		{"multi-service/main.hcl", "image.worker", "multi-service.worker"},
	} {
		rc, stdout, stderr := ccRun(t, "build", "--buildkit", "unix:///nonexistent.sock", "--print", filepath.Join("..", "..", "examples", tc.path), tc.addr)
		if rc != 0 {
			t.Fatalf("cc build --print %s %s = %d: %s", tc.path, tc.addr, rc, stderr)
		}
		want, err := os.ReadFile(filepath.Join("..", "..", "buildkit", "testdata", "golden", "examples", tc.golden+".Dockerfile"))
		if err != nil {
			t.Fatal(err)
		}
		if stdout != string(want) {
			t.Errorf("cc build --print %s %s =\n%s\nwant\n%s", tc.path, tc.addr, stdout, want)
		}
	}
}

func TestBuildUsage(t *testing.T) {
	qs := filepath.Join("..", "..", "examples", "quickstart", "main.cue")
	for _, tc := range []struct {
		args []string
		rc   int
		want string
	}{
		{[]string{"--output", "type=docker,dest=x", qs}, exitUsage, "only type=oci"},
		{[]string{"--output", "dest", qs}, exitUsage, "type=oci,dest=FILE"},
		{[]string{"--output", "type=oci", qs}, exitUsage, "dest=FILE is missing"},
		{[]string{"--progress", "fancy", qs}, exitUsage, "--progress"},
		{[]string{"--print", "--push", "r", qs}, exitUsage, "--print builds nothing"},
		// issue 12: --json
		{[]string{"--print", "--json", qs}, exitUsage, "it takes no --json"},
		{[]string{"--print", qs, "image.ap"}, exitError, `did you mean "image.app"`},
	} {
		rc, _, stderr := ccRun(t, append([]string{"build"}, tc.args...)...)
		if rc != tc.rc || !strings.Contains(stderr, tc.want) {
			t.Errorf("cc build %q = %d, %q; want %d and %q", tc.args, rc, stderr, tc.rc, tc.want)
		}
	}
	t.Setenv("SOURCE_DATE_EPOCH", "yesterday")
	if rc, _, stderr := ccRun(t, "build", "--print", qs); rc != exitUsage || !strings.Contains(stderr, "SOURCE_DATE_EPOCH") {
		t.Errorf("cc build with SOURCE_DATE_EPOCH=yesterday = %d, %q", rc, stderr)
	}
}

// TestE2EBuildCLI: cc build pushes, then says "reused" without building;
// --force builds again; an OCI output is reused from its record; a failing
// step exits 1 with BuildKit's log and the step's position.
func TestE2EBuildCLI(t *testing.T) {
	env := buildkittest.Setup(t)
	dir := copyDir(t, filepath.Join("..", "..", "buildkit", "testdata", "e2e"))
	repo := env.Registry + "/e2e/cli-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	build := func(args ...string) (string, string) {
		t.Helper()
		args = append([]string{"build", "--buildkit", env.Buildkit, "--progress", "plain"}, args...)
		rc, stdout, stderr := ccRun(t, args...)
		if rc != 0 {
			t.Fatalf("cc %s = %d\n%s%s", strings.Join(args, " "), rc, stdout, stderr)
		}
		return stdout, stderr
	}
	stdout, _ := build("--push", repo, dir)
	for _, addr := range []string{"image.base", "image.app", "image.tool"} {
		if !strings.Contains(stdout, addr+": built "+repo+":cc-") {
			t.Errorf("first build printed %q, want %s built", stdout, addr)
		}
	}
	stdout, stderr := build("--push", repo, dir)
	if strings.Count(stdout, ": reused ") != 3 || strings.Contains(stdout, "built") {
		t.Errorf("second build printed %q, want three reused", stdout)
	}
	if stderr != "" {
		t.Errorf("second build showed progress %q; a reuse solves nothing", stderr)
	}
	// Issue 12: --json says the same as JSON, and nothing else on stdout.
	stdout, _ = build("--json", "--push", repo, dir)
	var bj buildJSON
	if err := json.Unmarshal([]byte(stdout), &bj); err != nil || len(bj.Images) != 3 || !bj.Images[0].Reused || !strings.HasPrefix(bj.Images[0].Ref, repo+":cc-") {
		t.Errorf("--json printed %q (%v), want three images reused from %s", stdout, err, repo)
	}
	stdout, _ = build("--push", repo, "--force", dir, "app")
	if !strings.Contains(stdout, "image.app: built") || !strings.Contains(stdout, "image.base: built") {
		t.Errorf("--force printed %q, want base and app built", stdout)
	}

	dest := filepath.Join(t.TempDir(), "app.tar")
	stdout, _ = build("--output", "type=oci,dest="+dest, dir, "image.app")
	if !strings.Contains(stdout, "image.app: built "+dest) || strings.Contains(stdout, "image.base") {
		t.Errorf("OCI build of app printed %q, want app alone built to %s", stdout, dest)
	}
	if fi, err := os.Stat(dest); err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		t.Fatalf("no OCI tarball at %s: %v", dest, err)
	}
	stdout, _ = build("--output", "type=oci,dest="+dest, dir, "image.app")
	if !strings.Contains(stdout, "image.app: reused") {
		t.Errorf("second OCI build printed %q, want reused", stdout)
	}

	fail := copyDir(t, filepath.Join("..", "..", "buildkit", "testdata", "e2e", "failing"))
	rc, _, stderr := ccRun(t, "build", "--buildkit", env.Buildkit, "--progress", "plain", "--push", repo, fail)
	if rc != exitError {
		t.Errorf("failing build = %d, want %d", rc, exitError)
	}
	for _, want := range []string{"cc-e2e-marker-before-failure", "main.cue:9:3: building image.broken failed at step 2 (run)", "exit code: 3"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("failing build's stderr lacks %q:\n%s", want, stderr)
		}
	}
}
