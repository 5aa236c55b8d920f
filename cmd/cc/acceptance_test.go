package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/internal/servicetest"
	"cc.dev/cc/service"
)

// counter counts the calls the real server gets, and may fail some.
type counter struct {
	mu    sync.Mutex
	calls []string
	fail  func(n int, method string) error
}

func (c *counter) note(method string) error {
	c.mu.Lock()
	c.calls = append(c.calls, method[strings.LastIndexByte(method, '/')+1:])
	n, f := len(c.calls), c.fail
	c.mu.Unlock()
	if f != nil {
		return f(n, method)
	}
	return nil
}

func (c *counter) options() []service.Option {
	return []service.Option{
		service.WithUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
			if err := c.note(info.FullMethod); err != nil {
				return nil, err
			}
			return next(ctx, req)
		}),
		service.WithStreamInterceptor(func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, next grpc.StreamHandler) error {
			if err := c.note(info.FullMethod); err != nil {
				return err
			}
			return next(srv, ss)
		}),
	}
}

func (c *counter) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.calls
	c.calls = nil
	return out
}

// withServerOptions adds options to the embedded server of every command
// the test runs.
func withServerOptions(t *testing.T, opts ...service.Option) {
	t.Helper()
	old := embeddedOptions
	embeddedOptions = opts
	t.Cleanup(func() { embeddedOptions = old })
}

// fixture copies the golden tests' project into a temporary directory and
// works there.
func fixture(t *testing.T) string {
	t.Helper()
	src, err := filepath.Abs("testdata/plan/project")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, src, dir)
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	return dir
}

// TestUnchangedCostsOneRead is acceptance 2: with the project applied,
// planning it makes exactly one call (GetState), in any format, and
// applying it makes no other.
func TestUnchangedCostsOneRead(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-one-read")
	c := &counter{}
	withServerOptions(t, c.options()...)
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	if calls := c.take(); len(calls) < 8 {
		t.Fatalf("the first apply made only %v", calls)
	}
	for _, args := range [][]string{
		{"plan", "main.hcl"},
		{"plan", "--json", "main.hcl"},
		{"plan", "--format", "markdown", "main.hcl"},
		{"plan", "--detailed-exitcode", "main.hcl"},
		{"apply", "--auto-approve", "main.hcl"},
		{"apply", "main.hcl"},
	} {
		out, _ := mustCC(t, 0, args...)
		if !strings.Contains(out, "No changes.") && !strings.Contains(out, `"changes": []`) {
			t.Errorf("cc %s:\n%s", strings.Join(args, " "), out)
		}
		if calls := c.take(); len(calls) != 1 || calls[0] != "GetState" {
			t.Errorf("cc %s made the calls %v, want [GetState]", strings.Join(args, " "), calls)
		}
	}
}

