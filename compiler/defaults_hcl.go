package compiler

import (
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// The HCL side of shared defaults (issue 11: shared defaults): defaults {
// sandbox { ... } } and defaults "gpu" { sandbox { ... } } blocks. Each
// kind block is evaluated like a resource body of its kind, in dependency
// order (it may refer to image.app), before the resources of its kind,
// and merged into them by the same Go code as CUE's (defaults.go).

// hclDefault is one kind block of a defaults block.
type hclDefault struct {
	set   string // "" for the project-wide defaults
	kind  schema.Kind
	block *hclsyntax.Block
	// origin is its config path, as CUE writes it: defaults.sandbox or
	// default_sets.gpu.sandbox.
	origin []string
	done   bool
}

// collectDefaults records a defaults block's kind blocks as nodes to
// evaluate.
func (l *hclLoader) collectDefaults(b *hclsyntax.Block) {
	set := ""
	switch len(b.Labels) {
	case 0:
	case 1:
		set = b.Labels[0]
		if d := checkSetName(set, toRange(b.LabelRanges[0])); d != nil {
			l.diags = append(l.diags, d)
			return
		}
		l.shared.addSet(set)
	default:
		l.errorf(b.DefRange(), `a defaults block has no label (project-wide) or one, the set's name: defaults "gpu" { ... }`)
		return
	}
	for _, a := range sortedAttrs(b.Body.Attributes) {
		l.errorf(a.NameRange, "a defaults block holds blocks by kind (sandbox { ... }), not attributes")
	}
	for _, kb := range b.Body.Blocks {
		if d := checkKindName(kb.Type, toRange(kb.TypeRange)); d != nil {
			l.diags = append(l.diags, d)
			continue
		}
		if len(kb.Labels) > 0 {
			l.errorf(kb.LabelRanges[0], "a %s block of defaults has no labels", kb.Type)
			continue
		}
		origin := []string{defaultsField, kb.Type}
		if set != "" {
			origin = []string{defaultSetsField, set, kb.Type}
		}
		n := pathString(origin)
		if prev := l.defaults[n]; prev != nil {
			d := l.errorf(kb.TypeRange, "%s defaults are defined twice", pathString(origin))
			d.Related = []diag.Range{*toRange(prev.block.TypeRange)}
			continue
		}
		if l.defaults == nil {
			l.defaults = map[node]*hclDefault{}
		}
		l.defaults[n] = &hclDefault{set: set, kind: schema.Kind(kb.Type), block: kb, origin: origin}
		l.defaultOrder = append(l.defaultOrder, n)
	}
}

// defaultNodes are the defaults nodes a resource of block type kind waits
// for (every one of its kind: which it takes is known only once it is
// evaluated).
func (l *hclLoader) defaultNodes(kind string) []node {
	var out []node
	for _, n := range l.defaultOrder {
		if string(l.defaults[n].kind) == kind {
			out = append(out, n)
		}
	}
	return out
}

// evalDefault evaluates a defaults kind block into the shared defaults,
// checking its fields.
func (l *hclLoader) evalDefault(d *hclDefault, deps []node) {
	ectx := l.evalContext(deps)
	sh := shapesOf(l.p.schema())[string(d.kind)]
	l.ranges.set(d.origin, d.block.DefRange(), d.block.TypeRange)
	v := cty.ObjectVal(l.evalBody(d.block.Body, sh, d.origin, ectx))
	l.p.noteSensitive(v)
	var sens [][]string
	tree, _ := ctyToGo(v, d.origin, &sens).(map[string]any)
	layer := &defaultLayer{origin: d.origin, tree: tree, sensitive: sens}
	l.diags = append(l.diags, checkLayer(compiledSchemaOf(l.p.schema()), d.kind, layer, l.ranges)...)
	l.shared.add(d.set, d.kind, layer)
	d.done = true
}

// mergeDefaults merges the defaults into the assembled configuration cfg.
func (l *hclLoader) mergeDefaults(cfg map[string]any) {
	ds := applyAllDefaults(l.shared, cfg, withDefaults(l.ranges, l.shared), &l.ranges.sensitive, hclRefOf)
	l.diags = append(l.diags, ds...)
}
