package compiler

import (
	"fmt"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"cc.dev/cc/diag"
)

// dupKeys reports every object constructor in e ({ A = 1, A = 2 }) that
// sets one key twice, at the second key, naming the first. HCL keeps the
// last value silently where CUE reports a conflict: in cc both languages
// refuse it (issue 9 item 7). Keys are evaluated in ectx, so "${x}" keys
// count too; a key that does not evaluate is left to the evaluation's
// own error.
func (l *hclLoader) dupKeys(e hclsyntax.Expression, ectx *hcl.EvalContext) {
	if !mayHoldObjectCons(e) {
		return
	}
	hclsyntax.VisitAll(e, func(n hclsyntax.Node) hcl.Diagnostics {
		o, ok := n.(*hclsyntax.ObjectConsExpr)
		if !ok || len(o.Items) < 2 {
			return nil // one key cannot be set twice
		}
		first := map[string]hcl.Range{}
		for _, item := range o.Items {
			k, sensitive, ok := objectKey(item.KeyExpr, ectx)
			if !ok {
				continue
			}
			r := item.KeyExpr.Range()
			if prev, dup := first[k]; dup {
				q := strconv.Quote(k)
				if sensitive {
					q = "(a sensitive value)"
				}
				d := l.errorf(r, "key %s is set twice in one object (first at %s)", q, posOf(prev))
				d.Related = []diag.Range{*toRange(prev)}
				continue
			}
			first[k] = r
		}
		return nil
	})
}

// objectKey evaluates an object constructor's key as a string, and says
// whether it is sensitive (made from a sensitive value).
func objectKey(e hclsyntax.Expression, ectx *hcl.EvalContext) (key string, sensitive, ok bool) {
	v, hd := e.Value(ectx)
	if hd.HasErrors() || !v.IsWhollyKnown() || v.IsNull() {
		return "", false, false
	}
	sensitive = v.HasMarkDeep(sensitiveMark)
	v, _ = v.UnmarkDeep()
	s, err := convert.Convert(v, cty.String)
	if err != nil {
		return "", false, false
	}
	return s.AsString(), sensitive, true
}

func posOf(r hcl.Range) string {
	return fmt.Sprintf("%s:%d:%d", r.Filename, r.Start.Line, r.Start.Column)
}

// mayHoldObjectCons is false for the expressions most attributes are,
// that can hold no object constructor: a literal, a reference, a
// template of literals and references, or a tuple of those. It spares dupKeys a walk.
func mayHoldObjectCons(e hclsyntax.Expression) bool {
	switch e := e.(type) {
	case *hclsyntax.LiteralValueExpr, *hclsyntax.ScopeTraversalExpr:
		return false
	case *hclsyntax.TemplateWrapExpr:
		return mayHoldObjectCons(e.Wrapped)
	case *hclsyntax.TupleConsExpr:
		for _, x := range e.Exprs {
			if mayHoldObjectCons(x) {
				return true
			}
		}
		return false
	case *hclsyntax.TemplateExpr:
		for _, p := range e.Parts {
			switch p.(type) {
			case *hclsyntax.LiteralValueExpr, *hclsyntax.ScopeTraversalExpr:
			default:
				return true
			}
		}
		return false
	}
	return true
}
