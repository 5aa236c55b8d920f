package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestItem8SensitiveComparedInTheOneRead: issue 8 item 8. Local secret
// values and the sensitive values of an image, a sandbox and a function
// are compared by the service inside the one GetState a plan makes: an
// unchanged project costs that call and nothing else, and so does a plan
// in which only a sensitive value changed, which still shows the change
// and, with the value put back, the reuse of the version made with it.
func TestItem8SensitiveComparedInTheOneRead(t *testing.T) {
	fixture(t)
	t.Setenv("OPENAI_API_KEY", "sk-one-read")
	edit(t, "main.hcl", `project = "support-bot"`, `project = "support-bot"

variable "token" {
  type      = string
  sensitive = true
}`)
	edit(t, "main.hcl", `workdir { path = "/app" }`, `workdir { path = "/app" }
  env { vars = { KEY = var.token } }`)
	edit(t, "main.hcl", `LOG_LEVEL      = "debug"`, `LOG_LEVEL      = "debug"
    TOKEN          = var.token`)
	edit(t, "main.hcl", `env_from = [secret.openai]`, `env_from = [secret.openai]
  env      = { TOKEN = var.token }`)
	c := &counter{}
	withServerOptions(t, c.options()...)
	mustCC(t, 0, "apply", "--auto-approve", "--var", "token=first-1", "main.hcl")
	c.take()
	one := func(args ...string) string {
		t.Helper()
		out, _ := mustCC(t, 0, args...)
		if calls := c.take(); !cmp.Equal(calls, []string{"GetState"}) {
			t.Errorf("cc %s made the calls %v, want [GetState]", strings.Join(args, " "), calls)
		}
		return out
	}
	for _, args := range [][]string{
		{"plan", "--var", "token=first-1", "main.hcl"},
		{"plan", "--json", "--var", "token=first-1", "main.hcl"},
		{"apply", "--auto-approve", "--var", "token=first-1", "main.hcl"},
	} {
		if out := one(args...); !strings.Contains(out, "No changes.") && !strings.Contains(out, `"changes": []`) {
			t.Errorf("cc %s:\n%s", strings.Join(args, " "), out)
		}
	}
	out := one("plan", "--var", "token=second-2", "main.hcl")
	for _, want := range []string{"(sensitive value changed)", "function.support-answer  new version 2 (now 1)"} {
		if !strings.Contains(out, want) {
			t.Errorf("plan with another sensitive value lacks %q:\n%s", want, out)
		}
	}
	mustCC(t, 0, "apply", "--auto-approve", "--var", "token=second-2", "main.hcl")
	c.take()
	if out := one("plan", "--var", "token=first-1", "main.hcl"); !strings.Contains(out, "function.support-answer  reuse version 1 (now 2)") {
		t.Errorf("plan with the first value put back:\n%s", out)
	}
	if strings.Contains(out, "first-1") || strings.Contains(out, "second-2") {
		t.Errorf("a sensitive value is shown:\n%s", out)
	}
}
