package compiler

import (
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"cc.dev/cc/diag"
)

// Compiling with Input.UnknownVariables (cc validate), a variable with
// neither a value nor a default is an unknown value of its type, as
// terraform validate evaluates a module without its inputs (issue 12:
// validate without required variables). An attribute whose value is not
// wholly known then holds a placeholder of its type (placeholder) so the
// rest of its resource is checked, and every diagnostic inside that
// attribute's expression is dropped (skipUnknown): a check that meets an
// unknown value skips it instead of failing. Validation rules of an
// unknown variable do not run.

// unknownVariable is the value of a variable without a value or default.
func unknownVariable(v *hclVariable) cty.Value {
	val := cty.UnknownVal(v.typ)
	if v.sensitive {
		val = val.Mark(sensitiveMark)
	}
	return val
}

// known returns v when it is wholly known. Otherwise, when unknown
// variables are allowed, it notes rng as unknown and returns v's
// placeholder, and true; else false.
func (l *hclLoader) known(v cty.Value, rng hcl.Range) (cty.Value, bool) {
	if whollyKnown(v) {
		return v, true
	}
	if !l.p.unknownVars {
		return v, false
	}
	l.p.unknownAt = append(l.p.unknownAt, *toRange(rng))
	return placeholder(v), true
}

// knownAttr is known for the value v of an attribute's expression e,
// sparing the walk of v where e tells it is wholly known: a literal (a
// template or tuple of literals too), or a reference into a resource
// whose whole value is, found once per resource (a sandbox's
// image = image.base holds the image's whole value, walked otherwise for
// every sandbox that refers to it). Only in the context evalContext made
// last, where a resource's root is the resource (not a dynamic block's
// iterator of that name).
func (l *hclLoader) knownAttr(e hclsyntax.Expression, v cty.Value, ectx *hcl.EvalContext) (cty.Value, bool) {
	if !mayRefer(e) {
		return v, true // literals are known, and evaluate to no marks
	}
	if r := l.referredResource(e); r != nil && ectx == l.lastCtx {
		if r.wholeKnown == 0 {
			r.wholeKnown = 2
			if whollyKnown(r.value) {
				r.wholeKnown = 1
			}
		}
		if r.wholeKnown == 1 {
			return v, true
		}
	}
	return l.known(v, e.Range())
}

// referredResource is the evaluated resource, not repeated, that e refers
// into when e is a bare reference (image.base, image.base.from); nil
// otherwise.
func (l *hclLoader) referredResource(e hclsyntax.Expression) *hclResource {
	st, ok := e.(*hclsyntax.ScopeTraversalExpr)
	if !ok || !referable[st.Traversal.RootName()] {
		return nil
	}
	name, _, ok := traversalAttr(st.Traversal)
	if !ok {
		return nil
	}
	r := l.resources[st.Traversal.RootName()+"."+name]
	if r == nil || !r.done || r.repeated() || r.dropped {
		return nil
	}
	return r
}

// whollyKnown is v.IsWhollyKnown(), without the sorted key list cty's
// element iterator allocates for every object it walks.
func whollyKnown(v cty.Value) bool {
	if v.IsMarked() {
		v, _ = v.Unmark()
	}
	if !v.IsKnown() {
		return false
	}
	if v.IsNull() {
		return true
	}
	t := v.Type()
	switch {
	case t.IsObjectType():
		for name := range t.AttributeTypes() {
			if !whollyKnown(v.GetAttr(name)) {
				return false
			}
		}
		return true
	case v.CanIterateElements():
		for it := v.ElementIterator(); it.Next(); {
			if _, ev := it.Element(); !whollyKnown(ev) {
				return false
			}
		}
	}
	return true
}

