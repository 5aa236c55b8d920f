package compiler

import (
	"errors"
	"fmt"
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

// lengthFunc is Terraform's length: the number of elements of a list,
// set, map, tuple or object, or of characters of a string (cty's length
// takes lists, maps and tuples only; issue 9 item 18).
var lengthFunc = function.New(&function.Spec{
	Description: "Determines the length of a given list, map, or string.",
	Params: []function.Parameter{{
		Name: "value", Type: cty.DynamicPseudoType,
		AllowDynamicType: true, AllowUnknown: true, AllowMarked: true,
	}},
	Type: func(args []cty.Value) (cty.Type, error) {
		t := args[0].Type()
		if t == cty.String || t == cty.DynamicPseudoType || t.IsCollectionType() || t.IsTupleType() || t.IsObjectType() {
			return cty.Number, nil
		}
		return cty.Number, errors.New("argument must be a string, a collection type, or a structural type")
	},
	Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
		v, marks := args[0].Unmark()
		t := v.Type()
		switch {
		case t == cty.DynamicPseudoType:
			return cty.UnknownVal(cty.Number).WithMarks(marks), nil
		case t.IsTupleType():
			return cty.NumberIntVal(int64(len(t.TupleElementTypes()))).WithMarks(marks), nil
		case t.IsObjectType():
			return cty.NumberIntVal(int64(len(t.AttributeTypes()))).WithMarks(marks), nil
		case t == cty.String:
			n, err := stdlib.Strlen(v)
			return n.WithMarks(marks), err
		}
		return v.Length().WithMarks(marks), nil
	},
})

// lookupFunc is Terraform's lookup: a map's element or an object's
// attribute by key, or the default (the third argument, optional: cty's
// lookup requires it).
var lookupFunc = function.New(&function.Spec{
	Description: "Retrieves the value of a single element from a map, given its key. If the given key does not exist, the given default value is returned instead.",
	Params: []function.Parameter{
		{Name: "inputMap", Type: cty.DynamicPseudoType, AllowMarked: true},
		{Name: "key", Type: cty.String, AllowMarked: true},
	},
	VarParam: &function.Parameter{Name: "default", Type: cty.DynamicPseudoType, AllowUnknown: true, AllowDynamicType: true, AllowNull: true, AllowMarked: true},
	Type:     lookupType,
	Impl: func(args []cty.Value, ret cty.Type) (cty.Value, error) {
		coll, collMarks := args[0].Unmark()
		key, keyMarks := args[1].Unmark()
		k := key.AsString()
		switch {
		case coll.Type().IsObjectType() && coll.Type().HasAttribute(k):
			return coll.GetAttr(k).WithMarks(collMarks, keyMarks), nil
		case coll.Type().IsMapType() && coll.HasIndex(key).True():
			return coll.Index(key).WithMarks(collMarks, keyMarks), nil
		case len(args) == 3:
			d, err := convert.Convert(args[2], ret)
			return d.WithMarks(collMarks, keyMarks), err
		}
		if _, sensitive := keyMarks[sensitiveMark]; sensitive {
			return cty.NilVal, errors.New("lookup failed to find key (sensitive value)")
		}
		return cty.NilVal, fmt.Errorf("lookup failed to find key %q", k)
	},
})

// lookupType is lookup's result type: the map's element type, the
// attribute's type, or the default's.
func lookupType(args []cty.Value) (cty.Type, error) {
	if len(args) > 3 {
		return cty.NilType, fmt.Errorf("lookup() takes two or three arguments, got %d", len(args))
	}
	t := args[0].Type()
	switch {
	case t.IsObjectType():
		key, _ := args[1].Unmark()
		if !key.IsKnown() {
			return cty.DynamicPseudoType, nil
		}
		if k := key.AsString(); t.HasAttribute(k) {
			return t.AttributeType(k), nil
		} else if len(args) < 3 {
			return cty.DynamicPseudoType, function.NewArgErrorf(0, "the given object has no attribute %q", k)
		}
		return args[2].Type(), nil
	case t.IsMapType():
		if len(args) == 3 {
			if _, err := convert.Convert(args[2], t.ElementType()); err != nil {
				return cty.NilType, function.NewArgErrorf(2, "the default value must have the same type as the map elements")
			}
		}
		return t.ElementType(), nil
	}
	return cty.NilType, function.NewArgErrorf(0, "lookup() requires a map as the first argument")
}

// coalesceFunc is Terraform's coalesce: the first argument that is neither
// null nor an empty string. A null argument (of no type) counts, so
// coalesce(null, "b") is "b".
var coalesceFunc = function.New(&function.Spec{
	Description: "Takes any number of arguments and returns the first one that isn't null or an empty string.",
	VarParam:    &function.Parameter{Name: "vals", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true},
	Type: func(args []cty.Value) (cty.Type, error) {
		types := make([]cty.Type, len(args))
		for i, a := range args {
			types[i] = a.Type()
		}
		ty, _ := convert.UnifyUnsafe(types)
		if ty == cty.NilType {
			return cty.NilType, errors.New("all arguments must have the same type")
		}
		return ty, nil
	},
	Impl: func(args []cty.Value, ty cty.Type) (cty.Value, error) {
		for _, a := range args {
			v, err := convert.Convert(a, ty)
			if err != nil {
				return cty.NilVal, err
			}
			if !v.IsKnown() {
				return cty.UnknownVal(ty), nil
			}
			if v.IsNull() || ty == cty.String && v.AsString() == "" {
				continue
			}
			return v, nil
		}
		return cty.NilVal, errors.New("no non-null, non-empty-string arguments")
	},
})
