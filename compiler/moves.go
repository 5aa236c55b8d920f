package compiler

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// Issue 10 (moves, forgetting, adoption): the lifecycle declarations.
//
//	HCL                                       CUE
//	moved { from = sandbox.dev  to = ... }    moved: [{from: "sandbox.dev", to: "..."}]
//	removed { from = volume.cache }           removed: ["volume.cache"]
//	import { to = volume.cache  id = "x" }    imports: [{to: "volume.cache", id: "x"}]
//
// Both languages give the configuration's Moved, Removed and Imports
// (schema.Config), which the builder checks and compiles into the Desired
// state's Moves (chains resolved), Removed and Imports.

// lifecycleFields are the configuration's top-level lifecycle fields.
var lifecycleFields = map[string]bool{"moved": true, "removed": true, "imports": true}

// hclLifecycle is what the HCL lifecycle blocks declare, in source order.
type hclLifecycle struct {
	moved   []schema.Move
	removed []string
	imports []schema.Import
}

// lifecycleBlock checks and reads one moved, removed or import block,
// noting where each value is written.
func (l *hclLoader) lifecycleBlock(b *hclsyntax.Block) {
	if len(b.Labels) != 0 {
		l.errorf(b.LabelRanges[0], "a %s block has no labels", b.Type)
		return
	}
	want := map[string][]string{"moved": {"from", "to"}, "removed": {"from"}, "import": {"to", "id"}}[b.Type]
	for _, nb := range b.Body.Blocks {
		l.errorf(nb.DefRange(), "a %s block holds only attributes (%s), not %s blocks", b.Type, joinQuoted(want), nb.Type)
	}
	attrs := map[string]*hclsyntax.Attribute{}
	for _, a := range sortedAttrs(b.Body.Attributes) {
		if !contains(want, a.Name) {
			d := l.errorf(a.NameRange, "unknown attribute %q in a %s block", a.Name, b.Type)
			if s := diag.Suggest(a.Name, want); s != "" {
				d.Summary += fmt.Sprintf("; did you mean %q?", s)
			} else {
				d.Detail = "allowed here: " + joinQuoted(want)
			}
			continue
		}
		attrs[a.Name] = a
	}
	for _, n := range want {
		if attrs[n] == nil {
			l.errorf(b.DefRange(), "missing required attribute %q in a %s block", n, b.Type)
			return
		}
	}
	lc := &l.lifecycle
	switch b.Type {
	case "moved":
		i := strconv.Itoa(len(lc.moved))
		from, ok1 := l.addressOf(attrs["from"], []string{"moved", i, "from"})
		to, ok2 := l.addressOf(attrs["to"], []string{"moved", i, "to"})
		if ok1 && ok2 {
			l.ranges.set([]string{"moved", i}, b.DefRange(), b.TypeRange)
			lc.moved = append(lc.moved, schema.Move{From: from, To: to})
		}
	case "removed":
		i := strconv.Itoa(len(lc.removed))
		if from, ok := l.addressOf(attrs["from"], []string{"removed", i}); ok {
			lc.removed = append(lc.removed, from)
		}
	case "import":
		i := strconv.Itoa(len(lc.imports))
		to, ok1 := l.addressOf(attrs["to"], []string{"imports", i, "to"})
		id, ok2 := l.importID(attrs["id"], []string{"imports", i, "id"})
		if ok1 && ok2 {
			l.ranges.set([]string{"imports", i}, b.DefRange(), b.TypeRange)
			lc.imports = append(lc.imports, schema.Import{To: to, ID: id})
		}
	}
}

