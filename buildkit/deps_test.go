package buildkit

import (
	"os/exec"
	"strings"
	"testing"
)

// TestDeps keeps the dependency direction: buildkit imports schema and
// diag of this module, never the compiler, planner, applier, service or
// the CLI.
func TestDeps(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Skipf("go list: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		if !strings.HasPrefix(p, "cc.dev/cc/") {
			continue
		}
		switch p {
		case "cc.dev/cc/buildkit", "cc.dev/cc/schema", "cc.dev/cc/diag":
		default:
			t.Errorf("buildkit depends on %s", p)
		}
	}
}