// placeholder replaces every unknown part of v with a known value of its
// type: "unknown" for a string, 1 for a number, false for a bool, an empty
// collection, an object or tuple of placeholders. Marks stay on what
// holds them; a marked unknown stays marked.
func placeholder(v cty.Value) cty.Value {
	out, err := cty.Transform(v, func(_ cty.Path, x cty.Value) (cty.Value, error) {
		if x.IsKnown() {
			return x, nil
		}
		x, marks := x.Unmark()
		return zeroOf(x.Type()).WithMarks(marks), nil
	})
	if err != nil {
		return cty.StringVal("unknown")
	}
	return out
}

// zeroOf is a known value of type t, for placeholder.
func zeroOf(t cty.Type) cty.Value {
	switch {
	case t == cty.String, t == cty.DynamicPseudoType:
		return cty.StringVal("unknown")
	case t == cty.Number:
		return cty.NumberIntVal(1)
	case t == cty.Bool:
		return cty.False
	case t.IsListType():
		return cty.ListValEmpty(t.ElementType())
	case t.IsSetType():
		return cty.SetValEmpty(t.ElementType())
	case t.IsMapType():
		return cty.MapValEmpty(t.ElementType())
	case t.IsObjectType():
		attrs := map[string]cty.Value{}
		for name, at := range t.AttributeTypes() {
			attrs[name] = zeroOf(at)
		}
		return cty.ObjectVal(attrs)
	case t.IsTupleType():
		elems := make([]cty.Value, len(t.TupleElementTypes()))
		for i, et := range t.TupleElementTypes() {
			elems[i] = zeroOf(et)
		}
		return cty.TupleVal(elems)
	}
	return cty.NullVal(t)
}

// skipUnknown drops the diagnostics that point into an expression whose
// value was not known (known): what they checked was a placeholder.
func (p *project) skipUnknown(ds diag.Diagnostics) diag.Diagnostics {
	if len(p.unknownAt) == 0 {
		return ds
	}
	out := ds[:0:0]
	for _, d := range ds {
		if !p.inUnknown(d.Subject) {
			out = append(out, d)
		}
	}
	return out
}

func (p *project) inUnknown(r *diag.Range) bool {
	if r == nil {
		return false
	}
	for _, u := range p.unknownAt {
		if u.File == r.File && r.Start.Byte >= u.Start.Byte && r.Start.Byte < max(u.End.Byte, u.Start.Byte+1) {
			return true
		}
	}
	return false
}

// unknownRepetition handles a repeated resource block whose for_each or
// count is not known because it depends on an unknown variable (issue 12:
// validate where unknown variables meet for_each and count): as
// terraform validate does, the body is checked once with each.key,
// each.value or count.index unknown, and the resource as a whole is
// unknown to what refers to it; the schema checks it as one resource
// named as the block. False when the repetition is known, or
// unknown variables are not allowed, or it does not evaluate.
func (l *hclLoader) unknownRepetition(r *hclResource, coll string, sh *shape, label hcl.Range, ectx *hcl.EvalContext) bool {
	if !l.p.unknownVars {
		return false
	}
	a, name := r.forEach, "each"
	iter := cty.ObjectVal(map[string]cty.Value{"key": cty.UnknownVal(cty.String), "value": cty.DynamicVal})
	if a == nil {
		a, name = r.count, "count"
		iter = cty.ObjectVal(map[string]cty.Value{"index": cty.UnknownVal(cty.Number)})
	}
	v, hd := a.Expr.Value(ectx)
	if hd.HasErrors() || v.IsWhollyKnown() {
		return false
	}
	l.known(v, a.Expr.Range())
	path := append(strings.Split(coll, "."), r.name)
	l.ranges.set(path, r.block.DefRange(), label)
	obj := l.modulePaths(r.kind, l.evalBody(r.block.Body, sh, path, withVariable(ectx, name, iter)))
	r.done, r.value, r.unknownBody = true, cty.DynamicVal, cty.ObjectVal(obj)
	if l.col != nil && !l.diags.HasErrors() {
		l.col.add(item{coll: coll, name: r.name, val: r.unknownBody})
	}
	return true
}
