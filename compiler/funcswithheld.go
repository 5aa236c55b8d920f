package compiler

import (
	"errors"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
)

// A function's error never tells of a sensitive argument. The scrubber
// (sensitivediag.go) finds a sensitive value where a diagnostic quotes it
// whole, but a function's reason can quote a part of one, or a value made
// from one: tonumber(strrev(var.p)) quoted the value reversed,
// file(substr(var.p, 0, 6)) its first six characters, jsondecode(var.p)
// one character ("invalid character 'x'"), regex and format the piece of
// the pattern they refuse. So when any argument of a call holds a
// sensitive value, its error keeps only which argument it is about (the
// diagnostic's position) and says the reason is withheld; HCL's own
// diagnostics about an argument's type come before the call and say
// nothing of a value. Terraform redacts function by function; cc cannot
// tell a quoted part from any other text, so it withholds every reason.

// withheldReason is the reason a function's error gives in place of its
// own when an argument of the call is sensitive.
const withheldReason = "the reason is withheld, as an argument of the call is sensitive and the reason could quote a part of it; to see it, call the function with a value that is not sensitive"

// withholdReason is err, or, when any of args holds a sensitive value,
// err without its reason. A limit's error (limitError), which tells of a
// size, and a refused function's (refusedError), fixed text, are kept.
func withholdReason(err error, args []cty.Value) error {
	if err == nil || !anySensitive(args) {
		return err
	}
	var le *limitError
	var re *refusedError
	if errors.As(err, &le) || errors.As(err, &re) {
		return err
	}
	return withheld(err)
}

// withheld is err without its reason, about the same argument.
func withheld(err error) error {
	var ae function.ArgError
	if errors.As(err, &ae) {
		return function.NewArgErrorf(ae.Index, "%s", withheldReason)
	}
	return errors.New(withheldReason)
}

// anySensitive reports whether any of args holds a sensitive value.
func anySensitive(args []cty.Value) bool {
	for _, a := range args {
		if a.HasMarkDeep(sensitiveMark) {
			return true
		}
	}
	return false
}

// seeingMarks is ps with every parameter taking marked values, so that a
// wrapper sees the marks its function is called with (and the function it
// calls unmarks and marks again as its own parameters say).
func seeingMarks(ps []function.Parameter) []function.Parameter {
	for i := range ps {
		ps[i].AllowMarked = true
	}
	return ps
}

// seeingMark is seeingMarks of a variadic parameter; nil stays nil.
func seeingMark(p *function.Parameter) *function.Parameter {
	if p != nil {
		p.AllowMarked = true
	}
	return p
}
