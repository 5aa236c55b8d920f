package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/internal/golden"
	"cc.dev/cc/service"
)

// newVersionProject is a project in HCL and CUE: an image that copies
// local files, a function and a sandbox that use a secret kept outside cc,
// the function with a version_trigger.
var newVersionProject = map[string]string{
	"main.hcl": `project = "nv"

image "app" {
  from = "python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"
  copy {
    src = "src"
    dst = "/app/src"
  }
}

secret "vault" {
  from_service = "vault-token"
}

function "answer" {
  image           = image.app
  source { paths = ["src"] }
  handler         = "src.app:answer"
  env_from        = [secret.vault]
  version_trigger = "one"
}

sandbox "dev" {
  image    = image.app
  env_from = [secret.vault]
}
`,
	"main.cue": `package nv

project: "nv"

images: app: {
	from: "python:3.12-slim@sha256:0000000000000000000000000000000000000000000000000000000000000000"
	steps: [{copy: {src: "src", dst: "/app/src"}}]
}

secrets: vault: from_service: "vault-token"

functions: answer: {
	image: images.app
	source: paths: ["src"]
	handler:         "src.app:answer"
	env_from:        [secrets.vault]
	version_trigger: "one"
}

sandboxes: dev: {
	image:    images.app
	env_from: [secrets.vault]
}
`,
	"src/app.py": "def answer(q):\n    return q\n",
}

// buildkitCounter listens where BUILDKIT_HOST points and counts the
// connections: any image work would dial it.
func buildkitCounter(t *testing.T) *atomic.Int64 {
	t.Helper()
	dir, err := os.MkdirTemp("", "bk")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	l, err := net.Listen("unix", filepath.Join(dir, "buildkitd.sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	var n atomic.Int64
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			n.Add(1)
			c.Close()
		}
	}()
	t.Setenv("BUILDKIT_HOST", "unix://"+l.Addr().String())
	return &n
}

