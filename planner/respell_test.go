package planner_test

import (
	"testing"

	"cc.dev/cc/planner"
)

// TestIssue9RespelledStateUpdates: a state applied before the compiler
// wrote one spelling per value holds cpu "2000m" and lifetime "3600s";
// the configuration compiled now says "2" and "1h". That is an update in
// place that sends the new spelling, not a replacement of the sandbox
// (issue 9 item 6); a real change of the cpu still replaces it.
func TestIssue9RespelledStateUpdates(t *testing.T) {
	img := "sha256:" + "ab" + "cd"
	spec := func(cpu, life string) map[string]any {
		return map[string]any{"image": img, "lifetime": life,
			"resources": map[string]any{"requests": map[string]any{"cpu": cpu}}}
	}
	old := desired(res(t, "sandbox.dev", spec("2000m", "3600s")))
	st := applied(old, 1)
	for _, tc := range []struct {
		cpu    string
		action planner.Action
	}{{"2", planner.Update}, {"3", planner.Replace}} {
		p := diff(t, desired(res(t, "sandbox.dev", spec(tc.cpu, "1h"))), st, planner.Options{})
		if c := change(t, p, "sandbox.dev"); c.Action != tc.action {
			t.Errorf("cpu 2000m → %s: %v (because %v), want %v", tc.cpu, c.Action, c.ReplaceBecause, tc.action)
		}
	}
}
