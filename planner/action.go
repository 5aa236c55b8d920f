package planner

import (
	"fmt"
)

// Action is what an apply does to the resource at an address.
type Action int

const (
	NoOp Action = iota
	Create
	Update
	Replace
	Delete
	// Forget hands the resource to the service's unowned resources (a
	// `removed` declaration): the project stops owning it, nothing is
	// destroyed (issue 10: forgetting).
	Forget
	// Import adopts an unowned resource into the project (an `import`
	// declaration), then updates it to the configuration if it differs
	// (issue 10: adoption).
	Import
)

var actionNames = [...]string{NoOp: "no-op", Create: "create", Update: "update", Replace: "replace", Delete: "delete", Forget: "forget", Import: "import"}

func (a Action) String() string {
	if a < 0 || int(a) >= len(actionNames) {
		return fmt.Sprintf("Action(%d)", int(a))
	}
	return actionNames[a]
}

// IsReplace reports whether the action destroys the resource and creates it
// anew.
func (a Action) IsReplace() bool { return a == Replace }

// IsDestructive reports whether the action destroys what exists: a delete
// or a replace.
func (a Action) IsDestructive() bool { return a == Delete || a == Replace }

// Symbol is the action's mark in the text and Markdown views. A change
// that only moves a resource (NoOp with MovedFrom) is marked "->"
// (Change.Symbol).
func (a Action) Symbol() string {
	switch a {
	case Create:
		return "+"
	case Update:
		return "~"
	case Replace:
		return "-/+"
	case Delete:
		return "-"
	case Forget:
		return "x"
	case Import:
		return "<-"
	}
	return " "
}

func (a Action) MarshalText() ([]byte, error) {
	if a < 0 || int(a) >= len(actionNames) {
		return nil, fmt.Errorf("unknown action %d", int(a))
	}
	return []byte(actionNames[a]), nil
}

func (a *Action) UnmarshalText(b []byte) error {
	for i, n := range actionNames {
		if n == string(b) {
			*a = Action(i)
			return nil
		}
	}
	return fmt.Errorf("unknown action %q", b)
}