// TestNewVersionNoUploadNoImageWork is issue 10 acceptance 6, in both
// languages: --new-version of an unchanged function, and then a change of
// its version_trigger, each make version N+1 with no UploadBlob, no
// EnsureImage and no connection to BuildKit (counted at the server with a
// gRPC interceptor, and at BUILDKIT_HOST); the plan says once that the
// secret kept outside cc cannot be compared.
func TestNewVersionNoUploadNoImageWork(t *testing.T) {
	for _, lang := range []string{"hcl", "cue"} {
		t.Run(lang, func(t *testing.T) {
			dir := t.TempDir()
			for name, content := range newVersionProject {
				if filepath.Ext(name) == ".cue" || filepath.Ext(name) == ".hcl" {
					if filepath.Ext(name) != "."+lang {
						continue
					}
				}
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			t.Chdir(dir)
			t.Setenv("NO_COLOR", "1")
			t.Setenv("CC_SERVER", "")
			builds := buildkitCounter(t)
			c := &counter{}
			withServerOptions(t, c.options()...)
			cfg := "main." + lang
			mustCC(t, 0, "apply", "--auto-approve", cfg)
			if calls := strings.Join(c.take(), " "); !strings.Contains(calls, "UploadBlob") || !strings.Contains(calls, "EnsureImage") {
				t.Fatalf("the first apply made %s, want uploads and an image", calls)
			}

			out, _ := mustCC(t, 0, "plan", "--new-version", "function.answer", cfg)
			if !strings.Contains(out, "~ function.answer  new version 2 (new version requested; now 1)") || !strings.Contains(out, "# new version requested with --new-version") {
				t.Errorf("plan --new-version:\n%s", out)
			}
			if n := strings.Count(out, "cannot compare them"); n != 1 {
				t.Errorf("plan --new-version warns %d times of the secret kept outside cc, want once:\n%s", n, out)
			}
			if calls := c.take(); len(calls) != 1 || calls[0] != "GetState" {
				t.Errorf("plan --new-version made the calls %v, want [GetState]", calls)
			}

			check := func(step string, version string, args ...string) {
				t.Helper()
				out, _ := mustCC(t, 0, append([]string{"apply", "--auto-approve"}, args...)...)
				if !regexp.MustCompile(`function\.answer: updated after [^:]+: version ` + version + `\n`).MatchString(out) {
					t.Errorf("%s: apply:\n%s", step, out)
				}
				applies := 0
				for _, m := range c.take() {
					switch m {
					case "UploadBlob", "EnsureImage":
						t.Errorf("%s: apply called %s", step, m)
					case "ApplyResource":
						applies++
					}
				}
				if applies != 1 {
					t.Errorf("%s: %d ApplyResource calls, want 1", step, applies)
				}
				if out, _ := mustCC(t, 0, "plan", cfg); !strings.HasPrefix(out, "No changes.") {
					t.Errorf("%s: plan after apply:\n%s", step, out)
				}
				c.take()
			}
			check("--new-version", "2", "--new-version", "function.answer", cfg)

			b, _ := os.ReadFile(cfg)
			if err := os.WriteFile(cfg, []byte(strings.Replace(string(b), `"one"`, `"two"`, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			out, _ = mustCC(t, 0, "plan", cfg)
			if !strings.Contains(out, "~ function.answer  new version 3 (now 2)") || !strings.Contains(out, `~ version_trigger: "one" → "two"`) {
				t.Errorf("plan with a new version_trigger:\n%s", out)
			}
			c.take()
			check("version_trigger", "3", cfg)

			out, _ = mustCC(t, 0, "versions", "function.answer", ".")
			if n := strings.Count(out, "\n"); n != 3 {
				t.Errorf("cc versions lists %d versions, want 3:\n%s", n, out)
			}
			if n := builds.Load(); n != 0 {
				t.Errorf("%d connections to BuildKit, want none", n)
			}
		})
	}
}

// TestGoldenNewVersionPlans: issue 10 acceptance 8 for a forced version:
// the text, JSON and Markdown plans of --new-version and of --replace of
// a function, in testdata/golden.
func TestGoldenNewVersionPlans(t *testing.T) {
	goldens, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-golden-first-value")
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	for _, tc := range []struct{ name, flag string }{{"new-version", "--new-version"}, {"replace-function", "--replace"}} {
		for _, f := range []struct{ ext, flag string }{{"txt", "--format=text"}, {"json", "--json"}, {"md", "--format=markdown"}} {
			out, errs := mustCC(t, 0, "plan", f.flag, tc.flag, "function.support-answer", "main.hcl")
			if errs != "" {
				t.Errorf("cc plan %s %s wrote to stderr:\n%s", f.flag, tc.flag, errs)
			}
			golden.Check(t, filepath.Join(goldens, tc.name+"."+f.ext), []byte(out))
		}
	}
}

// TestNewVersionRetriedOnce: issue 10, forced versions. When the answer to
// the forced ApplyResource is lost (the service made the version, then the
// connection failed), the applier's retry with the same idempotency key
// gets the first answer: one new version, not two.
func TestNewVersionRetriedOnce(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-retry")
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	var lost atomic.Int64
	withServerOptions(t, service.WithUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
		resp, err := next(ctx, req)
		if ar, ok := req.(interface{ GetNewVersion() bool }); ok && ar.GetNewVersion() && err == nil && lost.Add(1) == 1 {
			return nil, status.Error(codes.Unavailable, "connection lost after the version was made")
		}
		return resp, err
	}))
	out, _ := mustCC(t, 0, "apply", "--auto-approve", "--new-version", "function.support-answer", "main.hcl")
	if !regexp.MustCompile(`function\.support-answer: updated after [^:]+: version 2\n`).MatchString(out) || lost.Load() != 2 {
		t.Fatalf("apply (%d forced requests):\n%s", lost.Load(), out)
	}
	out, _ = mustCC(t, 0, "versions", "function.support-answer", ".")
	if n := strings.Count(out, "\n"); n != 2 {
		t.Errorf("cc versions lists %d versions, want 2:\n%s", n, out)
	}
}
