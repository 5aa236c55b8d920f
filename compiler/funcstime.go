package compiler

import (
	"time"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// timeCmpFunc is Terraform's timecmp: -1, 0 or 1 as the first RFC 3339
// timestamp is before, equal to or after the second. A timestamp is
// checked by cty's formatdate, whose parser and messages are those
// Terraform's timecmp has.
var timeCmpFunc = function.New(&function.Spec{
	Description: "Compares two timestamps and returns a number that represents the ordering of the instants those timestamps represent.",
	Params:      stringParams("timestamp_a", "timestamp_b"),
	Type:        function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		var ts [2]time.Time
		for i, a := range args {
			if _, err := stdlib.FormatDate(cty.StringVal("YYYY"), a); err != nil {
				return cty.NilVal, function.NewArgError(i, err)
			}
			t, err := time.Parse(time.RFC3339, a.AsString())
			if err != nil {
				return cty.NilVal, function.NewArgError(i, err)
			}
			ts[i] = t
		}
		return cty.NumberIntVal(int64(ts[0].Compare(ts[1]))), nil
	},
})