// addressOf reads an attribute that names a resource by reference, as
// Terraform's moved blocks do: sandbox.dev, never a string.
func (l *hclLoader) addressOf(a *hclsyntax.Attribute, path []string) (string, bool) {
	tr, hd := hcl.AbsTraversalForExpr(a.Expr)
	if !hd.HasErrors() && tr.RootName() == "module" {
		return l.moduleAddressOf(a, tr, path)
	}
	if hd.HasErrors() || len(tr) < 2 || len(tr) > 3 {
		l.errorf(a.Expr.Range(), "%s must name a resource as KIND.NAME (sandbox.dev), without quotes", a.Name)
		return "", false
	}
	root, attr := tr.RootName(), ""
	if s, ok := tr[1].(hcl.TraverseAttr); ok {
		attr = s.Name
	}
	kind, known := hclKinds[root]
	switch {
	case !known || attr == "":
		d := l.errorf(a.Expr.Range(), "%s must name a resource as KIND.NAME (sandbox.dev)", a.Name)
		if s := diag.Suggest(root, keys(hclKinds)); s != "" && !known {
			d.Summary += fmt.Sprintf("; did you mean %q?", s)
		}
		return "", false
	case kind == schema.KindImage:
		l.errorf(a.Expr.Range(), "an image is a value, addressed by its content: it needs no moved, removed or import")
		return "", false
	case !schema.ValidName(attr):
		l.errorf(a.Expr.Range(), "%q is not a valid name: a lowercase DNS label", attr)
		return "", false
	}
	member, ok := lifecycleMember(kind, attr, tr)
	if !ok {
		l.errorf(a.Expr.Range(), "%s must name an instance as KIND.NAME[\"key\"] or KIND.NAME[0], with a key of the instance key form", a.Name)
		return "", false
	}
	l.ranges.set(path, a.Expr.Range(), a.NameRange)
	return schema.Address(kind, member), true
}

// importID evaluates an import's id: a string, possibly from variables.
func (l *hclLoader) importID(a *hclsyntax.Attribute, path []string) (string, bool) {
	v, hd := a.Expr.Value(l.evalContext(l.deps([]hclsyntax.Expression{a.Expr})))
	l.add(hd)
	if hd.HasErrors() {
		return "", false
	}
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.String {
		l.errorf(a.Expr.Range(), "id must be a string: the unowned resource's name")
		return "", false
	}
	if v.IsMarked() {
		l.errorf(a.Expr.Range(), "id must not come from a sensitive value")
		return "", false
	}
	id := v.AsString()
	if !schema.ValidUnownedID(id) {
		l.errorf(a.Expr.Range(), "id %q is not a valid name: a lowercase DNS label (or a forgotten instance's name, worker[\"a\"])", id)
		return "", false
	}
	l.ranges.set(path, a.Expr.Range(), a.NameRange)
	return id, true
}

// configValues are the lifecycle declarations as plain data, for CUE to
// judge with the rest of the configuration.
func (lc *hclLifecycle) configValues(cfg map[string]any) {
	if len(lc.moved) > 0 {
		var ms []any
		for _, m := range lc.moved {
			ms = append(ms, map[string]any{"from": m.From, "to": m.To})
		}
		cfg["moved"] = ms
	}
	if len(lc.removed) > 0 {
		var rs []any
		for _, r := range lc.removed {
			rs = append(rs, r)
		}
		cfg["removed"] = rs
	}
	if len(lc.imports) > 0 {
		var is []any
		for _, i := range lc.imports {
			is = append(is, map[string]any{"to": i.To, "id": i.ID})
		}
		cfg["imports"] = is
	}
}

// setOn puts the lifecycle declarations into a decoded configuration.
func (lc *hclLifecycle) setOn(cfg *schema.Config) {
	cfg.Moved, cfg.Removed, cfg.Imports = lc.moved, lc.removed, lc.imports
}

func joinQuoted(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		out += strconv.Quote(s)
	}
	return out
}

// declarations compiles the configuration's moved, removed and import
// declarations into d, refusing, each at its declaration: an address of
// an image or of an unknown kind, a move to another kind or onto itself,
// two moves from one address, moves that make a cycle, a move from an
// address the configuration still declares or to one it does not, a
// removed address it still declares, and two imports to one address.
func (b *builder) declarations(cfg *schema.Config, d *schema.Desired) {
	declared := func(a string) bool { return d.Lookup(a) != nil }
	b.moves(cfg.Moved, d, declared)
	seen := map[string]bool{}
	for i, a := range cfg.Removed {
		path := []string{"removed", strconv.Itoa(i)}
		switch {
		case !b.validAddress(path, a):
		case declared(a):
			b.errorf(path, "removed %s: the configuration still declares %s; remove its block, or the removed", a, a)
		case seen[a]:
			b.errorf(path, "removed %s twice", a)
		default:
			seen[a] = true
			d.Removed = append(d.Removed, schema.Removed{Address: a, Range: b.ld.loc.at(path)})
		}
	}
	sort.Slice(d.Removed, func(i, j int) bool { return d.Removed[i].Address < d.Removed[j].Address })
	imported := map[string]bool{}
	for i, im := range cfg.Imports {
		path := []string{"imports", strconv.Itoa(i)}
		switch {
		case !b.validAddress(append(path, "to"), im.To):
		case !schema.ValidUnownedID(im.ID):
			b.errorf(append(path, "id"), "import id %q is not a valid name: a lowercase DNS label (or a forgotten instance's name, worker[\"a\"])", im.ID)
		case imported[im.To]:
			b.errorf(append(path, "to"), "two imports to %s", im.To)
		case seen[im.To]:
			b.errorf(append(path, "to"), "%s is both imported and removed", im.To)
		default:
			imported[im.To] = true
			d.Imports = append(d.Imports, schema.Imported{To: im.To, ID: im.ID, Range: b.ld.loc.at(path)})
		}
	}
	sort.Slice(d.Imports, func(i, j int) bool { return d.Imports[i].To < d.Imports[j].To })
}

