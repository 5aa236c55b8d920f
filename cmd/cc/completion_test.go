package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/internal/golden"
)

// TestCompletionScriptsGolden: issue 12, shell completion. cc completion
// SHELL prints the script for bash, zsh and fish, each against its golden
// file; another shell is a usage error.
func TestCompletionScriptsGolden(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		out, _ := mustCC(t, 0, "completion", shell)
		if !strings.Contains(out, "cc __complete") {
			t.Errorf("cc completion %s does not call cc __complete:\n%s", shell, out)
		}
		golden.Check(t, filepath.Join("testdata", "golden", "completion."+shell), []byte(out))
	}
	if _, errs := mustCC(t, exitUsage, "completion", "tcsh"); !strings.Contains(errs, "want one shell: bash, zsh or fish") {
		t.Errorf("cc completion tcsh: stderr %q", errs)
	}
}

// complete runs cc __complete with words and returns its lines.
func complete(t *testing.T, words ...string) []string {
	t.Helper()
	out, errs := mustCC(t, 0, append([]string{"__complete"}, words...)...)
	if errs != "" {
		t.Errorf("cc __complete %q wrote to stderr: %s", words, errs)
	}
	return strings.Fields(out)
}

// TestCompleteCommandsFlagsSubcommands: issue 12, shell completion. The
// candidates for commands (not the hidden __complete), help's commands and
// topics, completion's shells, state's subcommands and each command's
// flags (of the subcommand for state).
func TestCompleteCommandsFlagsSubcommands(t *testing.T) {
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"pl"}, "plan"},
		{[]string{"he"}, "help"},
		{[]string{"__"}, ""},
		{[]string{"help", "fu"}, "functions"},
		{[]string{"help", "sta"}, "state"},
		{[]string{"completion", ""}, "bash fish zsh"},
		{[]string{"state", ""}, "list show mv rm"},
		{[]string{"plan", "--ta"}, "--target"},
		{[]string{"plan", "main.hcl", "--ou"}, "--out"},
		{[]string{"apply", "--auto"}, "--auto-approve"},
		{[]string{"plan", "--no-c"}, "--no-cache --no-color"}, // issue 13: --no-cache
		{[]string{"plan", "--no-co"}, "--no-color"},
		{[]string{"state", "list", "--pro"}, "--project"},
		{[]string{"state", "mv", "--lock"}, "--lock-timeout"},
		{[]string{"state", "list", "--lock"}, ""},
		{[]string{"destroy", "--repl"}, ""},
		{[]string{"nosuch", ""}, ""},
	} {
		if got := strings.Join(complete(t, tc.words...), " "); got != tc.want {
			t.Errorf("cc __complete %q = %q, want %q", tc.words, got, tc.want)
		}
	}
}

// TestCompleteAddresses: issue 12, shell completion. Flags taking an
// address and commands taking one complete the addresses of the project in
// the current directory; other values and paths complete nothing (the
// scripts then complete file names); a project that does not compile gives
// no candidates and no error.
func TestCompleteAddresses(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "../../examples/quickstart", dir)
	if err := os.Remove(filepath.Join(dir, "main.cue")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	all := "dataset.goldens evaluation.support-quality function.support-answer image.app sandbox.dev secret.openai"
	for _, tc := range []struct {
		words []string
		want  string
	}{
		{[]string{"plan", "--target", ""}, all},
		{[]string{"apply", "--exclude", "s"}, "sandbox.dev secret.openai"},
		{[]string{"plan", "--replace", "sandbox."}, "sandbox.dev"},
		{[]string{"plan", "--target=sa"}, "--target=sandbox.dev"},
		{[]string{"plan", "--out", ""}, ""},
		{[]string{"plan", "--server", ""}, ""},
		{[]string{"plan", ""}, ""},
		{[]string{"state", "show", "s"}, "sandbox.dev secret.openai"},
		{[]string{"state", "show", "sandbox.dev", ""}, ""},
		{[]string{"state", "mv", "--lock-timeout", "1m", "f"}, "function.support-answer"},
		{[]string{"state", "rm", "d"}, "dataset.goldens"},
		{[]string{"versions", "f"}, "function.support-answer"},
		{[]string{"rollback", "--project", "x", "f"}, "function.support-answer"},
		{[]string{"import", "e"}, "evaluation.support-quality"},
		{[]string{"build", ""}, "image.app"},
	} {
		if got := strings.Join(complete(t, tc.words...), " "); got != tc.want {
			t.Errorf("cc __complete %q = %q, want %q", tc.words, got, tc.want)
		}
	}
	if err := os.WriteFile("main.hcl", []byte("project = \n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := complete(t, "plan", "--target", ""); len(got) != 0 {
		t.Errorf("cc __complete in a broken project = %q, want nothing", got)
	}
}
