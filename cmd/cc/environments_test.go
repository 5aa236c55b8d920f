package main

import (
	"bytes"
	"strings"
	"testing"
)

// issue 12: environments. Every command that compiles or touches state
// has --env, and every command that compiles has -t, each with its help.
func TestEnvironmentFlagsEverywhere(t *testing.T) {
	for _, name := range []string{"plan", "apply", "destroy", "state list", "state show", "state mv", "state rm", "versions", "rollback", "force-unlock", "compile", "validate", "build", "lock"} {
		var out, errOut bytes.Buffer
		run(append(strings.Fields(name), "-h"), strings.NewReader(""), &out, &errOut)
		help := out.String() + errOut.String()
		if !strings.Contains(help, "-env NAME") || !strings.Contains(help, "$CC_ENV") {
			t.Errorf("cc %s -h has no --env NAME flag with $CC_ENV:\n%s", name, help)
		}
		if name != "force-unlock" && name != "versions" && name != "rollback" && !strings.Contains(help, "cue export -t") {
			t.Errorf("cc %s -h has no -t flag:\n%s", name, help)
		}
	}
}
