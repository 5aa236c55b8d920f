package applier

import (
	"cc.dev/cc/planner"
	"cc.dev/cc/service"
)

// serviceAction is the Apply request's action for a change with action a:
// the one place the planner's action becomes the API's. A delete is a
// Delete request, never an Apply; any other action (a no-op, which a plan
// file could carry) updates, as it always has.
func serviceAction(a planner.Action) service.Action {
	switch a {
	case planner.Create:
		return service.ActionCreate
	case planner.Replace:
		return service.ActionReplace
	}
	return service.ActionUpdate
}
