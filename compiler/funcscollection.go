package compiler

import (
	"errors"
	"math/big"
	"sort"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// The collection functions only Terraform has (its internal/lang/funcs),
// written here with its semantics and messages (issue 15).

// boolListParam is the one parameter of alltrue and anytrue.
var boolListParam = []function.Parameter{{Name: "list", Type: cty.List(cty.Bool)}}

// allTrueFunc is Terraform's alltrue: whether every element is true (true
// for an empty list; a null element is not true).
var allTrueFunc = function.New(&function.Spec{
	Description: "Returns true if all elements in a given collection are true or \"true\". It also returns true if the collection is empty.",
	Params:      boolListParam,
	Type:        function.StaticReturnType(cty.Bool),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		for it := args[0].ElementIterator(); it.Next(); {
			_, v := it.Element()
			switch {
			case !v.IsKnown():
				return cty.UnknownVal(cty.Bool), nil
			case v.IsNull() || v.False():
				return cty.False, nil
			}
		}
		return cty.True, nil
	},
})

// anyTrueFunc is Terraform's anytrue: whether some element is true (false
// for an empty list).
var anyTrueFunc = function.New(&function.Spec{
	Description: "Returns true if any element in a given collection is true or \"true\". It also returns false if the collection is empty.",
	Params:      boolListParam,
	Type:        function.StaticReturnType(cty.Bool),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		unknown := false
		for it := args[0].ElementIterator(); it.Next(); {
			_, v := it.Element()
			switch {
			case !v.IsKnown():
				unknown = true
			case !v.IsNull() && v.True():
				return cty.True, nil
			}
		}
		if unknown {
			return cty.UnknownVal(cty.Bool), nil
		}
		return cty.False, nil
	},
})

// indexFunc is Terraform's index: the position of the first element equal
// to a value (cty's index differs: it looks a key up).
var indexFunc = function.New(&function.Spec{
	Description: "Finds the element index for a given value in a list.",
	Params: []function.Parameter{
		{Name: "list", Type: cty.DynamicPseudoType},
		{Name: "value", Type: cty.DynamicPseudoType},
	},
	Type: function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		list := args[0]
		if t := list.Type(); !t.IsListType() && !t.IsTupleType() {
			return cty.NilVal, errors.New("argument must be a list or tuple")
		}
		if !list.IsKnown() {
			return cty.UnknownVal(cty.Number), nil
		}
		if list.LengthInt() == 0 {
			return cty.NilVal, errors.New("cannot search an empty list")
		}
		for it := list.ElementIterator(); it.Next(); {
			i, v := it.Element()
			eq, err := stdlib.Equal(v, args[1])
			if err != nil {
				return cty.NilVal, err
			}
			if !eq.IsKnown() {
				return cty.UnknownVal(cty.Number), nil
			}
			if eq.True() {
				return i, nil
			}
		}
		return cty.NilVal, errors.New("item not found")
	},
})

// errOneElement is one's refusal of a collection of two elements or more.
var errOneElement = function.NewArgErrorf(0, "must be a list, set, or tuple value with either zero or one elements")

// oneFunc is Terraform's one: the only element of a collection of one,
// null for an empty one.
var oneFunc = function.New(&function.Spec{
	Description: "Returns either the first element of a one-element list, or null if given a zero-element list.",
	Params:      []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
	Type: func(args []cty.Value) (cty.Type, error) {
		t := args[0].Type()
		switch {
		case t.IsListType() || t.IsSetType():
			return t.ElementType(), nil
		case t.IsTupleType() && len(t.TupleElementTypes()) == 0:
			return cty.DynamicPseudoType, nil
		case t.IsTupleType() && len(t.TupleElementTypes()) == 1:
			return t.TupleElementTypes()[0], nil
		}
		return cty.NilType, errOneElement
	},
	Impl: func(args []cty.Value, ret cty.Type) (cty.Value, error) {
		v := args[0]
		if !v.Length().IsKnown() {
			return cty.UnknownVal(ret), nil
		}
		switch v.LengthInt() {
		case 0:
			return cty.NullVal(ret), nil
		case 1:
			vals := v.AsValueSlice()
			return vals[0], nil
		}
		return cty.NilVal, errOneElement
	},
})

// errSumElements is sum's refusal of a null or non-number element.
var errSumElements = function.NewArgErrorf(0, "argument must be list, set, or tuple of number values")

