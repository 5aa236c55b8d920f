package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"cc.dev/cc/internal/golden"
	"cc.dev/cc/internal/servicetest"
	"cc.dev/cc/service"
)

// normalizeEvents replaces what changes from run to run in an event
// stream (timestamps, durations) by fixed text.
func normalizeEvents(s string) string {
	for _, r := range []struct{ re, to string }{
		{`"@timestamp":"[^"]*"`, `"@timestamp":"TIMESTAMP"`},
		{`"elapsed_seconds":[0-9]+`, `"elapsed_seconds":0`},
		{`after [0-9.]+(ns|µs|ms|s|m)+`, `after DURATION`},
		{`\([0-9.]+(ns|µs|ms|s|m)+\)`, `(DURATION)`},
		{`"cc":"[^"]*"`, `"cc":"VERSION"`},
		{`"@message":"cc [^"]*"`, `"@message":"cc VERSION"`},
	} {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.to)
	}
	return s
}

// checkEvents checks that every line of out is one event with the common
// fields, and that no secret value is in it.
func checkEvents(t *testing.T, out string, secrets ...string) {
	t.Helper()
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		var ev map[string]any
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("not a JSON event: %q: %v", line, err)
		}
		for _, k := range []string{"@level", "@message", "@module", "@timestamp", "type"} {
			if _, ok := ev[k]; !ok {
				t.Errorf("event without %s: %s", k, line)
			}
		}
	}
	for _, v := range secrets {
		if strings.Contains(out, v) {
			t.Errorf("the events hold a secret value")
		}
	}
}

// TestApplyJSONEvents checks cc apply --json's event stream against its
// golden files for a small project: its first apply (creates), then one
// update; nothing but events on stdout, no secret value. Issue 12: --json.
func TestApplyJSONEvents(t *testing.T) {
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
	t.Setenv("CC_SERVER", "")
	const value = "sk-apply-json-value"
	t.Setenv("OPENAI_API_KEY", value)
	for _, step := range []struct{ name, old, new string }{
		{"apply-json-create", "", ""},
		{"apply-json-update", `lifetime = "2h"`, `lifetime = "3h"`},
	} {
		if step.old != "" {
			edit(t, "main.hcl", step.old, step.new)
		}
		out, errs := mustCC(t, 0, "apply", "--json", "--auto-approve", "--parallelism", "1", "main.hcl")
		if errs != "" {
			t.Errorf("%s: stderr:\n%s", step.name, errs)
		}
		checkEvents(t, out, value)
		golden.Check(t, filepath.Join(goldens, step.name+".jsonl"), []byte(normalizeEvents(out)))
	}
}

// TestApplyJSONNeedsAutoApprove checks that --json without a plan file
// needs --auto-approve: there is no asking between events. Issue 12:
// --json.
func TestApplyJSONNeedsAutoApprove(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/plan/project", dir)
	t.Setenv("CC_SERVER", "")
	out, errs := mustCC(t, 2, "apply", "--json", filepath.Join(dir, "main.hcl"))
	if out != "" || !strings.Contains(errs, "--json needs --auto-approve") {
		t.Errorf("stdout %q, stderr %q", out, errs)
	}
}

// TestApplyJSONFailureIsDiagnostic checks that an apply that fails (here
// refused before any change: a secret's value is not set) writes its
// error as a diagnostic event on stdout, after the version event, and
// exits 1. Issue 12: --json.
func TestApplyJSONFailureIsDiagnostic(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/plan/project", dir)
	t.Setenv("CC_SERVER", "")
	t.Setenv("OPENAI_API_KEY", "")
	out, _, code := cc(t, "apply", "--json", "--auto-approve", filepath.Join(dir, "main.hcl"))
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	checkEvents(t, out)
	if !strings.Contains(out, `"type":"diagnostic"`) {
		t.Errorf("no diagnostic event:\n%s", out)
	}
}

// TestApplyJSONChangeErrored checks that a change the service refuses is
// an apply_errored event and a diagnostic naming its address and
// position, that what needs it is a diagnostic "not started", and that
// the apply's change_summary still comes, with exit status 1. Issue 12:
// --json.
func TestApplyJSONChangeErrored(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-errored")
	withServerOptions(t, service.WithUnaryInterceptor(servicetest.RefuseCalls(func(method string, req proto.Message) error {
		if r, ok := req.(interface{ GetAddress() string }); ok && strings.HasSuffix(method, "/ApplyResource") && r.GetAddress() == "function.support-answer" {
			return status.Error(codes.InvalidArgument, "refused by the test")
		}
		return nil
	})))
	out, _, code := cc(t, "apply", "--json", "--auto-approve", "--parallelism", "1", "main.hcl")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	checkEvents(t, out, "sk-errored")
	for _, want := range []string{
		`"@level":"error","@message":"function.support-answer: failed after `,
		`"type":"apply_errored"`,
		`"address":"function.support-answer","range":{"filename":"main.hcl"`,
		`"summary":"not started: evaluation.support-quality: `,
		`"operation":"apply"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %s in:\n%s", want, out)
		}
	}
}

// TestApplyJSONConfigError checks that a configuration that does not
// compile is a diagnostic event with its position, on stdout, after the
// version event. Issue 12: --json.
func TestApplyJSONConfigError(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/plan/project", dir)
	edit(t, filepath.Join(dir, "main.hcl"), `handler  = "src.support:answer"`, `handler  = 42`)
	t.Setenv("CC_SERVER", "")
	out, _, code := cc(t, "apply", "--json", "--auto-approve", filepath.Join(dir, "main.hcl"))
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	checkEvents(t, out)
	if !strings.Contains(out, `"type":"diagnostic"`) || !strings.Contains(out, `"range":{"filename":`) {
		t.Errorf("no diagnostic with a range:\n%s", out)
	}
}

// TestApplyJSONDataLossIsDiagnostic checks that a plan refused for
// destroying data is, after its planned_change events, a diagnostic naming
// what it would destroy. Issue 12: --json.
func TestApplyJSONDataLossIsDiagnostic(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-loss")
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	hcl, err := os.ReadFile("main.hcl")
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(hcl), `dataset "goldens" {`)
	if err := os.WriteFile("main.hcl", hcl[:i], 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, code := cc(t, "apply", "--json", "--auto-approve", "main.hcl")
	if code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, out)
	}
	checkEvents(t, out)
	if !strings.Contains(out, `"type":"planned_change"`) || !strings.Contains(out, `not applied: this plan destroys the data of dataset.goldens (delete)`) {
		t.Errorf("no data-loss diagnostic:\n%s", out)
	}
}
