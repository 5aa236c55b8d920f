package compiler

import (
	"fmt"
	"sort"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestFunctionsNeverPanic: issue 15 (never panic on input). Every function
// of the table, called with every combination of up to three arguments
// among awkward values (null, unknown, marked, empty, huge, negative,
// fractional, wrong types), returns a value or an error; a huge result is
// refused by the limits first.
func TestFunctionsNeverPanic(t *testing.T) {
	samples := []cty.Value{
		cty.NullVal(cty.DynamicPseudoType), cty.DynamicVal, cty.UnknownVal(cty.String),
		cty.StringVal(""), cty.StringVal("/(a)/"), cty.StringVal("10.0.0.0/8"), cty.StringVal("hello.txt"),
		cty.StringVal("Zq7canaryX").Mark(sensitiveMark), cty.NumberIntVal(-1), cty.NumberFloatVal(2.5),
		cty.NumberIntVal(1 << 40), cty.True, cty.EmptyTupleVal, cty.EmptyObjectVal,
		cty.ListVal([]cty.Value{cty.UnknownVal(cty.String), cty.StringVal("a")}),
		cty.MapVal(map[string]cty.Value{"a": cty.ListVal([]cty.Value{cty.StringVal("b")})}),
		cty.TupleVal([]cty.Value{cty.NumberIntVal(1), cty.NullVal(cty.Number)}),
		cty.SetVal([]cty.Value{cty.StringVal("x").Mark(sensitiveMark)}),
	}
	b := newBudget()
	fns := functionTable("testdata/funcs", b)
	names := make([]string, 0, len(fns))
	for n := range fns {
		names = append(names, n)
	}
	sort.Strings(names)
	ok := 0
	for _, name := range names {
		f := fns[name]
		if name == "try" || name == "can" || name == "templatestring" {
			continue // their arguments are expressions, not values
		}
		var calls [][]cty.Value
		calls = append(calls, nil)
		for _, a := range samples {
			calls = append(calls, []cty.Value{a})
			for _, b := range samples {
				calls = append(calls, []cty.Value{a, b})
				for _, c := range samples[:8] {
					calls = append(calls, []cty.Value{a, b, c})
				}
			}
		}
		for _, args := range calls {
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Errorf("%s%s panics: %v", name, fmt.Sprint(args), r)
					}
				}()
				// A limit hit would make every later call unknown at once.
				b.aborted.Store(false)
				if _, err := f.Call(args); err == nil {
					ok++
				}
			}()
		}
	}
	if ok < 5000 {
		t.Errorf("only %d calls succeeded: the samples miss the functions", ok)
	}
	t.Logf("%d calls succeeded", ok)
}
