package compiler

import (
	"fmt"
	"slices"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A resource block's syntax is most of what an HCL compile holds while it
// parses (issue 13: memory per resource): the whole file's tree at once,
// several times the size of its source. So the parse keeps only what
// the loader needs of a plain resource block before it evaluates it:
// its header (type, label, ranges) and the references its body makes, in
// the order resourceDeps walks them. The body is parsed again from the
// source, which the compile keeps for error snippets, just before the
// block is evaluated, and dropped once it is (release). A block is plain
// when nothing reads or rewrites its body before evaluation: a resource
// kind's block with one label, no for_each or count, no lifecycle block
// (whose ignore_changes collect rewrites) and no dynamic block anywhere
// (whose iterators scope its references).

// deferredBody is what is kept of a plain resource block's body: its
// references, and the source of its file to parse it again from.
type deferredBody struct {
	refs []hcl.Traversal
	src  []byte
}

// deferrals records the bodies the parse's workers let go, by block.
type deferrals struct {
	mu     sync.Mutex
	blocks map[*hclsyntax.Block]*deferredBody
}

// deferBodies lets go the bodies of body's plain resource blocks, noting
// their references and src, their file's source. It runs in the parse's
// workers before the budget's instrumentation, which would refer to the
// same references, so that a body let go is instrumented once, when it
// is parsed again.
func (d *deferrals) deferBodies(body *hclsyntax.Body, src []byte) {
	if keepEverything {
		return
	}
	var out map[*hclsyntax.Block]*deferredBody
	var blocks hclsyntax.Blocks
	for i, b := range body.Blocks {
		if !plainBlock(b) {
			continue
		}
		if out == nil {
			out = map[*hclsyntax.Block]*deferredBody{}
			blocks = slices.Clone(body.Blocks)
		}
		db := &deferredBody{src: src, refs: exprRefs(bodyExprs(b.Body, nil), nil)}
		for i, tr := range db.refs {
			db.refs[i] = slices.Clone(tr) // its own steps, not a slab's
		}
		if deferHook != nil {
			deferHook(b.Body)
		}
		nb := ownHeader(b)
		out[nb], blocks[i] = db, nb
	}
	if out == nil {
		return
	}
	body.Blocks = blocks
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.blocks == nil {
		d.blocks = make(map[*hclsyntax.Block]*deferredBody, len(out))
	}
	for b, db := range out {
		d.blocks[b] = db
	}
}

// deferHook, when set (by tests), sees each body deferBodies lets go.
var deferHook func(*hclsyntax.Body)

// ownHeader is a new block with b's header and an empty body. What the
// loader keeps of a deferred block must share no memory with the parse's
// nodes (its slices, or the chunks fastParseConfig allocates nodes in),
// or it would keep them all.
func ownHeader(b *hclsyntax.Block) *hclsyntax.Block {
	return &hclsyntax.Block{
		Type: b.Type, Labels: slices.Clone(b.Labels), TypeRange: b.TypeRange, LabelRanges: slices.Clone(b.LabelRanges),
		OpenBraceRange: b.OpenBraceRange, CloseBraceRange: b.CloseBraceRange,
		Body: &hclsyntax.Body{Attributes: hclsyntax.Attributes{}, SrcRange: b.Body.SrcRange, EndRange: b.Body.EndRange},
	}
}

// take is the deferred body of b, forgotten here; nil when b kept its.
func (d *deferrals) take(b *hclsyntax.Block) *deferredBody {
	d.mu.Lock()
	defer d.mu.Unlock()
	db := d.blocks[b]
	delete(d.blocks, b)
	return db
}

// plainBlock tells a resource block whose body nothing needs before it
// is evaluated.
func plainBlock(b *hclsyntax.Block) bool {
	if _, ok := hclKinds[b.Type]; !ok || len(b.Labels) != 1 {
		return false
	}
	if b.Body.Attributes["for_each"] != nil || b.Body.Attributes["count"] != nil {
		return false
	}
	for _, nb := range b.Body.Blocks {
		if nb.Type == "lifecycle" || hasDynamic(nb) {
			return false
		}
	}
	return true
}

// hasDynamic tells a block that is or holds a dynamic block.
func hasDynamic(b *hclsyntax.Block) bool {
	if b.Type == "dynamic" {
		return true
	}
	return slices.ContainsFunc(b.Body.Blocks, hasDynamic)
}

// deferredDeps is resourceDeps for a block whose body was let go: its
// references checked in the order resourceDeps checks them (a plain
// block has no for_each, count or dynamic iterators in scope).
func (l *hclLoader) deferredDeps(db *deferredBody) []node {
	l.iterScope = map[string]bool{}
	defer func() { l.iterScope = nil }()
	return l.traversalDeps(db.refs)
}

// restoreBody gives r's block its body back, parsed again from the
// source.
func (l *hclLoader) restoreBody(r *hclResource) error {
	body, err := l.parseAgain(r.block, r.deferred)
	if err != nil {
		return err
	}
	blk := *r.block
	blk.Body = body
	r.block, r.deferred = &blk, nil
	l.restored++
	return nil
}

// parseAgain parses the plain block b again from its source,
// instrumented for the budget, and returns its body; an error unless it
// is the block it was.
func (l *hclLoader) parseAgain(b *hclsyntax.Block, db *deferredBody) (*hclsyntax.Body, error) {
	src := db.src
	start, end := b.TypeRange.Start, b.CloseBraceRange.End.Byte
	if start.Byte < 0 || end > len(src) || start.Byte >= end {
		return nil, fmt.Errorf("internal error: the source of %s %q is gone", b.Type, b.Labels[0])
	}
	var again *hclsyntax.Block
	if body := parseChunk(src[start.Byte:end:end], b.TypeRange.Filename, start); body != nil && len(body.Blocks) == 1 && len(body.Attributes) == 0 {
		again = body.Blocks[0]
	}
	if again == nil || again.Type != b.Type || !slices.Equal(again.Labels, b.Labels) || again.TypeRange != b.TypeRange ||
		again.OpenBraceRange != b.OpenBraceRange || again.CloseBraceRange != b.CloseBraceRange {
		return nil, fmt.Errorf("internal error: %s %q does not parse again as it did", b.Type, b.Labels[0])
	}
	l.budget.instrument(again.Body)
	return again.Body, nil
}