// TestCanarySecretValue is acceptance 5: secret values read from an
// environment variable and from an env file appear in no output, plan
// file, log, error message or byte of the state database.
func TestCanarySecretValue(t *testing.T) {
	examples, err := filepath.Abs("../../examples/multi-service")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, examples, dir)
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	canaries := []string{"canary-env-7f3a9c", "canary-file-2b8e41", "canary-env-rotated-91d0", "canary-file-rotated-c4e7"}
	setValues := func(env, file string) {
		t.Setenv("OPENAI_API_KEY", env)
		if err := os.WriteFile("dev.env", []byte("DATABASE_URL="+file+"\nREDIS_URL=redis://x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var logs lockedBuffer
	withServerOptions(t, service.WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	var seen bytes.Buffer
	runAll := func(want int, args ...string) {
		t.Helper()
		out, errs, code := cc(t, args...)
		if code != want {
			t.Fatalf("cc %s exited %d, want %d\n%s%s", strings.Join(args, " "), code, want, out, errs)
		}
		fmt.Fprintf(&seen, "$ cc %s\n%s%s", strings.Join(args, " "), out, errs)
	}

	setValues(canaries[0], canaries[1])
	runAll(0, "plan", "main.hcl")
	runAll(0, "plan", "--json", "main.hcl")
	runAll(0, "plan", "--format", "markdown", "main.hcl")
	runAll(0, "plan", "--out", "first.plan", "main.hcl")
	for _, f := range []string{"text", "json", "markdown"} {
		runAll(0, "show", "--format", f, "first.plan")
	}
	runAll(0, "apply", "first.plan")
	runAll(0, "state", "list", "main.hcl")
	runAll(0, "state", "show", "secret.openai", "main.hcl")
	runAll(0, "state", "show", "secret.database", "main.hcl")
	runAll(0, "versions", "secret.database", "main.hcl")

	// Both values change: shown only as sensitive changes.
	setValues(canaries[2], canaries[3])
	runAll(0, "plan", "--out", "second.plan", "main.hcl")
	if !strings.Contains(seen.String(), "~ value: (sensitive value changed)") {
		t.Errorf("the plan does not show the values changed:\n%s", seen.String())
	}
	runAll(0, "plan", "--json", "main.hcl")
	runAll(0, "plan", "--format", "markdown", "main.hcl")
	// sandbox.dev holds secret.openai in env: a new value replaces it, and
	// its snapshot's data with it (issue 9 item 8).
	runAll(0, "apply", "--auto-approve", "--allow-data-loss", "main.hcl")
	// Errors: a stale saved plan, and a missing value.
	runAll(1, "apply", "second.plan")
	os.Unsetenv("OPENAI_API_KEY")
	runAll(0, "plan", "main.hcl")
	// sandbox.dev, which uses the secret, has a snapshot mount: deleting it
	// destroys data (issue 8 item 1).
	runAll(1, "destroy", "--auto-approve", "--target", "secret.openai", "main.hcl")
	runAll(0, "destroy", "--auto-approve", "--allow-data-loss", "--target", "secret.openai", "main.hcl")
	runAll(1, "apply", "--auto-approve", "main.hcl")
	runAll(0, "state", "show", "secret.database", "main.hcl")

	files := map[string][]byte{"output and errors": seen.Bytes(), "server log": logs.Bytes()}
	for _, name := range []string{"first.plan", "second.plan"} {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		files[name] = b
	}
	entries, err := os.ReadDir(".cc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(".cc", e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		files[".cc/"+e.Name()] = b
	}
	if len(files[".cc/state.db"]) == 0 || len(logs.Bytes()) == 0 {
		t.Fatalf("no state database or no log to check: %v", entries)
	}
	for name, b := range files {
		for _, c := range canaries {
			if bytes.Contains(b, []byte(c)) {
				t.Errorf("%s holds the secret value %s", name, c)
			}
		}
	}
	for _, want := range []string{
		`second\.plan is stale`,
		`Warning: secret\.openai: the environment variable OPENAI_API_KEY is not set; the service keeps revision 2 of its value`,
		`main\.hcl:\d+:\d+: secret\.openai takes its value from the environment variable OPENAI_API_KEY, which is not set`,
	} {
		if !regexp.MustCompile(want).MatchString(seen.String()) {
			t.Errorf("output lacks %q:\n%s", want, seen.String())
		}
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) Bytes() []byte {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]byte(nil), l.b.Bytes()...)
}

// TestSensitiveVariable: a value from an HCL sensitive variable is in no
// plan view or plan file, and cc state show redacts it.
func TestSensitiveVariable(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-x")
	const canary = "sensitive-var-canary-66a1"
	edit(t, "main.hcl", `project = "support-bot"`, `project = "support-bot"

variable "token" {
  type      = string
  sensitive = true
}`)
	edit(t, "main.hcl", `LOG_LEVEL      = "debug"`, `LOG_LEVEL      = "debug"
    TOKEN          = var.token`)
	var seen bytes.Buffer
	for _, args := range [][]string{
		{"plan", "--var", "token=" + canary, "main.hcl"},
		{"plan", "--json", "--var", "token=" + canary, "main.hcl"},
		{"plan", "--format", "markdown", "--var", "token=" + canary, "main.hcl"},
		{"plan", "--out", "p.plan", "--var", "token=" + canary, "main.hcl"},
		{"show", "p.plan"},
		{"apply", "--var", "token=" + canary, "p.plan"},
		{"state", "show", "--var", "token=" + canary, "sandbox.dev", "main.hcl"},
		{"plan", "--var", "token=" + canary + "-2", "main.hcl"},
	} {
		out, errs := mustCC(t, 0, args...)
		seen.WriteString(out + errs)
	}
	b, _ := os.ReadFile("p.plan")
	if bytes.Contains(seen.Bytes(), []byte(canary)) || bytes.Contains(b, []byte(canary)) {
		t.Errorf("a sensitive value is shown:\n%s", seen.String())
	}
	for _, want := range []string{`+ env.TOKEN = (sensitive)`, `"TOKEN": "(sensitive)"`, `~ env.TOKEN: (sensitive value changed)  # forces replacement`} {
		if !strings.Contains(seen.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, seen.String())
		}
	}
	// The saved plan needs the value again: without it, apply refuses.
	mustCC(t, 0, "plan", "--out", "q.plan", "--var", "token=other", "main.hcl")
	_, errs := mustCC(t, 1, "apply", "--var", "token=not-the-same", "q.plan")
	if !strings.Contains(errs, "q.plan holds no values of sensitive variables (sandbox.dev use them), and the configuration at ") {
		t.Errorf("stderr:\n%s", errs)
	}
}

// workloadProject writes a generated project and sets the variables its
// secrets read.
func workloadProject(t *testing.T, n int) {
	t.Helper()
	dir := t.TempDir()
	if err := workload.Write(dir, workload.Options{N: n}); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	for i := 0; i < max(n/100, 1); i++ {
		t.Setenv(fmt.Sprintf("KEY_%d", i), fmt.Sprintf("value-%d", i))
	}
}

var errorLine = regexp.MustCompile(`^Error: main\.hcl:\d+:\d+: (create|update|replace|delete) ([a-z]+\.[-a-z0-9_.]+): (.*)$`)

// TestFaultInjection is acceptance 7: the service fails every 7th call.
// Apply reports each failure with the resource's address and position,
// applies the rest, and a second apply converges to no changes.
func TestFaultInjection(t *testing.T) {
	workloadProject(t, 120)
	c := &counter{fail: func(n int, method string) error {
		if n%7 == 0 {
			return status.Errorf(codes.Internal, "injected fault (call %d, %s)", n, method[strings.LastIndexByte(method, '/')+1:])
		}
		return nil
	}}
	withServerOptions(t, c.options()...)
	out, errs, code := cc(t, "apply", "--auto-approve", "--parallelism", "4", "main.hcl")
	if code != 1 {
		t.Fatalf("apply with faults exited %d, want 1\n%s%s", code, out, errs)
	}
	failed := map[string]bool{}
	notStarted := 0
	for _, line := range strings.Split(errs, "\n") {
		switch {
		case strings.HasPrefix(line, "Error: "):
			m := errorLine.FindStringSubmatch(line)
			if m == nil || !strings.Contains(m[3], "injected fault") {
				t.Errorf("error line %q, want an address, a position and the fault", line)
				continue
			}
			failed[m[2]] = true
		case strings.HasPrefix(line, "Not started: "):
			notStarted++
		}
	}
	if len(failed) == 0 {
		t.Fatalf("no failures reported:\n%s", errs)
	}
	m := regexp.MustCompile(`Apply failed: (\d+) errors?, (\d+) not started; done: (\d+) created`).FindStringSubmatch(errs)
	if m == nil || m[1] != fmt.Sprint(len(failed)) || m[2] != fmt.Sprint(notStarted) {
		t.Fatalf("summary %q for %d failed and %d not started:\n%s", m, len(failed), notStarted, errs)
	}
	// The rest was applied: the state has every change that was done.
	c.fail = nil
	list, _ := mustCC(t, 0, "state", "list", "main.hcl")
	if got, want := strings.Count(list, "\n")-2, 120-len(failed)-notStarted; got != want {
		t.Errorf("the state has %d resources, want %d (120 - %d failed - %d not started)", got, want, len(failed), notStarted)
	}
	for addr := range failed {
		if strings.Contains(list, addr+" ") {
			t.Errorf("%s failed but is in the state", addr)
		}
	}
	out, _ = mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	if !strings.Contains(out, "Apply complete: ") {
		t.Fatalf("second apply:\n%s", out)
	}
	out, _ = mustCC(t, 0, "plan", "--detailed-exitcode", "main.hcl")
	if !strings.HasPrefix(out, "No changes. Project workload") || !strings.Contains(out, "(120 resources)") {
		t.Errorf("after the second apply:\n%s", out)
	}
}

// TestConcurrentApplies is acceptance 8: while one apply holds the
// project's lock, a second waits --lock-timeout and then fails, naming the
// holder; the first then finishes.
func TestConcurrentApplies(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-lock")
	block := make(chan struct{})
	var once sync.Once
	entered := make(chan struct{})
	srv, err := service.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"),
		service.WithUnaryInterceptor(func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
			if strings.HasSuffix(info.FullMethod, "/ApplyResource") {
				once.Do(func() { close(entered) })
				<-block
			}
			return next(ctx, req)
		}))
	if err != nil {
		t.Fatal(err)
	}
	addr := servicetest.ServeTCP(t, srv)

	type result struct {
		out, errs string
		code      int
	}
	first := make(chan result)
	go func() {
		var out, errs bytes.Buffer
		code := run([]string{"apply", "--auto-approve", "--server", addr, "main.hcl"}, strings.NewReader(""), &out, &errs)
		first <- result{out.String(), errs.String(), code}
	}()
	select {
	case <-entered:
	case r := <-first:
		t.Fatalf("the first apply ended before applying anything: %d\n%s%s", r.code, r.out, r.errs)
	}
	// A plan meanwhile reads the state, and says an apply is running.
	if out, _ := mustCC(t, 0, "plan", "--server", addr, "main.hcl"); !regexp.MustCompile(`(?m)^Warning: project support-bot is locked by \S+@\S+ \(cc apply, pid \d+\): an apply is running`).MatchString(out) {
		t.Errorf("plan during an apply:\n%s", out)
	}
	out, errs, code := cc(t, "apply", "--auto-approve", "--lock-timeout", "1s", "--server", addr, "main.hcl")
	close(block)
	if code != 1 {
		t.Fatalf("the second apply exited %d, want 1\n%s%s", code, out, errs)
	}
	want := regexp.MustCompile(`^cc apply: project support-bot is locked by \S+@\S+ \(cc apply, pid \d+\) since \S+; waited 1s for it \(--lock-timeout\); if that holder is gone, run cc force-unlock\n$`)
	if !want.MatchString(errs) {
		t.Errorf("second apply stderr = %q", errs)
	}
	if !strings.Contains(out, "Waiting up to 1s for the lock on project support-bot, held by ") || strings.Contains(out, "Applying") {
		t.Errorf("second apply stdout:\n%s", out)
	}
	r := <-first
	if r.code != 0 || !strings.Contains(r.out, "Apply complete: 6 created") {
		t.Errorf("the first apply: %d\n%s%s", r.code, r.out, r.errs)
	}
	if out, _ := mustCC(t, 0, "plan", "--server", addr, "main.hcl"); !strings.HasPrefix(out, "No changes.") {
		t.Errorf("after both:\n%s", out)
	}
}

