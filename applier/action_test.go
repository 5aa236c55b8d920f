package applier

import (
	"testing"

	"cc.dev/cc/planner"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// TestIssue16OneActionEnum: the service's action is the API's enum itself
// (no integer cast between two enums), and the planner's action becomes it
// in one function (issue 16 item 5).
func TestIssue16OneActionEnum(t *testing.T) {
	for a, want := range map[planner.Action]ccv1.Action{
		planner.Create:  ccv1.Action_ACTION_CREATE,
		planner.Update:  ccv1.Action_ACTION_UPDATE,
		planner.Replace: ccv1.Action_ACTION_REPLACE,
		planner.NoOp:    ccv1.Action_ACTION_UPDATE,
	} {
		// The assignment compiles only while service.Action is ccv1.Action.
		var got ccv1.Action = serviceAction(a)
		if got != want {
			t.Errorf("serviceAction(%v) = %v, want %v", a, got, want)
		}
	}
}
