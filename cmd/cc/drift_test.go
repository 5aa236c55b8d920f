package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"cc.dev/cc/internal/golden"
	"cc.dev/cc/service"
)

// The drift project in both languages: a sandbox with tags, and one that
// lives for a second.
var driftConfigs = map[string]string{
	"main.hcl": `project = "drift"

image "app" {
  from = "python:3.12-slim"
}

sandbox "dev" {
  image = image.app
  tags  = ["team-a"]
}

sandbox "tmp" {
  image    = image.app
  lifetime = "1s"
}
`,
	"main.cue": `package drift

project: "drift"

images: app: from: "python:3.12-slim"

sandboxes: dev: {
	image: images.app
	tags: ["team-a"]
}

sandboxes: tmp: {
	image:    images.app
	lifetime: "1s"
}
`,
}

// driftClock is the service's clock in the drift tests: fixed, so that
// the times in the goldens are, and moved by hand past a lifetime.
type driftClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *driftClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *driftClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

const (
	driftCCToken  = "drift-cc-token-0123456789"
	driftSDKToken = "drift-sdk-token-0123456789"
)

// TestDriftAcceptance is issue 10 acceptance 7 for drift, in both
// languages: a tags change made through the API with another token is
// shown in the "changed outside cc" section with the field, the token's
// name and the time, then planned back; a sandbox with lifetime = "1s" is
// expired after it passes and planned for re-creation; cc apply
// --refresh-only makes the next refresh-only plan empty; and an unchanged
// project still costs one state read. Its plans are golden (acceptance 8).
func TestDriftAcceptance(t *testing.T) {
	goldens, err := filepath.Abs("testdata/plan")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"main.hcl", "main.cue"} {
		t.Run(file, func(t *testing.T) { testDrift(t, goldens, file) })
	}
}

func testDrift(t *testing.T, goldens, file string) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	if err := os.WriteFile(file, []byte(driftConfigs[file]), 0o644); err != nil {
		t.Fatal(err)
	}
	clk := &driftClock{now: time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)}
	calls := &counter{}
	tokens, err := service.ParseTokens("tokens", []byte(driftCCToken+" drift ci\n"+driftSDKToken+" drift sdk-bot\n"))
	if err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "s")
	db, opts := serviceDB(t, append(calls.options(), service.WithTokens(tokens), service.WithClock(clk.Now))...)
	srv, err := service.Open(context.Background(), db, opts...)
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(lis)
	t.Cleanup(func() { srv.Close() })
	t.Setenv("CC_SERVER", "unix://"+sock)
	t.Setenv("CC_TOKEN", driftCCToken)

	mustCC(t, 0, "apply", "--auto-approve", file)
	sdk, err := service.Dial("unix://"+sock, service.WithToken(driftSDKToken))
	if err != nil {
		t.Fatal(err)
	}
	defer sdk.Close()
	clk.Advance(time.Minute)
	if _, err := sdk.PatchResource(context.Background(), service.PatchRequest{Project: "drift", Address: "sandbox.dev",
		Set: []service.FieldPatch{{Pointer: "/tags", Value: []byte(`["team-b"]`)}}}); err != nil {
		t.Fatalf("PatchResource() = %v", err)
	}
	out, _ := mustCC(t, 0, "plan", file)
	for _, want := range []string{
		"Changed outside cc since the last apply:\n\n  ~ sandbox.dev  changed by sdk-bot at 2030-01-02T03:05:05Z\n      ~ tags: [\"team-a\"] → [\"team-b\"]\n",
		"  ~ sandbox.dev  update in place",
		"      ~ tags: [\"team-b\"] → [\"team-a\"]\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan after the tags change has no %q:\n%s", want, out)
		}
	}
	// The lifetime of sandbox.tmp (created at 03:04:05) passes.
	clk.Advance(time.Second)
	goldenPlans(t, filepath.Join(goldens, "drift-"+strings.TrimPrefix(filepath.Ext(file), ".")), file)
	out, _ = mustCC(t, 0, "plan", file)
	if !strings.Contains(out, "  - sandbox.tmp  expired at 2030-01-02T03:04:06Z") || !strings.Contains(out, "  + sandbox.tmp  create") ||
		!strings.Contains(out, "# expired at 2030-01-02T03:04:06Z, will be created again") {
		t.Errorf("plan after the lifetime passed:\n%s", out)
	}

	mustCC(t, 2, "plan", "--refresh-only", "--detailed-exitcode", file)
	out, _ = mustCC(t, 0, "apply", "--refresh-only", "--auto-approve", file)
	if !strings.Contains(out, "Refresh complete: 2 changes outside cc recorded") {
		t.Errorf("apply --refresh-only:\n%s", out)
	}
	out, _ = mustCC(t, 0, "plan", "--refresh-only", "--detailed-exitcode", file)
	if !strings.HasPrefix(out, "No changes outside cc.") {
		t.Errorf("refresh-only plan after apply --refresh-only:\n%s", out)
	}
	// What was accepted is the state now: the plan still puts the
	// configuration back, without a "changed outside" section.
	out, _ = mustCC(t, 2, "plan", "--detailed-exitcode", file)
	if strings.Contains(out, "Changed outside cc") || !strings.Contains(out, "Plan: 1 to create, 1 to update") {
		t.Errorf("plan after apply --refresh-only:\n%s", out)
	}
	mustCC(t, 0, "apply", "--auto-approve", file)
	calls.take()
	if out, _ := mustCC(t, 0, "plan", "--detailed-exitcode", file); !strings.HasPrefix(out, "No changes.") {
		t.Errorf("plan after apply:\n%s", out)
	}
	if got := calls.take(); fmt.Sprint(got) != "[GetState]" {
		t.Errorf("the unchanged plan made %v, want one GetState", got)
	}
}

// goldenPlans checks the plan of the project in every format against
// the files in dir.
func goldenPlans(t *testing.T, dir, file string) {
	t.Helper()
	for _, f := range []struct{ format, ext string }{{"text", "txt"}, {"json", "json"}, {"markdown", "md"}} {
		out, _ := mustCC(t, 0, "plan", "--format", f.format, file)
		golden.Check(t, filepath.Join(dir, "plan."+f.ext), []byte(out))
	}
}
