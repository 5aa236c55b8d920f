package planner_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/planner"
)

// TestInstanceAddresses checks that --target, --exclude and --replace
// take instance addresses, and that a repeated block's own address names
// every instance, in the configuration and in the state (issue 12:
// reuse).
func TestInstanceAddresses(t *testing.T) {
	v0 := res(t, "volume.cache[0]", map[string]any{"size": "1Gi"})
	wa := res(t, `sandbox.worker["a"]`, map[string]any{"image": "x"}, "volume.cache[0]")
	wb := res(t, `sandbox.worker["b"]`, map[string]any{"image": "y"})
	all := desired(v0, wa, wb)
	for _, tt := range []struct {
		o    planner.Options
		want []string
	}{
		{planner.Options{Targets: []string{`sandbox.worker["a"]`}}, []string{`sandbox.worker["a"]:create`, "volume.cache[0]:create"}},
		{planner.Options{Targets: []string{"sandbox.worker"}}, []string{`sandbox.worker["a"]:create`, `sandbox.worker["b"]:create`, "volume.cache[0]:create"}},
		{planner.Options{Excludes: []string{"volume.cache"}}, []string{`sandbox.worker["b"]:create`}},
	} {
		if p := diff(t, all, nil, tt.o); !cmp.Equal(addrs(p), tt.want) {
			t.Errorf("Diff(%+v) = %v, want %v", tt.o, addrs(p), tt.want)
		}
	}
	if _, err := planner.Diff(all, nil, planner.Options{Targets: []string{`sandbox.worker["c"]`}}); err == nil || !strings.Contains(err.Error(), `did you mean sandbox.worker["a"]?`) {
		t.Errorf("--target of a missing instance = %v", err)
	}
	// In the state only: the removed instance is still every instance's.
	st := applied(all, 1)
	p := diff(t, desired(v0, wa), st, planner.Options{Targets: []string{"sandbox.worker"}})
	if !cmp.Equal(addrs(p), []string{`sandbox.worker["b"]:delete`}) {
		t.Errorf("--target sandbox.worker after removing b = %v", addrs(p))
	}
	p = diff(t, all, st, planner.Options{Replace: []string{"sandbox.worker"}})
	if c := change(t, p, `sandbox.worker["b"]`); c.Action != planner.Replace {
		t.Errorf("--replace sandbox.worker: worker b is %s", c.Action)
	}
}
