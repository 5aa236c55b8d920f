package compiler

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// Issue 12 (reuse): dynamic blocks, as HCL's dynblock extension writes
// them, for the nested blocks that may repeat (ports, volume_mounts,
// steps, ...):
//
//	dynamic "ports" {
//	  for_each = var.ports
//	  iterator = port            # optional; the block type by default
//	  labels   = ["exact_match"] # the blocks' labels, when they have some
//	  content { port = port.value }
//	}
//
// gives one ports block per element of for_each, in its order, each
// evaluated with port.key and port.value. The loader evaluates hclsyntax
// bodies itself rather than through hcl.Body, so the expansion is done
// here, with the same semantics, rather than by dynblock.

// scopedBlock is a block with the evaluation context of its body.
type scopedBlock struct {
	block *hclsyntax.Block
	ectx  *hcl.EvalContext
}

// dynamicAttrs are the attributes a dynamic block may have.
var dynamicAttrs = []string{"for_each", "iterator", "labels"}

// expandDynamic gives blocks with each dynamic block replaced by the
// blocks it generates.
func (l *hclLoader) expandDynamic(blocks hclsyntax.Blocks, ectx *hcl.EvalContext) []scopedBlock {
	out := make([]scopedBlock, 0, len(blocks))
	for _, b := range blocks {
		if b.Type != "dynamic" {
			out = append(out, scopedBlock{b, ectx})
			continue
		}
		out = append(out, l.dynamicBlocks(b, ectx)...)
	}
	return out
}

// dynamicBlocks checks a dynamic block and generates its blocks.
func (l *hclLoader) dynamicBlocks(b *hclsyntax.Block, ectx *hcl.EvalContext) []scopedBlock {
	content, iter, ok := l.dynamicParts(b)
	if !ok {
		return nil
	}
	fe := b.Body.Attributes["for_each"]
	v, hd := fe.Expr.Value(ectx)
	l.add(hd)
	if hd.HasErrors() {
		return nil
	}
	if v.IsNull() || !v.IsWhollyKnown() || !(v.CanIterateElements()) {
		l.errorf(fe.Expr.Range(), "for_each of a dynamic block must be a known list, set or map, not %s", v.Type().FriendlyName())
		return nil
	}
	var out []scopedBlock
	for it := v.ElementIterator(); it.Next(); {
		k, x := it.Element()
		if v.Type().IsSetType() {
			k = x
		}
		ictx := withVariable(ectx, iter, cty.ObjectVal(map[string]cty.Value{"key": k, "value": x}))
		gen := &hclsyntax.Block{Type: b.Labels[0], TypeRange: b.LabelRanges[0], Body: content.Body,
			OpenBraceRange: content.OpenBraceRange, CloseBraceRange: content.CloseBraceRange}
		if la := b.Body.Attributes["labels"]; la != nil {
			labels, ok := l.dynamicLabels(la, ictx)
			if !ok {
				return nil
			}
			gen.Labels = labels
			for range labels {
				gen.LabelRanges = append(gen.LabelRanges, la.Expr.Range())
			}
		}
		out = append(out, scopedBlock{gen, ictx})
	}
	return out
}