// TestSecretValueVersions: a function's version is its content and the
// values of the secrets it uses. A new value of OPENAI_API_KEY gives the
// function a new version, and the evaluation of it follows, and the
// sandbox holding it in env is replaced (issue 9 item 8), each saying
// why; once applied, nothing changes; the first value again makes the
// first version current again. No value is shown, and an unchanged plan
// or apply still costs one read.
func TestSecretValueVersions(t *testing.T) {
	fixture(t)
	const valueA, valueB = "sk-versions-first-5c1e", "sk-versions-second-8d27"
	c := &counter{}
	withServerOptions(t, c.options()...)
	var seen bytes.Buffer
	ccOK := func(args ...string) string {
		t.Helper()
		out, errs := mustCC(t, 0, args...)
		seen.WriteString(out + errs)
		return out
	}
	unchanged := func() {
		t.Helper()
		c.take()
		if out := ccOK("plan", "main.hcl"); !strings.HasPrefix(out, "No changes.") {
			t.Fatalf("plan after apply:\n%s", out)
		}
		if out := ccOK("apply", "--auto-approve", "main.hcl"); !strings.HasPrefix(out, "No changes.") {
			t.Fatalf("apply after apply:\n%s", out)
		}
		if calls := c.take(); !cmp.Equal(calls, []string{"GetState", "GetState"}) {
			t.Errorf("an unchanged plan and apply made the calls %v, want one GetState each", calls)
		}
	}
	t.Setenv("OPENAI_API_KEY", valueA)
	ccOK("apply", "--auto-approve", "main.hcl")
	unchanged()

	t.Setenv("OPENAI_API_KEY", valueB)
	out := ccOK("plan", "main.hcl")
	for _, want := range []string{
		"\n  ~ evaluation.support-quality  update in place  main.hcl:46:12\n      # function.support-answer has a new version: secret secret.openai value changed\n",
		"\n  ~ function.support-answer  new version 2 (now 1)  main.hcl:35:10\n      # secret secret.openai value changed\n",
		"\n  ~ secret.openai  update in place  main.hcl:21:8\n",
		"\n  -/+ sandbox.dev  replace (env forces replacement)  main.hcl:25:9\n      # secret secret.openai value changed\n",
		"\nPlan: 0 to create, 3 to update, 1 to replace, 0 to delete; 1 new version.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan with a new value lacks %q:\n%s", want, out)
		}
	}
	js := ccOK("plan", "--json", "main.hcl")
	if !strings.Contains(js, `"version": {
        "action": "new",
        "number": 2,
        "current": 1
      },
      "reasons": [
        {
          "code": "secret",
          "message": "secret secret.openai value changed"
        }
      ]`) {
		t.Errorf("JSON plan:\n%s", js)
	}
	out = ccOK("apply", "--auto-approve", "main.hcl")
	for _, want := range []string{
		"      # secret secret.openai value changed\n",
		"\nsecret.openai: updated after ",
		": new value stored\n",
		"\nfunction.support-answer: updated after ",
		": version 2\n",
		"\nApply complete: 0 created, 3 updated, 1 replaced, 0 deleted; 1 new version, 0 versions reused (",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("apply of a new value lacks %q:\n%s", want, out)
		}
	}
	unchanged()

	// The first value again: the secret gets a new revision (3), and the
	// function the version made with that value.
	t.Setenv("OPENAI_API_KEY", valueA)
	out = ccOK("plan", "main.hcl")
	for _, want := range []string{
		"\n  ~ function.support-answer  reuse version 1 (now 2)  main.hcl:35:10\n      # secret secret.openai value changed\n" +
			"      # same content and secret values as version 1, which is made current again: nothing is rebuilt or uploaded\n",
		"\n  ~ evaluation.support-quality  update in place  main.hcl:46:12\n      # function.support-answer changed to its version 1: secret secret.openai value changed\n",
		"      # secret value changed: OPENAI_API_KEY differs from revision 2, a new revision is made\n",
		"\nPlan: 0 to create, 3 to update, 1 to replace, 0 to delete; 1 version reused.\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("plan with the first value again lacks %q:\n%s", want, out)
		}
	}
	out = ccOK("apply", "--auto-approve", "main.hcl")
	if !strings.Contains(out, "\nfunction.support-answer: updated after ") || !strings.Contains(out, ": version 1 (reused)\n") {
		t.Errorf("apply of the first value again:\n%s", out)
	}
	unchanged()
	out = ccOK("versions", "function.support-answer", "main.hcl")
	if !regexp.MustCompile(`^1 +[0-9a-f]{12} +\S+ +current\n2 +[0-9a-f]{12} +\S+ *\n$`).MatchString(out) {
		t.Errorf("cc versions:\n%s", out)
	}
	out = ccOK("state", "show", "function.support-answer", "main.hcl")
	if !strings.Contains(out, "\nversion:    1 (versions 1, 2)\nmade with:  secret.openai revision 1\n") {
		t.Errorf("cc state show:\n%s", out)
	}
	out = ccOK("state", "list", "main.hcl")
	if !regexp.MustCompile(`(?m)^secret\.openai +[0-9a-f]{12} +value revision 3$`).MatchString(out) {
		t.Errorf("cc state list:\n%s", out)
	}

	db, err := os.ReadFile(filepath.Join(".cc", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{valueA, valueB} {
		if strings.Contains(seen.String(), v) || bytes.Contains(db, []byte(v)) {
			t.Errorf("the value %s is shown or stored", v)
		}
	}
}
