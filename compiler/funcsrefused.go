package compiler

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// refusedFunctions are Terraform's functions cc refuses, each with why: a
// compile must give the same desired state, byte for byte, from the same
// files on any machine, so nothing may depend on the clock, randomness or
// the machine; and cc never unmarks a sensitive value (issue 15). A call
// is an error at the call, saying why.
var refusedFunctions = map[string]string{
	"timestamp":     "it returns the current time, so every compile would give a different desired state (and a plan that is never empty); pass a time in with a variable, or use a literal timestamp with timeadd/formatdate",
	"plantimestamp": "it returns the time of the plan, so every compile would give a different desired state; pass a time in with a variable",
	"uuid":          "it returns a new random UUID on every call, so every compile would give a different desired state; use uuidv5(namespace, name), which is the same for the same name",
	"bcrypt":        "it hashes with a random salt, so every compile would give a different desired state; keep the hash in a secret instead",
	"abspath":       "an absolute path depends on where the project is checked out, so two machines would compile different desired states; paths in cc are relative to the project root",
	"pathexpand":    "the home directory depends on the machine and the user, so two machines would compile different desired states; paths in cc are relative to the project root",
	"nonsensitive":  "cc never removes the sensitive mark: anything derived from a sensitive value stays hidden in every plan, state and output",
	"rsadecrypt":    "decrypting with a private key that is in the configuration would put the key and the plain text into the project's files; keep the value in a secret instead",
	"type":          "it exists only in terraform console",
	"list":          "the \"list\" function was deprecated in Terraform v0.12 and is no longer available; use tolist([ ... ]) syntax to write a literal list",
	"map":           "the \"map\" function was deprecated in Terraform v0.12 and is no longer available; use tomap({ ... }) syntax to write a literal map",
}

// refusedFunc is a function whose every call fails, saying why: the
// diagnostic is at the call (file:line:col).
func refusedFunc(name, why string) function.Function {
	return function.New(&function.Spec{
		Description: "Refused by cc: " + why + ".",
		VarParam:    &function.Parameter{Name: "args", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true},
		Type: func([]cty.Value) (cty.Type, error) {
			return cty.NilType, refusal(name, why)
		},
		Impl: func([]cty.Value, cty.Type) (cty.Value, error) {
			return cty.NilVal, refusal(name, why)
		},
	})
}

// refusedError is a refused function's error: fixed text, which says
// nothing of the call's arguments (so withholdReason keeps it).
type refusedError struct{ msg string }

func (e *refusedError) Error() string { return e.msg }

func refusal(name, why string) error {
	if name == "list" || name == "map" {
		return &refusedError{why}
	}
	return &refusedError{fmt.Sprintf("cc does not offer %s(): %s", name, why)}
}
