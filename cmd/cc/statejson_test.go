package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"cc.dev/cc/buildkit"
	"cc.dev/cc/internal/golden"
)

// normalizeState replaces what changes from run to run in the JSON of
// cc state and cc versions (lineage, ids, times) by fixed text.
func normalizeState(s string) string {
	for _, r := range []struct{ re, to string }{
		{`"lineage": "[^"]*"`, `"lineage": "LINEAGE"`},
		{`"id": "[^"]*"`, `"id": "ID"`},
		{`"(created_at|updated_at|expires_at)": "[^"]*"`, `"$1": "TIME"`},
	} {
		s = regexp.MustCompile(r.re).ReplaceAllString(s, r.to)
	}
	return s
}

// TestStateJSON checks cc state list --json, cc state show --json and
// cc versions --json against their golden files after an apply and one
// update (a function with one version, a secret with one value
// revision); each is one JSON document with format_version, and no
// secret value. Issue 12: --json.
func TestStateJSON(t *testing.T) {
	goldens, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, "testdata/plan/project", dir)
	t.Chdir(dir)
	t.Setenv("CC_SERVER", "")
	const value = "sk-state-json-value"
	t.Setenv("OPENAI_API_KEY", value)
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	edit(t, "main.hcl", `lifetime = "2h"`, `lifetime = "3h"`)
	mustCC(t, 0, "apply", "--auto-approve", "main.hcl")
	// The first apply creates in parallel, so the serial a created
	// resource gets depends on the order its creates end: the secret's
	// is normalized (the project's, and the updated sandbox's, are not).
	for _, step := range []struct {
		name           string
		args           []string
		anyOrderSerial bool
	}{
		{"state-list", []string{"state", "list", "--json", "main.hcl"}, false},
		{"state-show-sandbox", []string{"state", "show", "--json", "sandbox.dev", "main.hcl"}, false},
		{"state-show-secret", []string{"state", "show", "--json", "secret.openai", "main.hcl"}, true},
		{"versions-function", []string{"versions", "--json", "function.support-answer", "main.hcl"}, false},
		{"versions-secret", []string{"versions", "--json", "secret.openai", "main.hcl"}, false},
	} {
		out, errs := mustCC(t, 0, step.args...)
		if errs != "" {
			t.Errorf("%s: stderr:\n%s", step.name, errs)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil || doc["format_version"] != stateFormatVersion {
			t.Errorf("%s: not one JSON document with format_version %s (%v):\n%s", step.name, stateFormatVersion, err, out)
		}
		if strings.Contains(out, value) {
			t.Errorf("%s: shows the secret value", step.name)
		}
		got := normalizeState(out)
		if step.anyOrderSerial {
			got = regexp.MustCompile(`"serial": [0-9]+`).ReplaceAllString(got, `"serial": SERIAL`)
		}
		golden.Check(t, filepath.Join(goldens, step.name+".json"), []byte(got))
	}
}

// TestStateShowJSONRedacts checks that cc state show --json redacts a
// sensitive value of a spec as the text form does. Issue 12: --json.
func TestStateShowJSONRedacts(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, "testdata/plan/project", dir)
	t.Chdir(dir)
	t.Setenv("CC_SERVER", "")
	t.Setenv("OPENAI_API_KEY", "x")
	const value = "hunter2-sensitive-json"
	edit(t, "main.hcl", `LOG_LEVEL      = "debug"`, `LOG_LEVEL      = var.level`)
	edit(t, "main.hcl", `project = "support-bot"`, "project = \"support-bot\"\nvariable \"level\" {\n  sensitive = true\n}\n")
	mustCC(t, 0, "apply", "--auto-approve", "--var", "level="+value, "main.hcl")
	text, _ := mustCC(t, 0, "state", "show", "--var", "level="+value, "sandbox.dev", "main.hcl")
	out, _ := mustCC(t, 0, "state", "show", "--json", "--var", "level="+value, "sandbox.dev", "main.hcl")
	if strings.Contains(out, value) || strings.Contains(text, value) {
		t.Fatalf("the sensitive value is shown:\n%s", out)
	}
	if !strings.Contains(out, `"LOG_LEVEL": "(sensitive)"`) {
		t.Errorf("no redacted LOG_LEVEL:\n%s", out)
	}
}

// TestBuildJSONShape checks cc build --json's document against its golden
// file: what became of each image, with its digest and reference. Issue
// 12: --json.
func TestBuildJSONShape(t *testing.T) {
	var out strings.Builder
	e := &env{stdout: &out}
	res := []buildkit.Result{
		{Image: &buildkit.Image{Address: "image.base", Hash: "sha256:1111"}, Reused: true, Ref: "registry.local/app:cc-1111"},
		{Image: &buildkit.Image{Address: "image.app", Hash: "sha256:2222"}, Digest: "sha256:abcd", Ref: "registry.local/app:cc-2222"},
	}
	if rc := e.buildAsJSON(res); rc != exitOK {
		t.Fatalf("exit %d", rc)
	}
	golden.Check(t, filepath.Join("testdata", "golden", "build.json"), []byte(out.String()))
}
