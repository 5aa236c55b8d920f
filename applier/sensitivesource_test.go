package applier_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
)

// TestSensitiveSourceNeverNamed: a local secret whose source is a
// sensitive value (from_env = var.name) is never named by what reading
// it says: the plan's "the local value from ...", the warning of an unset
// variable, the refusal before an apply and of an empty one. The plan's
// warning named the variable. (An env file's path and keys the compiler
// checks, at their position, scrubbed.)
func TestSensitiveSourceNeverNamed(t *testing.T) {
	const canary = "Zq7Wv9Xk3J"
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(`project = "p"
variable "unset" {
  type      = string
  default   = "`+canary+`_UNSET"
  sensitive = true
}
secret "s" { from_env = var.unset }
secret "set" { from_env = "`+canary+`_SET" }
`), 0o644)
	res, err := compiler.Compile(context.Background(), compiler.Input{Path: filepath.Join(dir, "main.hcl")})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Desired
	env := func(k string) (string, bool) { return "v", k == canary+"_SET" }
	l := applier.LocalSecrets{Root: dir, LookupEnv: env}
	cl, _ := server(t)
	a, err := applier.New(cl, applier.WithSecrets(l))
	if err != nil {
		t.Fatal(err)
	}
	p, _, err := a.Plan(context.Background(), d, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := planner.WriteText(&out, p, planner.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := applier.MissingSecretValues(p, d, l); err != nil {
		out.WriteString(err.Error() + "\n")
	} else {
		t.Error("MissingSecretValues() = nil, want the unset variable")
	}
	text := out.String()
	for _, s := range []string{canary + "_UNSET"} {
		if strings.Contains(text, s) {
			t.Errorf("a sensitive source %s is named:\n%s", s, text)
		}
	}
	if !strings.Contains(text, "(sensitive)") {
		t.Errorf("nothing says (sensitive):\n%s", text)
	}
	// A source that is not sensitive is still named.
	if !strings.Contains(text, canary+"_SET") {
		t.Errorf("the plain source %s_SET is not named:\n%s", canary, text)
	}

	// An empty sensitive variable is refused without its name.
	l.LookupEnv = func(k string) (string, bool) { return "", true }
	a, err = applier.New(cl, applier.WithSecrets(l))
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = a.Plan(context.Background(), d, planner.Options{})
	if err == nil || strings.Contains(err.Error(), canary+"_UNSET") || !strings.Contains(err.Error(), "empty string") {
		t.Errorf("Plan(empty) error = %v, want the empty-string refusal without the name", err)
	}
}
