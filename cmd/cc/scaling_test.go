package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// issue 11: scaling groups. A no-op plan of a project with a scaling group
// that has several revisions, and the plan of the change back after a
// rollback (which predicts the new revision's number), each make exactly
// one state read: the state's versions say everything the plan needs.
func TestScalingGroupPlansInOneRead(t *testing.T) {
	src, err := filepath.Abs("../../examples/scaling-group")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, src, dir)
	if err := os.Remove(filepath.Join(dir, "main.cue")); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	t.Setenv("CC_SERVER", "")
	t.Setenv("OPENAI_API_KEY", "sk-one-read")
	c := &counter{}
	withServerOptions(t, c.options()...)
	mustCC(t, 0, "apply", "--auto-approve", ".")
	edit(t, "main.hcl", "max                = 8", "max                = 9")
	mustCC(t, 0, "apply", "--auto-approve", ".")
	c.take()
	one := func(want string, args ...string) {
		t.Helper()
		out, _ := mustCC(t, 0, args...)
		if calls := c.take(); !cmp.Equal(calls, []string{"GetState"}) {
			t.Errorf("cc %s made the calls %v, want [GetState]", strings.Join(args, " "), calls)
		}
		if !strings.Contains(out, want) {
			t.Errorf("cc %s lacks %q:\n%s", strings.Join(args, " "), want, out)
		}
	}
	one("No changes.", "plan", ".")
	mustCC(t, 0, "rollback", "scaling_group.api", "1", ".")
	c.take()
	one("scaling_group.api  new revision 3 (now 1)", "plan", ".")
}
