package planner_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIssue9SecretValueReachesSandbox: a sandbox holding a managed
// secret's value in env or env_from is replaced when the value changes
// (its environment is fixed at start), one holding it in host-scoped
// credentials is updated in place, and so is an evaluation whose judge
// holds it, each with the reason "secret secret.key
// value changed"; the same value changes nothing (issue 9 item 8). Before,
// only functions changed.
func TestIssue9SecretValueReachesSandbox(t *testing.T) {
	key := res(t, "secret.key", map[string]any{"from_env": "KEY"})
	ref := map[string]any{"ref": "secret.key", "hash": key.Hash}
	img := "sha256:" + strings.Repeat("ab", 32)
	env := res(t, "sandbox.env", map[string]any{"image": img, "env": map[string]any{"K": ref, "MODE": "dev"}}, "secret.key")
	from := res(t, "sandbox.from", map[string]any{"image": img, "env_from": []any{ref}}, "secret.key")
	cred := res(t, "sandbox.cred", map[string]any{"image": img,
		"credentials": []any{map[string]any{"hosts": []any{"api.example.com"}, "secret": ref}}}, "secret.key")
	plain := res(t, "sandbox.plain", map[string]any{"image": img})
	judge := res(t, "evaluation.e", map[string]any{"dataset": map[string]any{"ref": "dataset.x"},
		"scorers": []any{map[string]any{"llm_judge": map[string]any{"name": "j", "api_key": ref}}}}, "secret.key")
	d := desired(key, env, from, cred, plain, judge)
	st := applied(d, 3)
	setSecret(st, "secret.key", 1, "a")

	if p := diff(t, d, st, local("a")); p.Changed() {
		t.Fatalf("the same value: changes %v", addrs(p))
	}
	p := diff(t, d, st, local("b"))
	want := []string{"evaluation.e:update", "sandbox.cred:update", "sandbox.env:replace", "sandbox.from:replace", "secret.key:update"}
	if got := addrs(p); !cmp.Equal(got, want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	for addr, because := range map[string][]string{"sandbox.env": {"env"}, "sandbox.from": {"env_from"}, "sandbox.cred": nil, "evaluation.e": nil} {
		c := change(t, p, addr)
		if got := reasons(c); got != "secret secret.key value changed" {
			t.Errorf("%s reasons = %q, want the secret's value", addr, got)
		}
		if !cmp.Equal(c.ReplaceBecause, because) {
			t.Errorf("%s replaced because %v, want %v", addr, c.ReplaceBecause, because)
		}
		if !cmp.Equal(c.Needs, []string{"secret.key"}) {
			t.Errorf("%s needs %v, want [secret.key]", addr, c.Needs)
		}
	}
	if got := renderAll(t, p)["text"]; !strings.Contains(got, "sandbox.env") || !strings.Contains(got, "# secret secret.key value changed") {
		t.Errorf("text view:\n%s", got)
	}
}