// validAddress refuses, at path, what is not the address of a resource
// of a kind that is not an image.
func (b *builder) validAddress(path []string, a string) bool {
	k, _, ok := cutAddr(a)
	switch {
	case !ok:
		b.errorf(path, "%q is not an address KIND.NAME (sandbox.dev)", a)
	case k == schema.KindImage:
		b.errorf(path, "%s: an image is a value, addressed by its content: it needs no moved, removed or import", a)
	default:
		return true
	}
	return false
}

func cutAddr(a string) (schema.Kind, string, bool) {
	if strings.HasPrefix(a, "module.") {
		// issue 12: modules (module.api.sandbox.web) and their
		// instances (module.api.sandbox.web["a"])
		return schema.ParseAddress(a)
	}
	k := schema.KindOf(a)
	name := ""
	if len(a) > len(k)+1 {
		name = a[len(k)+1:]
	}
	return k, name, k.Valid() && schema.ValidMember(k, name)
}

// moves checks the moves and resolves their chains: each from gets the
// address at the end of its chain.
func (b *builder) moves(ms []schema.Move, d *schema.Desired, declared func(string) bool) {
	next := map[string]string{}
	at := map[string][]string{}
	for i, m := range ms {
		path := []string{"moved", strconv.Itoa(i)}
		switch {
		case !b.validAddress(append(path, "from"), m.From) || !b.validAddress(append(path, "to"), m.To):
		case schema.KindOf(m.From) != schema.KindOf(m.To):
			b.errorf(append(path, "to"), "moved %s to %s: a resource keeps its kind (%s)", m.From, m.To, schema.KindOf(m.From))
		case m.From == m.To:
			b.errorf(append(path, "to"), "moved %s to itself", m.From)
		case next[m.From] != "":
			b.errorf(append(path, "from"), "%s is moved twice: to %s and to %s", m.From, next[m.From], m.To)
		case declared(m.From):
			b.errorf(append(path, "from"), "moved from %s, which the configuration still declares: a moved block names the old address", m.From)
		default:
			next[m.From] = m.To
			at[m.From] = path
		}
	}
	for _, from := range sortedKeys(next) {
		to, steps := from, 0
		for next[to] != "" && steps <= len(next) {
			to, steps = next[to], steps+1
		}
		path := at[from]
		switch {
		case steps > len(next):
			b.errorf(path, "moved %s: the moves make a cycle", from)
		case !declared(to):
			b.errorf(append(path, "to"), "moved %s to %s, which the configuration does not declare", from, to)
		default:
			d.Moves = append(d.Moves, schema.Moved{From: from, To: to, Range: b.ld.loc.at(path)})
		}
	}
}

// decodeLifecycle decodes the CUE lifecycle field name into cfg. Only
// concrete lists of the right shape pass; anything else is left to CUE's
// own check (an error here sends the configuration there).
func decodeLifecycle(cfg *schema.Config, name string, v cue.Value) error {
	var err error
	switch name {
	case "moved":
		err = v.Decode(&cfg.Moved)
	case "removed":
		err = v.Decode(&cfg.Removed)
	case "imports":
		err = v.Decode(&cfg.Imports)
	}
	if err != nil {
		return err
	}
	// What #Address and #Name admit, so that the fast way accepts only
	// what CUE does.
	var addrs []string
	for _, m := range cfg.Moved {
		addrs = append(addrs, m.From, m.To)
	}
	addrs = append(addrs, cfg.Removed...)
	for _, i := range cfg.Imports {
		if !schema.ValidUnownedID(i.ID) {
			return fmt.Errorf("imports: id %q is not a name", i.ID)
		}
		addrs = append(addrs, i.To)
	}
	for _, a := range addrs {
		if k, _, ok := cutAddr(a); !ok || k == schema.KindImage {
			return fmt.Errorf("%s: %q is not an address", name, a)
		}
	}
	return nil
}
