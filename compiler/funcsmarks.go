package compiler

import (
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// Terraform's functions of the sensitive mark (issue 15): sensitive and
// issensitive; nonsensitive is refused (refusedFunctions). cc has no
// ephemeral values, so ephemeralasnull gives its argument unchanged, as
// Terraform does for a value that is not ephemeral.

// anyParam is a parameter that takes any value, marked, unknown or null.
var anyParam = function.Parameter{Name: "value", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true}

// sameType is the return type of a function that returns its argument.
func sameType(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil }

var sensitiveFunc = function.New(&function.Spec{
	Description: "Treats the given value as sensitive: it is hidden wherever it appears, as a value derived from a sensitive variable is.",
	Params:      []function.Parameter{anyParam},
	Type:        sameType,
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return args[0].Mark(sensitiveMark), nil
	},
})

var isSensitiveFunc = function.New(&function.Spec{
	Description: "Determines whether the given value is sensitive.",
	Params:      []function.Parameter{anyParam},
	Type:        function.StaticReturnType(cty.Bool),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return cty.BoolVal(args[0].HasMark(sensitiveMark)), nil
	},
})

var ephemeralAsNullFunc = function.New(&function.Spec{
	Description: "Takes a value and returns it with its ephemeral parts null; cc has no ephemeral values, so the value is returned unchanged.",
	Params:      []function.Parameter{anyParam},
	Type:        sameType,
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		return args[0], nil
	},
})
