package compiler

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// The lifecycle of a resource (lifecycle.cue): HCL writes ignore_changes
// as Terraform does, as traversals (ignore_changes = [tags, env.LOG_LEVEL]),
// which the loader turns into the strings CUE writes before anything is
// evaluated; the paths are then checked against the kind's schema, and the
// builder carries the lifecycle into the Desired state beside the spec.

// lifecycleTraversals rewrites the ignore_changes of a resource block's
// lifecycle blocks from traversals into string literals at the same
// ranges, so that they are neither references nor unknown variables.
func (l *hclLoader) lifecycleTraversals(b *hclsyntax.Block) {
	for _, nb := range b.Body.Blocks {
		if nb.Type != "lifecycle" {
			continue
		}
		if a := nb.Body.Attributes["ignore_changes"]; a != nil {
			a.Expr = l.fieldPaths(a.Expr)
		}
	}
}

// fieldPaths is the list expression e with each traversal element made
// the string of its path; other elements (strings) are left as they are.
func (l *hclLoader) fieldPaths(e hclsyntax.Expression) hclsyntax.Expression {
	tup, ok := e.(*hclsyntax.TupleConsExpr)
	if !ok {
		l.errorf(e.Range(), "ignore_changes is a list of field paths: ignore_changes = [tags, env.LOG_LEVEL]")
		return &hclsyntax.TupleConsExpr{SrcRange: e.Range()}
	}
	out := &hclsyntax.TupleConsExpr{SrcRange: tup.SrcRange, OpenRange: tup.OpenRange}
	for _, x := range tup.Exprs {
		tr, hd := hcl.AbsTraversalForExpr(x)
		if hd.HasErrors() {
			out.Exprs = append(out.Exprs, x) // a string, or wrong: the schema says
			continue
		}
		p, err := traversalPath(tr)
		if err != nil {
			l.errorf(x.Range(), "ignore_changes: %v", err)
			continue
		}
		out.Exprs = append(out.Exprs, &hclsyntax.LiteralValueExpr{Val: cty.StringVal(p), SrcRange: x.Range()})
	}
	return out
}

// traversalPath is a traversal as a field path: env.LOG_LEVEL and
// env["LOG_LEVEL"] are "env.LOG_LEVEL".
func traversalPath(tr hcl.Traversal) (string, error) {
	var segs []string
	for _, t := range tr {
		switch t := t.(type) {
		case hcl.TraverseRoot:
			segs = append(segs, t.Name)
		case hcl.TraverseAttr:
			segs = append(segs, t.Name)
		case hcl.TraverseIndex:
			if t.Key.Type() != cty.String || t.Key.IsNull() {
				return "", fmt.Errorf("%s[...]: a list is ignored whole, not by index", strings.Join(segs, "."))
			}
			segs = append(segs, t.Key.AsString())
		default:
			return "", fmt.Errorf("not a field path")
		}
	}
	return strings.Join(segs, "."), nil
}

// declared is one resource of a configuration that has a lifecycle.
type declared struct {
	kind schema.Kind
	name string
	lc   *schema.Lifecycle
}

// lifecycles lists the resources of cfg that have a lifecycle, by kind
// and name.
func lifecycles(cfg *schema.Config) []declared {
	var out []declared
	cfg.Each(func(k schema.Kind, name string, r any) {
		if l, ok := r.(schema.Lifecycled); ok && l.LifecycleOf() != nil {
			out = append(out, declared{k, name, l.LifecycleOf()})
		}
	})
	return out
}

// checkLifecycles checks every lifecycle of cfg: field paths the kind's
// schema has, create_before_destroy only where the schema allows it, and
// no value from a sensitive variable (a plan shows them all).
func checkLifecycles(cfg *schema.Config, loc locator, s *schema.Schema, sensitive [][]string) diag.Diagnostics {
	var ds diag.Diagnostics
	for _, r := range lifecycles(cfg) {
		path := []string{r.kind.Plural(), r.name, "lifecycle"}
		for i, p := range r.lc.IgnoreChanges {
			if msg := s.FieldPathProblem(r.kind, p); msg != "" {
				ds = append(ds, diag.Errorf(loc.at(appendPath(path, "ignore_changes", strconv.Itoa(i))), "ignore_changes: %s", msg))
			}
		}
		if r.lc.CreateBeforeDestroy && !s.CreateBeforeDestroy(r.kind) {
			var kinds []string
			for _, k := range s.CreateBeforeDestroyKinds() {
				kinds = append(kinds, k.PluralNoun())
			}
			ds = append(ds, diag.Errorf(loc.key(appendPath(path, "create_before_destroy")),
				"create_before_destroy is for %s only: a %s cannot be started again before the old one stops", andList(kinds), r.kind.Noun()))
		}
		for _, sp := range sensitive {
			if len(sp) >= len(path) && pathKey(sp[:len(path)]) == pathKey(path) {
				ds = append(ds, diag.Errorf(loc.at(sp), "lifecycle: a value from a sensitive variable cannot be used here (plans show it)"))
			}
		}
	}
	return ds
}

// lifecycle is the Desired form of the lifecycle of the resource of kind
// k at path, with where it is declared; nil when it says nothing.
func (b *builder) lifecycle(k schema.Kind, name string, path []string) *schema.Lifecycle {
	lc := b.lifecycleOf(k, name)
	out := lc.Normalized()
	if out == nil {
		return nil
	}
	lp := appendPath(path, "lifecycle")
	out.Range = b.ld.loc.key(lp)
	if lc.PreventDestroy {
		out.Range = b.ld.loc.key(appendPath(lp, "prevent_destroy"))
	}
	if r := out.Range; r != nil && !r.IsZero() {
		rel := *r
		if dir := filepath.ToSlash(b.p.dir); dir != "" && dir != "." {
			rel.File = strings.TrimPrefix(rel.File, strings.TrimSuffix(dir, "/")+"/")
		}
		out.Declared = rel.String()
	}
	for i, p := range lc.IgnoreChanges {
		if out.Paths == nil {
			out.Paths = map[string]*diag.Range{}
		}
		if out.Paths[p] == nil {
			out.Paths[p] = b.ld.loc.at(appendPath(lp, "ignore_changes", strconv.Itoa(i)))
		}
	}
	return out
}

// lifecycleOf is the lifecycle cfg declares for the resource of kind k
// named name, or nil: from the index the builder makes once.
func (b *builder) lifecycleOf(k schema.Kind, name string) *schema.Lifecycle {
	b.lcOnce.Do(func() {
		b.lcs = map[string]*schema.Lifecycle{}
		for _, d := range lifecycles(b.cfg) {
			b.lcs[schema.Address(d.kind, d.name)] = d.lc
		}
	})
	return b.lcs[schema.Address(k, name)]
}

// andList joins words as a sentence lists them: "a", "a and b", "a, b and c".
func andList(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " and " + words[len(words)-1]
}
