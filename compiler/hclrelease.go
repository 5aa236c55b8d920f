package compiler

import (
	"slices"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// What the HCL loader holds while it evaluates is what a compile's memory
// peaks with (issue 13: at most 20 KiB per resource). A resource's syntax
// tree is needed until the resource is evaluated, not after: its value,
// and the ranges recorded from it, are all that is read later. So each is
// dropped once evaluated, and the top level's tree goes as it is read.

// afterEvaluate, when set (by tests), sees each loader once it has
// evaluated.
var afterEvaluate func(*hclLoader)

// afterCollect, when set (by tests), sees each loader once it has parsed
// and collected its top level, before it evaluates.
var afterCollect func(*hclLoader)

// afterFastCheck, set by tests, sees the loader once the collector has
// checked what it was given.
var afterFastCheck func(*hclLoader)

// keepEverything, set by tests, keeps every body through the parse and
// every value through the evaluation, to compare with.
var keepEverything bool

// release drops the body of the resource n, evaluated: the block keeps
// its ranges (for a later "defined twice" and the like), not its content.
func (l *hclLoader) release(n node) {
	r := l.resources[n]
	if r == nil || !r.done || r.block == nil {
		return
	}
	b := *r.block
	b.Body = nil
	r.block = &b
}

// reserveRanges makes room in the locator for the ranges a file of size
// bytes records: about one per 16 bytes in a generated project (an
// attribute, a block or a constructor item each); only large files are
// worth it.
func (l *hclLoader) reserveRanges(size int) {
	if size >= 64<<10 {
		l.ranges.reserve(len(l.ranges.index) + size/16)
	}
}

// A resource's value is needed as long as something may still refer to
// it: later nodes of the graph, the outputs, the lifecycle blocks and the
// project attribute (evaluated after the graph). Past that, the collector
// has its own copy, so the loader drops it: a sandbox's value, which
// nothing can refer to, goes as soon as it is evaluated. Only the error
// paths read values again (config, for CUE to judge), and mostly those
// the fast check did not accept: the collector keeps the values it
// refuses (collector.refuse), and only a value the collector has is let
// go (past an evaluation error, evalNode does not send a resource whose
// own evaluation failed or whose value is not wholly known). A load that
// needs a value neither kept (CUE judges the whole configuration, or the
// fast way stopped) is run again keeping them all (loadHCL), as is one
// that read a dropped value,
// which the counts rule out and evalContext notes all the same (lost).
// Module loaders, and a compile that cross-checks the fast check against
// CUE, keep every value.

// valueUses counts, for each node, the nodes of graph that refer to it.
func valueUses(graph map[node][]node) map[node]int {
	uses := map[node]int{}
	for _, deps := range graph {
		for _, d := range deps {
			uses[d]++
		}
	}
	return uses
}

// pinnedValues are the resources the outputs, the lifecycle blocks and
// the project attribute may refer to, read after the graph is evaluated:
// every root.name of a referable kind and data.kind.name their
// expressions name.
func (l *hclLoader) pinnedValues() map[node]bool {
	var exprs []hclsyntax.Expression
	for _, b := range slices.Concat(l.outputBlocks, l.lifecycleBlocks) {
		exprs = bodyExprs(b.Body, exprs)
	}
	if l.project != nil {
		exprs = append(exprs, l.project.Expr)
	}
	pinned := map[node]bool{}
	for _, e := range exprs {
		for _, tr := range e.Variables() {
			root := tr.RootName()
			name, _, ok := traversalAttr(tr)
			switch {
			case !ok:
			case referable[root]:
				pinned[root+"."+name] = true
			case root == "data" && len(tr) > 2:
				if s, isAttr := tr[2].(hcl.TraverseAttr); isAttr {
					pinned["data."+name+"."+s.Name] = true
				}
			}
		}
	}
	return pinned
}

// valueDropper drops the values of evaluated resources no node left to
// evaluate refers to.
type valueDropper struct {
	l      *hclLoader
	uses   map[node]int
	pinned map[node]bool
}

// newValueDropper is nil when the loader keeps every value.
func (l *hclLoader) newValueDropper(graph map[node][]node) *valueDropper {
	if l.keepValues || l.scope != nil || crossCheck || keepEverything {
		return nil
	}
	return &valueDropper{l: l, uses: valueUses(graph), pinned: l.pinnedValues()}
}

// evaluated counts n's references as made, dropping what they leave
// unused, and n itself when nothing refers to it.
func (v *valueDropper) evaluated(n node, deps []node) {
	if v == nil {
		return
	}
	for _, d := range deps {
		if v.uses[d]--; v.uses[d] == 0 {
			v.drop(d)
		}
	}
	if v.uses[n] == 0 {
		v.drop(n)
	}
}

// drop lets go of the value of the resource n, when it is a resource of
// its own (not repeated, not data) the collector has (sent) and nothing
// later reads.
func (v *valueDropper) drop(n node) {
	r := v.l.resources[n]
	if r == nil || !r.sent || v.pinned[n] || r.repeated() || r.dataKind != "" || r.value == cty.DynamicVal || r.dropped {
		return
	}
	r.value, r.dropped = cty.NilVal, true
	v.l.dropped++
}

// restoreRefused gives back to the resources whose values were dropped
// those CUE is to judge (config with refused), from the collector's
// copies of what the fast check refused; false when one has none (the
// load must run again keeping every value). The collector has waited.
func (l *hclLoader) restoreRefused() bool {
	if l.lost || l.col.failed() {
		return false
	}
	for _, r := range l.resources {
		if !r.dropped {
			continue
		}
		coll := hclKinds[r.kind].Plural() // drop leaves data sources alone
		if !l.refused(coll, r.name) {
			continue
		}
		v, ok := l.col.refusedValue(coll, r.name)
		if !ok {
			return false
		}
		r.value, r.dropped = v, false
		l.dropped--
	}
	return true
}

// valueOf is r's value for an evaluation context; a dropped one is noted
// as lost (the load runs again keeping every value) and unknown meanwhile.
func (l *hclLoader) valueOf(r *hclResource) cty.Value {
	if r.dropped {
		l.lost = true
		return cty.DynamicVal
	}
	return r.value
}