// sumFunc is Terraform's sum: the sum of a list, set or tuple of numbers.
var sumFunc = function.New(&function.Spec{
	Description: "Returns the total sum of the elements of the input list, set, or tuple.",
	Params:      []function.Parameter{{Name: "list", Type: cty.DynamicPseudoType}},
	Type:        function.StaticReturnType(cty.Number),
	Impl: func(args []cty.Value, _ cty.Type) (ret cty.Value, err error) {
		list := args[0]
		if !list.CanIterateElements() {
			return cty.NilVal, function.NewArgErrorf(0, "cannot sum noniterable")
		}
		if list.LengthInt() == 0 {
			return cty.NilVal, function.NewArgErrorf(0, "cannot sum an empty list")
		}
		if t := list.Type(); !t.IsListType() && !t.IsSetType() && !t.IsTupleType() {
			return cty.NilVal, function.NewArgErrorf(0, "argument must be list, set, or tuple. Received %s", t.FriendlyName())
		}
		if !list.IsWhollyKnown() {
			return cty.UnknownVal(cty.Number), nil
		}
		defer func() {
			// big.Float panics on adding opposite infinities.
			if r := recover(); r != nil {
				if _, ok := r.(big.ErrNaN); !ok {
					panic(r)
				}
				ret, err = cty.NilVal, errors.New("can't compute sum of opposing infinities")
			}
		}()
		total := cty.Zero
		for _, v := range list.AsValueSlice() {
			if v.IsNull() {
				return cty.NilVal, errSumElements
			}
			n, err := convert.Convert(v, cty.Number)
			if err != nil {
				return cty.NilVal, errSumElements
			}
			total = total.Add(n)
		}
		return total, nil
	},
})

// matchkeysFunc is Terraform's matchkeys: the values whose key, at the same
// index, is in the search set.
var matchkeysFunc = function.New(&function.Spec{
	Description: "Constructs a new list by taking a subset of elements from one list whose indexes match the corresponding indexes of values in another list.",
	Params: []function.Parameter{
		{Name: "values", Type: cty.List(cty.DynamicPseudoType)},
		{Name: "keys", Type: cty.List(cty.DynamicPseudoType)},
		{Name: "searchset", Type: cty.List(cty.DynamicPseudoType)},
	},
	Type: func(args []cty.Value) (cty.Type, error) {
		if t, _ := convert.UnifyUnsafe([]cty.Type{args[1].Type(), args[2].Type()}); t == cty.NilType {
			return cty.NilType, errors.New("keys and searchset must be of the same type")
		}
		return args[0].Type(), nil
	},
	Impl: matchkeys,
})

func matchkeys(args []cty.Value, ret cty.Type) (cty.Value, error) {
	values := args[0]
	empty := cty.ListValEmpty(ret.ElementType())
	if values.LengthInt() != args[1].LengthInt() {
		return cty.NilVal, errors.New("length of keys and values should be equal")
	}
	t, _ := convert.UnifyUnsafe([]cty.Type{args[1].Type(), args[2].Type()})
	keys, _ := convert.Convert(args[1], t)
	search, _ := convert.Convert(args[2], t)
	if search.LengthInt() == 0 {
		return empty, nil
	}
	if !values.IsWhollyKnown() || !keys.IsWhollyKnown() {
		return cty.UnknownVal(ret), nil
	}
	var out []cty.Value
	for i, k := range keys.AsValueSlice() {
		for _, s := range search.AsValueSlice() {
			eq, err := stdlib.Equal(k, s)
			if err != nil {
				return cty.NilVal, err
			}
			if !eq.IsKnown() {
				return empty, nil
			}
			if eq.True() {
				out = append(out, values.Index(cty.NumberIntVal(int64(i))))
				break
			}
		}
	}
	if len(out) == 0 {
		return empty, nil
	}
	return cty.ListVal(out), nil
}

// transposeFunc is Terraform's transpose: a map of lists of strings with
// keys and values swapped, each list sorted.
var transposeFunc = function.New(&function.Spec{
	Description: "Takes a map of lists of strings and swaps the keys and values to produce a new map of lists of strings.",
	Params:      []function.Parameter{{Name: "values", Type: cty.Map(cty.List(cty.String))}},
	Type:        function.StaticReturnType(cty.Map(cty.List(cty.String))),
	Impl: func(args []cty.Value, ret cty.Type) (cty.Value, error) {
		in := args[0]
		if !in.IsWhollyKnown() {
			return cty.UnknownVal(ret), nil
		}
		swapped := map[string][]string{}
		for it := in.ElementIterator(); it.Next(); {
			k, list := it.Element()
			if list.IsNull() {
				return cty.NilVal, errors.New("input must not contain null list")
			}
			for _, v := range list.AsValueSlice() {
				if v.IsNull() {
					return cty.NilVal, errors.New("input list must not contain null string")
				}
				swapped[v.AsString()] = append(swapped[v.AsString()], k.AsString())
			}
		}
		if len(swapped) == 0 {
			return cty.MapValEmpty(cty.List(cty.String)), nil
		}
		out := make(map[string]cty.Value, len(swapped))
		for k, names := range swapped {
			sort.Strings(names)
			vals := make([]cty.Value, len(names))
			for i, n := range names {
				vals[i] = cty.StringVal(n)
			}
			out[k] = cty.ListVal(vals)
		}
		return cty.MapVal(out), nil
	},
})
