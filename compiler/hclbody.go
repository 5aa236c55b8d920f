package compiler

import (
	"encoding/json"
	"fmt"
	"math/big"
	"sort"
	"strconv"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// A shape says how the nested blocks of an HCL body map onto the schema's
// fields. Attributes need no entry: every attribute is a field of the same
// name, and the schema judges it. Blocks do: a block type is a single
// object, one element of a list (credential -> credentials), an image step
// (apt -> steps[i].apt) or a labelled element (scorer "exact_match").
type shape struct {
	blocks map[string]blockSpec
}

type blockMode int

const (
	blockSingle   blockMode = iota // field = object; at most one block
	blockList                      // field = [object, ...]
	blockStep                      // steps = [{type: object}, ...] in source order
	blockLabelled                  // field = [{label: object}, ...]
)

type blockSpec struct {
	field string
	mode  blockMode
	shape *shape
	// labels lists the allowed labels of a labelled block, with the shape
	// of each one's body.
	labels map[string]*shape
	// plain are the labels whose member is no block: the body's
	// attribute of the label's name is the member's value, and the body
	// is the element's (scorer "function" { function = function.x }).
	plain map[string]bool
	// modifiers are the element's fields that are no label
	// (@cc(modifier)): written in any labelled block's body, they are the
	// element's (a scorer's scores).
	modifiers []string
}

var shapeCache sync.Map // *schema.Schema → map[string]*shape

// shapesOf gives the shapes of each kind's body, by kind name, as the
// schema's @cc(block) facts say (built once per schema).
func shapesOf(s *schema.Schema) map[string]*shape {
	if m, ok := shapeCache.Load(s); ok {
		return m.(map[string]*shape)
	}
	memo := map[*schema.Def]*shape{}
	out := map[string]*shape{}
	for _, k := range schema.Kinds {
		out[string(k)] = defShape(s, s.Kind(k), memo)
	}
	m, _ := shapeCache.LoadOrStore(s, out)
	return m.(map[string]*shape)
}

// defShape is the shape of a struct's body: a block for each field marked
// @cc(block). memo ends the recursion of an image's from.
func defShape(s *schema.Schema, d *schema.Def, memo map[*schema.Def]*shape) *shape {
	if sh, ok := memo[d]; ok {
		return sh
	}
	sh := &shape{}
	memo[d] = sh
	if d == nil {
		return sh
	}
	for _, f := range d.Fields {
		if f.Block == schema.BlockNone {
			continue
		}
		if sh.blocks == nil {
			sh.blocks = map[string]blockSpec{}
		}
		elem := s.Elem(f)
		switch f.Block {
		case schema.BlockSingle:
			sh.blocks[f.BlockName] = blockSpec{field: f.Name, mode: blockSingle, shape: defShape(s, elem, memo)}
		case schema.BlockList:
			sh.blocks[f.BlockName] = blockSpec{field: f.Name, mode: blockList, shape: defShape(s, elem, memo)}
		case schema.BlockStep:
			for _, m := range elem.Fields {
				sh.blocks[m.Name] = blockSpec{field: f.Name, mode: blockStep, shape: memberShape(s, m, memo)}
			}
		case schema.BlockLabelled:
			sh.blocks[f.BlockName] = labelledSpec(s, f.Name, elem, memo)
		}
	}
	return sh
}

// labelledSpec is the block of a labelled list field named field whose
// element is elem.
func labelledSpec(s *schema.Schema, field string, elem *schema.Def, memo map[*schema.Def]*shape) blockSpec {
	bs := blockSpec{field: field, mode: blockLabelled, labels: map[string]*shape{}, plain: map[string]bool{}}
	for _, m := range elem.Fields {
		switch {
		case m.Modifier:
			bs.modifiers = append(bs.modifiers, m.Name)
		default:
			bs.labels[m.Name] = memberShape(s, m, memo)
			bs.plain[m.Name] = m.Block == schema.BlockNone && m.Inline == nil
		}
	}
	return bs
}

// memberShape is the shape of a step's or labelled block's body: its
// type's when the member is marked @cc(block), none otherwise (a scorer
// "function" names a function; it does not declare one).
func memberShape(s *schema.Schema, m *schema.Field, memo map[*schema.Def]*shape) *shape {
	if m.Block == schema.BlockNone {
		return &shape{}
	}
	return defShape(s, s.Elem(m), memo)
}

// bodyExprs lists every expression under a body, nested blocks included.
func bodyExprs(b *hclsyntax.Body, out []hclsyntax.Expression) []hclsyntax.Expression {
	for _, a := range sortedAttrs(b.Attributes) {
		out = append(out, a.Expr)
	}
	for _, nb := range b.Blocks {
		out = bodyExprs(nb.Body, out)
	}
	return out
}

// evalBody evaluates a resource body (or a nested block's) into an object's
// attributes, recording the source range of everything by path.
func (l *hclLoader) evalBody(body *hclsyntax.Body, sh *shape, path []string, ectx *hcl.EvalContext) map[string]cty.Value {
	// attrAt stays on the stack: evalAttrs and evalSingle fill it.
	obj, attrAt := map[string]cty.Value{}, map[string]hcl.Range{}
	l.evalAttrs(body, path, ectx, obj, attrAt)
	lists := map[string][]cty.Value{}
	var listOrder []string
	for _, sb := range l.expandDynamic(body.Blocks, ectx) {
		b, ectx := sb.block, sb.ectx
		bs, ok := sh.blocks[b.Type]
		if !ok {
			l.unknownBlock(b, sh, path)
			continue
		}
		if r, dup := attrAt[bs.field]; dup && bs.mode == blockSingle {
			d := l.errorf(b.TypeRange, "%s is set both as an attribute and as a block", bs.field)
			d.Related = []diag.Range{*toRange(r)}
			continue
		}
		if bs.mode == blockSingle {
			l.evalSingle(b, bs, path, ectx, obj, attrAt)
			continue
		}
		if r, dup := attrAt[bs.field]; dup {
			d := l.errorf(b.TypeRange, "%s is set both as an attribute and by %s blocks", bs.field, b.Type)
			d.Related = []diag.Range{*toRange(r)}
			continue
		}
		if _, seen := lists[bs.field]; !seen {
			listOrder = append(listOrder, bs.field)
		}
		p := appendPath(path, bs.field, strconv.Itoa(len(lists[bs.field])))
		l.ranges.set(p, b.DefRange(), b.TypeRange)
		if elem, ok := l.evalElem(b, bs, p, ectx); ok {
			lists[bs.field] = append(lists[bs.field], elem)
		}
	}
	for _, f := range listOrder {
		obj[f] = cty.TupleVal(lists[f])
	}
	return obj
}

// evalAttrs evaluates a body's attributes into obj, and where each one's
// name is written into attrAt.
func (l *hclLoader) evalAttrs(body *hclsyntax.Body, path []string, ectx *hcl.EvalContext, obj map[string]cty.Value, attrAt map[string]hcl.Range) {
	for _, a := range sortedAttrs(body.Attributes) {
		l.dupKeys(a.Expr, ectx)
		v, hd := a.Expr.Value(ectx)
		l.add(hd)
		if hd.HasErrors() {
			continue
		}
		v, ok := l.knownAttr(a.Expr, v, ectx)
		if !ok {
			l.errorf(a.Expr.Range(), "%s: value is not known", a.Name)
			continue
		}
		if v.IsNull() {
			continue // null means unset, as in Terraform
		}
		p := appendPath(path, a.Name)
		l.ranges.set(p, a.Expr.Range(), a.NameRange)
		l.recordExpr(p, a.Expr)
		obj[a.Name] = v
		attrAt[a.Name] = a.NameRange
	}
}

// evalSingle evaluates a block that is one object field (at most one).
func (l *hclLoader) evalSingle(b *hclsyntax.Block, bs blockSpec, path []string, ectx *hcl.EvalContext, obj map[string]cty.Value, attrAt map[string]hcl.Range) {
	if len(b.Labels) > 0 {
		l.errorf(b.LabelRanges[0], "a %s block has no labels", b.Type)
		return
	}
	if _, dup := obj[bs.field]; dup {
		l.errorf(b.TypeRange, "more than one %s block; there can be only one", b.Type)
		return
	}
	p := appendPath(path, bs.field)
	l.ranges.set(p, b.DefRange(), b.TypeRange)
	obj[bs.field] = cty.ObjectVal(l.evalBody(b.Body, bs.shape, p, ectx))
	attrAt[bs.field] = b.TypeRange
}

// evalElem evaluates a block that is one element of a list field, at p: a
// plain element, a step ({type: body}) or a labelled one ({label: body});
// false when the block is written wrong (reported).
func (l *hclLoader) evalElem(b *hclsyntax.Block, bs blockSpec, p []string, ectx *hcl.EvalContext) (cty.Value, bool) {
	switch bs.mode {
	case blockList:
		if len(b.Labels) > 0 {
			l.errorf(b.LabelRanges[0], "a %s block has no labels", b.Type)
			return cty.NilVal, false
		}
		return cty.ObjectVal(l.evalBody(b.Body, bs.shape, p, ectx)), true
	case blockStep:
		if len(b.Labels) > 0 {
			l.errorf(b.LabelRanges[0], "a %s step has no labels", b.Type)
			return cty.NilVal, false
		}
		sp := appendPath(p, b.Type)
		l.ranges.set(sp, b.DefRange(), b.TypeRange)
		return cty.ObjectVal(map[string]cty.Value{b.Type: cty.ObjectVal(l.evalBody(b.Body, bs.shape, sp, ectx))}), true
	}
	if len(b.Labels) != 1 {
		l.errorf(b.DefRange(), "a %s block has one label, its kind: %s \"exact_match\" { ... }", b.Type, b.Type)
		return cty.NilVal, false
	}
	label := b.Labels[0]
	lsh, ok := bs.labels[label]
	if !ok {
		d := l.errorf(b.LabelRanges[0], "unknown %s kind %q", b.Type, label)
		if s := diag.Suggest(label, keys(bs.labels)); s != "" {
			d.Summary += fmt.Sprintf("; did you mean %q?", s)
		} else {
			d.Detail = "one of: " + joinSorted(keys(bs.labels))
		}
		return cty.NilVal, false
	}
	if bs.plain[label] {
		return l.evalPlainElem(b, label, lsh, p, ectx)
	}
	sp := appendPath(p, label)
	l.ranges.set(sp, b.DefRange(), b.LabelRanges[0])
	body := l.evalBody(b.Body, lsh, sp, ectx)
	elem := map[string]cty.Value{}
	for _, m := range bs.modifiers {
		if v, ok := body[m]; ok {
			delete(body, m)
			elem[m] = v
			l.ranges.move(appendPath(sp, m), appendPath(p, m))
		}
	}
	elem[label] = cty.ObjectVal(body)
	return cty.ObjectVal(elem), true
}

// evalPlainElem evaluates a labelled block whose member is a value, not a
// block (issue 11: scorer "function" { function = function.x }): the body
// is the element, and must set the member.
func (l *hclLoader) evalPlainElem(b *hclsyntax.Block, label string, lsh *shape, p []string, ectx *hcl.EvalContext) (cty.Value, bool) {
	body := l.evalBody(b.Body, lsh, p, ectx)
	if _, ok := body[label]; !ok {
		if _, written := b.Body.Attributes[label]; !written {
			l.errorf(b.DefRange(), "a %s %q block sets %s: %s %q { %s = ... }", b.Type, label, label, b.Type, label, label)
		}
		return cty.NilVal, false
	}
	return cty.ObjectVal(body), true
}

func (l *hclLoader) unknownBlock(b *hclsyntax.Block, sh *shape, path []string) {
	cands := keys(sh.blocks)
	d := l.errorf(b.TypeRange, "unknown block type %q", b.Type)
	if s := suggestBlock(b.Type, cands, path); s != "" {
		d.Summary += fmt.Sprintf("; did you mean %q?", s)
		return
	}
	for _, f := range compiledSchema().fieldsAt(path) {
		if f == b.Type {
			d.Summary = fmt.Sprintf("%s is an attribute, not a block: write %s = ...", b.Type, b.Type)
			return
		}
	}
	if len(cands) > 0 {
		d.Detail = "blocks allowed here: " + joinSorted(cands)
	}
}

// recordExpr records ranges inside object and tuple constructors, so an
// error about env.KEY or exposed_ports[1] points at that item.
func (l *hclLoader) recordExpr(path []string, e hclsyntax.Expression) {
	switch e := e.(type) {
	case *hclsyntax.ObjectConsExpr:
		for _, item := range e.Items {
			kv, hd := item.KeyExpr.Value(nil)
			if hd.HasErrors() || kv.Type() != cty.String || kv.IsNull() {
				continue
			}
			p := appendPath(path, kv.AsString())
			l.ranges.set(p, item.ValueExpr.Range(), item.KeyExpr.Range())
			l.recordExpr(p, item.ValueExpr)
		}
	case *hclsyntax.TupleConsExpr:
		for i, x := range e.Exprs {
			p := appendPath(path, strconv.Itoa(i))
			l.ranges.set(p, x.Range(), x.Range())
			l.recordExpr(p, x)
		}
	case *hclsyntax.ParenthesesExpr:
		l.recordExpr(path, e.Expression)
	}
}

func appendPath(path []string, elems ...string) []string {
	out := make([]string, 0, len(path)+len(elems))
	return append(append(out, path...), elems...)
}

func joinSorted(ss []string) string {
	sort.Strings(ss)
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// ctyToGo converts an evaluated value to plain data (map[string]any, []any,
// string, json.Number, bool), dropping nulls (unset) and recording the
// paths of values marked sensitive.
func ctyToGo(v cty.Value, path []string, sensitive *[][]string) any {
	return ctyToGoAt(v, ownPath(path), sensitive)
}

// ctyToGoAt is ctyToGo on a path of its own (ownPath), copied where it
// is recorded.
func ctyToGoAt(v cty.Value, path []string, sensitive *[][]string) any {
	if v.IsMarked() {
		var marks cty.ValueMarks
		v, marks = v.Unmark()
		if _, ok := marks[sensitiveMark]; ok && sensitive != nil {
			*sensitive = append(*sensitive, append([]string(nil), path...))
		}
	}
	if v.IsNull() || !v.IsKnown() {
		return nil
	}
	t := v.Type()
	switch {
	case t == cty.String:
		return v.AsString()
	case t == cty.Bool:
		return v.True()
	case t == cty.Number:
		f := v.AsBigFloat()
		if f.IsInt() {
			if i, acc := f.Int64(); acc == big.Exact {
				return i
			}
		}
		x, _ := f.Float64()
		return x
	case t.IsObjectType() || t.IsMapType():
		out := map[string]any{}
		for it := v.ElementIterator(); it.Next(); {
			k, e := it.Element()
			k, _ = k.Unmark()
			name := k.AsString()
			if g := ctyToGoAt(e, append(path, name), sensitive); g != nil {
				out[name] = g
			}
		}
		return out
	case t.IsTupleType() || t.IsListType() || t.IsSetType():
		out := []any{}
		i := 0
		for it := v.ElementIterator(); it.Next(); i++ {
			_, e := it.Element()
			g := ctyToGoAt(e, append(path, strconv.Itoa(i)), sensitive)
			if g == nil {
				g = json.RawMessage("null")
			}
			out = append(out, g)
		}
		return out
	}
	return nil
}
