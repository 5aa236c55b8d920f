package main

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"cc.dev/cc/service"
)

// onTerminal makes every stream look like a terminal.
func onTerminal(t *testing.T) {
	t.Helper()
	old := isTerminal
	isTerminal = func(any) bool { return true }
	t.Cleanup(func() { isTerminal = old })
}

func ccWithInput(t *testing.T, input string, args ...string) (string, string, int) {
	t.Helper()
	var out, errs bytes.Buffer
	code := run(args, strings.NewReader(input), &out, &errs)
	return out.String(), errs.String(), code
}

// TestApplyAsks: on a terminal, apply shows the plan and applies only
// after "yes".
func TestApplyAsks(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-ask")
	onTerminal(t)
	out, _, code := ccWithInput(t, "no\n", "apply", "main.hcl")
	if code != 1 || !strings.Contains(out, "Plan: 6 to create") || !strings.Contains(out, "Apply these changes to project support-bot? Only 'yes' is accepted: ") ||
		!strings.HasSuffix(out, "Not applied.\n") {
		t.Fatalf("answering no: exit %d\n%s", code, out)
	}
	if out, _ := mustCC(t, 0, "state", "list", "main.hcl"); !strings.Contains(out, "has nothing") {
		t.Fatalf("after no, the state:\n%s", out)
	}
	out, _, code = ccWithInput(t, "yes\n", "apply", "main.hcl")
	if code != 0 || !strings.Contains(out, "Apply complete: 6 created") {
		t.Fatalf("answering yes: exit %d\n%s", code, out)
	}
	// The dataset's data dies with it: destroy refuses without
	// --allow-data-loss, and the prompt names it (issue 8 item 1).
	if _, errs, code := ccWithInput(t, "yes\n", "destroy", "main.hcl"); code != 1 || !strings.Contains(errs, "cc destroy: not applied: this plan destroys the data of dataset.goldens (delete); to carry it out, run cc destroy again with --allow-data-loss.") {
		t.Fatalf("destroy without --allow-data-loss: exit %d\n%s", code, errs)
	}
	out, _, code = ccWithInput(t, "yes\n", "destroy", "--allow-data-loss", "main.hcl")
	if code != 0 || !strings.Contains(out, "Delete everything of project support-bot? This destroys the data of dataset.goldens. Only 'yes' is accepted: ") || !strings.Contains(out, "6 deleted") {
		t.Fatalf("destroy: exit %d\n%s", code, out)
	}
}

// TestColor: colour only on a terminal, and never with NO_COLOR.
func TestColor(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-color")
	t.Setenv("TERM", "xterm")
	out, _ := mustCC(t, 0, "plan", "main.hcl")
	if strings.Contains(out, "\x1b[") {
		t.Error("colour without a terminal")
	}
	onTerminal(t)
	t.Setenv("NO_COLOR", "")
	if out, _ := mustCC(t, 0, "plan", "main.hcl"); !strings.Contains(out, "\x1b[32m+\x1b[0m") {
		t.Errorf("no colour on a terminal:\n%q", out)
	}
	t.Setenv("NO_COLOR", "1")
	if out, _ := mustCC(t, 0, "plan", "main.hcl"); strings.Contains(out, "\x1b[") {
		t.Error("colour with NO_COLOR set")
	}
	t.Setenv("NO_COLOR", "")
	if out, _ := mustCC(t, 0, "plan", "--format", "markdown", "main.hcl"); strings.Contains(out, "\x1b[") {
		t.Error("colour in Markdown")
	}
}

// TestForceUnlock: a lock its holder left behind blocks applies, naming
// the holder, until cc force-unlock releases it.
func TestForceUnlock(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-unlock")
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	cl, closeFn, err := service.OpenEmbedded(context.Background(), filepath.Join(".cc", "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := cl.Lock(context.Background(), "support-bot", service.Holder{User: "alice", Host: "laptop", Command: "cc apply", PID: 99}, time.Hour); err != nil {
		t.Fatal(err)
	}
	closeFn()
	edit(t, "main.hcl", `lifetime = "2h"`, `lifetime = "4h"`)
	_, errs := mustCC(t, 1, "apply", "--auto-approve", "main.hcl")
	if !regexp.MustCompile(`^cc apply: project support-bot is locked by alice@laptop \(cc apply, pid 99\) since \S+; to wait for it, pass --lock-timeout; if that holder is gone, run cc force-unlock\n$`).MatchString(errs) {
		t.Errorf("apply while locked: %q", errs)
	}
	out, _ := mustCC(t, 0, "force-unlock", "main.hcl")
	if !regexp.MustCompile(`^Released the lock on project support-bot held by alice@laptop \(cc apply, pid 99\) since \S+\.\n$`).MatchString(out) {
		t.Errorf("force-unlock: %q", out)
	}
	if out, _ := mustCC(t, 0, "apply", "--auto-approve", "main.hcl"); !strings.Contains(out, "sandbox.dev: updated after") {
		t.Errorf("apply after force-unlock:\n%s", out)
	}
	// --replace replaces what did not change.
	out, _ = mustCC(t, 0, "plan", "--replace", "sandbox.dev", "main.hcl")
	if !strings.Contains(out, "  -/+ sandbox.dev  replace (--replace)  main.hcl:") || !strings.Contains(out, "# replacement requested with --replace") {
		t.Errorf("plan --replace:\n%s", out)
	}
}
