package planner_test

import (
	"strings"
	"testing"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// issue 11: container, training. A training (or container) using a secret
// kept outside cc is named by the warning, which says how to pick up a
// new value for it: --replace.
func TestExternalSecretsWarningNamesTrainings(t *testing.T) {
	vault := res(t, "secret.vault", map[string]any{"from_service": "vault-token"})
	img := "sha256:" + strings.Repeat("1", 64)
	ft := res(t, "training.ft", map[string]any{"image": img, "env": map[string]any{"T": map[string]any{"ref": "secret.vault", "hash": vault.Hash}}}, "secret.vault")
	web := res(t, "container.web", map[string]any{"image": img, "restart_policy": "always", "env_from": []any{map[string]any{"ref": "secret.vault", "hash": vault.Hash}}}, "secret.vault")
	d := desired(vault, ft, web)
	p := diff(t, d, applied(d, 1), planner.Options{})
	want := "container.web, training.ft use them; to pick up a new value, force a function's new version with --new-version ADDR or a change of its version_trigger, and replace a sandbox, a container or a training with --replace ADDR"
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], want) {
		t.Errorf("warnings %q, want one with %q", p.Warnings, want)
	}
}

// issue 11: container, training. A change of the image a container or a
// training runs is explained by the image's change, as a sandbox's is.
func TestImageCauseOfContainerAndTraining(t *testing.T) {
	img1 := res(t, "image.app", map[string]any{"from": "python:3.12-slim"})
	img2 := res(t, "image.app", map[string]any{"from": "python:3.13-slim"})
	mk := func(img schema.Resource) *schema.Desired {
		img.Address = "image.app"
		web := res(t, "container.web", map[string]any{"image": img.Hash, "restart_policy": "always"}, "image.app")
		ft := res(t, "training.ft", map[string]any{"image": img.Hash}, "image.app")
		return desired(img, web, ft)
	}
	p := diff(t, mk(img2), applied(mk(img1), 1), planner.Options{})
	for _, addr := range []string{"container.web", "training.ft"} {
		var found bool
		for _, c := range p.Changes {
			if c.Addr != addr {
				continue
			}
			found = true
			if c.Action != planner.Replace {
				t.Errorf("%s: %v, want replace (image forces it)", addr, c.Action)
			}
			var msgs []string
			for _, r := range c.Reasons {
				msgs = append(msgs, r.Message)
			}
			if !strings.Contains(strings.Join(msgs, "\n"), "image changed: base python:3.12-slim → python:3.13-slim") {
				t.Errorf("%s: reasons %q, want the image's change", addr, msgs)
			}
		}
		if !found {
			t.Errorf("no change of %s", addr)
		}
	}
}