// dynamicParts checks a dynamic block's form and gives its content block
// and iterator name.
func (l *hclLoader) dynamicParts(b *hclsyntax.Block) (*hclsyntax.Block, string, bool) {
	if len(b.Labels) != 1 {
		l.errorf(b.DefRange(), `a dynamic block has one label, the type of the blocks it makes: dynamic "ports" { ... }`)
		return nil, "", false
	}
	ok := true
	for _, a := range sortedAttrs(b.Body.Attributes) {
		if !contains(dynamicAttrs, a.Name) {
			l.errorf(a.NameRange, "unknown attribute %q in a dynamic block; allowed: %s and a content block", a.Name, joinQuoted(dynamicAttrs))
			ok = false
		}
	}
	if b.Body.Attributes["for_each"] == nil {
		l.errorf(b.DefRange(), "missing required attribute \"for_each\" in a dynamic block")
		ok = false
	}
	var content *hclsyntax.Block
	for _, nb := range b.Body.Blocks {
		switch {
		case nb.Type != "content":
			l.errorf(nb.TypeRange, "a dynamic block holds one content block, not %s blocks", nb.Type)
			ok = false
		case content != nil:
			l.errorf(nb.TypeRange, "a dynamic block holds one content block, not two")
			ok = false
		default:
			content = nb
		}
	}
	if content == nil && ok {
		l.errorf(b.DefRange(), "a dynamic block needs a content block: content { ... }")
		ok = false
	}
	iter, iok := l.dynamicIterator(b)
	return content, iter, ok && iok
}

// dynamicIterator is the name a dynamic block's iterator has: its
// iterator attribute, a bare name, or its label.
func (l *hclLoader) dynamicIterator(b *hclsyntax.Block) (string, bool) {
	a := b.Body.Attributes["iterator"]
	name, rng := b.Labels[0], b.LabelRanges[0]
	if a != nil {
		tr, hd := hcl.AbsTraversalForExpr(a.Expr)
		if hd.HasErrors() || len(tr) != 1 {
			l.errorf(a.Expr.Range(), "iterator must be a bare name: iterator = port")
			return "", false
		}
		name, rng = tr.RootName(), a.Expr.Range()
	}
	if shadowsRoot(name) {
		l.errorf(rng, "the iterator %s would hide the references that start with %s: name another with iterator = NAME", name, name)
		return "", false
	}
	return name, true
}

// shadowsRoot reports whether an iterator name is one a reference starts
// with (var, image, each, ...).
func shadowsRoot(name string) bool {
	return contains(referenceRoots, name) || name == "each" || name == "count" || hclKinds[name] != ""
}

// dynamicLabels evaluates a dynamic block's labels: a list of strings.
func (l *hclLoader) dynamicLabels(a *hclsyntax.Attribute, ectx *hcl.EvalContext) ([]string, bool) {
	v, hd := a.Expr.Value(ectx)
	l.add(hd)
	if hd.HasErrors() {
		return nil, false
	}
	if v.IsNull() || !v.IsWhollyKnown() || !(v.Type().IsListType() || v.Type().IsTupleType()) {
		l.errorf(a.Expr.Range(), "labels must be a list of strings")
		return nil, false
	}
	var out []string
	for it := v.ElementIterator(); it.Next(); {
		_, x := it.Element()
		if x.IsNull() || x.Type() != cty.String {
			l.errorf(a.Expr.Range(), "labels must be a list of strings")
			return nil, false
		}
		out = append(out, x.AsString())
	}
	return out, true
}

// iteratorsOK checks the iterator names of the dynamic blocks under
// body, reporting those that would hide a reference.
func (l *hclLoader) iteratorsOK(body *hclsyntax.Body) bool {
	ok := true
	for _, b := range body.Blocks {
		if b.Type == "dynamic" && len(b.Labels) == 1 {
			_, iok := l.dynamicIterator(b)
			ok = ok && iok
		}
		ok = l.iteratorsOK(b.Body) && ok
	}
	return ok
}

// dynamicIterators adds the iterator names of the dynamic blocks under
// body to scope.
func dynamicIterators(body *hclsyntax.Body, scope map[string]bool) {
	for _, b := range body.Blocks {
		if b.Type == "dynamic" && len(b.Labels) == 1 {
			name := b.Labels[0]
			if a := b.Body.Attributes["iterator"]; a != nil {
				if tr, hd := hcl.AbsTraversalForExpr(a.Expr); !hd.HasErrors() && len(tr) == 1 {
					name = tr.RootName()
				}
			}
			if !shadowsRoot(name) {
				scope[name] = true
			}
		}
		dynamicIterators(b.Body, scope)
	}
}
