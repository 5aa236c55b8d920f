package compiler

import (
	"slices"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"
)

// The gate of the CUE fast path (issue 16 item 3).
//
// CUE's meaning of a configuration U is #Config & U: U's expressions are
// evaluated in the unified value. The fast path evaluates U alone,
// exports it (E) and checks E against the compiled schema, which fills
// the schema's defaults. The two agree when U's value does not depend on
// the schema, that is when at every path #Config & U equals #Config & E.
// They differ only through what CUE does when values meet; the gate lets
// the fast path run only when the user's files (every file of the
// instance and of the non-standard packages it imports) contain none of
// these, and sends the configuration to CUE's unification otherwise:
//
//   - close(), and definitions (#x, _#x) but where the next paragraph
//     lets them: a closed struct refuses the fields the schema adds
//     (timeout, a default, into a closed #MyFn);
//   - "...": it opens or constrains a struct or list the schema meets,
//     but for a plain "..." in a struct outside the configuration (a
//     definition's or a hidden field's), which only opens it;
//   - disjunctions, with or without a default marker (*3 | int): CUE
//     combines defaults with the schema's (*0 | int) and may be left with
//     no default, or pick another alternative than U alone;
//   - optional (a?:) and required (a!:) fields: alone they are not
//     output, while with the schema's regular field of that name their
//     value is;
//   - pattern constraints ([string]: x), dynamic labels ((x): y), and
//     aliases: a pattern applies to the fields the schema adds, and the
//     others hide which path a value is at; an interpolated label
//     ("cache-\(r)") only where every name has one schema type (a
//     collection, env), from plain parts;
//   - comprehensions whose clauses are not plain by the rules that hold
//     outside the configuration (a for over the configuration's structs
//     sees the fields the schema adds), calls (len, and, or, every
//     standard library function and validator: struct.MaxFields counts
//     the fields the schema adds), and _|_: they can see whether a field
//     exists or how many there are, which the schema's defaults change.
//     A comprehension over a hidden list, a let or a literal, or on a
//     scalar the user wrote, yields the same fields alone and with the
//     schema (cueGate.comprehension);
//   - references into the configuration, except (a) to a value whose
//     schema type is a scalar or a list of scalars (the schema leaves a
//     concrete scalar as it is, or rejects it, which the fast check sees
//     where the scalar is written) and (b) to a whole resource (images.x)
//     at a position whose schema type is that resource's definition (or a
//     disjunction with it): there the schema adds to the copy exactly
//     what it adds to the resource (#Image & #Image is #Image). Any other
//     reference may copy a struct the schema fills into a place whose
//     type differs (annotations: functions.f.scaling).
//
// References to hidden fields, lets and imported packages are fine: the
// schema does not meet those values, and they are plain by the same rules.
//
// So are definitions declared at a file's top level (#Base: {...}) and
// references to them, their bodies plain by the rules outside the
// configuration. Where one is used (sandboxes: x: #Base & {...}), U alone
// gives a concrete value as a hidden field would, but a closed one: CUE
// refuses any field the schema adds to it, and the fast check adds the
// schema's defaults without asking. So the verdict says the configuration
// has definitions, and fastCUE then lists, for every resource, the structs
// that refuse a field they do not have (cue.Value.Allows), and the fast
// check gives up where its result has a field such a struct does not
// (collector.closedAdded): CUE judges, and words the error.
// What remains (literals, struct and list literals, embeddings, lets,
// hidden fields, unary and binary operators, interpolations) means the
// same with and without the schema. A reference to a field the schema
// would add (functions.f.timeout, not written) is incomplete in U alone:
// the export fails, and CUE judges.
//
// So the fast path's one meaning is CUE's: #Config & U. HCL's evaluated
// configuration is plain data (no defaults, definitions or references
// left), for which the fast check is always exact.

// cueGate walks the user's syntax for what makes the fast path inexact,
// carrying the schema type of the position it is at.
type cueGate struct {
	fs   *fastSchema
	root *stype
	// files are the scopes of the files being walked: the configuration's
	// own (at #Config) or an imported package's (outside it).
	files map[ast.Node]gateScope
	// scopes are the struct literals enclosing the walk, innermost last.
	scopes []gateScope
	// scalars caches scalar by type.
	scalars map[*stype]bool
	// why is the first construct found, empty when there is none.
	why string
	// comprehensions is set when the walk let a comprehension through,
	// and validate lists the paths of the structs fastCUE lists the fields
	// of that hold one (iteratedPaths).
	comprehensions bool
	validate       [][]string
	// definitions is set when the walk met a definition, declared or
	// referred to.
	definitions bool
	// outside are the top-level hidden fields and definitions of the
	// configuration's files, by name, and disj those of them that hold a
	// disjunction of scalars (cueGate.disjunction); outsideName is the one
	// whose value the walk is in, placing says whether a disjunction met
	// is placed in the configuration (an instantiation, or written
	// there), resolving counts the operands the walk is in, and
	// instantiating guards against a cycle.
	outside map[string][]ast.Expr
	disj    map[string]bool
	inRoot  bool // walking the configuration's own files
	// sealed counts the values the walk is in that a reference elsewhere
	// may copy (a nested hidden field's, a let's, a clause's): a
	// disjunction there is refused even in a disj field.
	sealed        int
	outsideName   string
	resolving     int
	instantiating map[string]bool
}

// gateScope is a file or struct literal: whether it is part of the
// configuration, and its schema type there (nil: unknown).
type gateScope struct {
	node ast.Node
	in   bool
	t    *stype
}

// cueFastPathOK reports whether inst's value means the same alone and
// unified with the schema, and if not, the first construct why not.
func cueFastPathOK(fs *fastSchema, inst *build.Instance) (bool, string) {
	v := cueGateOf(fs, inst)
	return v.plain, v.why
}

// cueGateOf is cueFastPathOK's verdict, which also says whether the
// configuration has comprehensions and which structs judgeCUE validates
// before the fast path (cueGate.iteratedPaths).
func cueGateOf(fs *fastSchema, inst *build.Instance) gateVerdict {
	if fs.err != nil {
		return gateVerdict{why: fs.err.Error()}
	}
	g := &cueGate{fs: fs, root: fs.defs["#Config"], files: map[ast.Node]gateScope{}, scalars: map[*stype]bool{},
		outside: map[string][]ast.Expr{}, disj: map[string]bool{}, instantiating: map[string]bool{}}
	for _, f := range inst.Files {
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.Field); ok {
				if id, ok := fd.Label.(*ast.Ident); ok && strings.HasPrefix(id.Name, "_") || ok && isDefinition(id.Name) {
					g.outside[id.Name] = append(g.outside[id.Name], fd.Value)
				}
			}
		}
	}
	g.disjunctive()
	seen := map[*build.Instance]bool{}
	var walk func(in *build.Instance, config bool)
	walk = func(in *build.Instance, config bool) {
		if seen[in] || g.why != "" {
			return
		}
		seen[in] = true
		g.inRoot = config
		// A file's scope holds the package's top-level fields, of every
		// file: know them all before looking at references.
		for _, f := range in.Files {
			sc := gateScope{node: f}
			if config {
				sc.in, sc.t = true, g.root
			}
			g.files[f] = sc
		}
		for _, f := range in.Files {
			sc := g.files[f]
			g.decls(f.Decls, sc.in, sc.t)
		}
		for _, imp := range in.Imports {
			walk(imp, false)
		}
	}
	walk(inst, true)
	return gateVerdict{plain: g.why == "", why: g.why, comprehensions: g.comprehensions, validate: g.validate, definitions: g.definitions}
}

func (g *cueGate) refuse(n ast.Node, what string) {
	if g.why == "" {
		g.why = what
		if p := n.Pos(); p.IsValid() {
			g.why += " at " + p.String()
		}
	}
}

// decls walks the declarations of a file or struct; in says whether it
// is part of the configuration, t is its schema type (nil: unknown).
func (g *cueGate) decls(ds []ast.Decl, in bool, t *stype) {
	for _, d := range ds {
		if g.why != "" {
			return
		}
		switch d := d.(type) {
		case *ast.Field:
			g.field(d, in, t)
		case *ast.EmbedDecl:
			g.expr(d.Expr, in, t)
		case *ast.LetClause:
			g.sealed++
			g.expr(d.Expr, false, nil)
			g.sealed--
		case *ast.Package, *ast.ImportDecl, *ast.CommentGroup, *ast.Attribute:
		case *ast.Ellipsis:
			// Outside the configuration, or in an outside value walked
			// again where it is placed (instantiate), it only opens.
			if in && len(g.instantiating) == 0 || d.Type != nil {
				g.refuse(d, "...")
			}
		case *ast.Comprehension:
			g.comprehension(d, in, t)
		default:
			g.refuse(d, "an unknown declaration")
		}
	}
}

func (g *cueGate) field(f *ast.Field, in bool, t *stype) {
	if f.Constraint != token.ILLEGAL {
		g.refuse(f, "an optional or required field")
		return
	}
	var name string
	isIdent := false
	switch l := f.Label.(type) {
	case *ast.Ident:
		name, isIdent = l.Name, true
	case *ast.BasicLit:
		s, err := literal.Unquote(l.Value)
		if l.Kind != token.STRING || err != nil {
			g.refuse(f, "a label that is not a name")
			return
		}
		name = s
	case *ast.Interpolation:
		// "cache-\(r)": only where every name has one type (a collection)
		// and the label's parts are plain; the fast check checks the name.
		// Its parts are operands (a disjunction's default is taken).
		g.resolving++
		for _, x := range l.Elts {
			g.expr(x, false, nil)
		}
		g.resolving--
		if !in {
			g.expr(f.Value, false, nil)
			return
		}
		et, ok := g.uniformElem(t)
		if !ok {
			g.refuse(f, "a dynamic label where names differ in type")
			return
		}
		g.expr(f.Value, true, et)
		return
	default:
		g.refuse(f, "a pattern, dynamic or aliased label")
		return
	}
	if isIdent && isDefinition(name) {
		// Only at a file's top level, outside the configuration's
		// resources; its body is walked as a hidden field's.
		if len(g.scopes) > 0 {
			g.refuse(f, "a definition inside a struct")
			return
		}
		g.definitions = true
		g.outsideValue(name, f.Value)
		return
	}
	if isIdent && strings.HasPrefix(name, "_") && in && len(g.scopes) == 0 {
		g.outsideValue(name, f.Value) // a top-level hidden field
		return
	}
	if !in || isIdent && strings.HasPrefix(name, "_") {
		if isIdent && strings.HasPrefix(name, "_") {
			g.sealed++
			defer func() { g.sealed-- }()
		}
		g.expr(f.Value, false, nil)
		return
	}
	g.expr(f.Value, true, g.step(t, name, false))
}

// comprehension walks a comprehension declared in a struct of schema
// type t (in says whether the struct is part of the configuration). Its
// clauses must be plain by the rules that hold outside the configuration
// (a for over a hidden field, a let or a literal list, an if on a scalar):
// then U alone and #Config & U iterate and test the same values, and
// yield the same fields, which the gate walks as the struct's own. A for
// over the configuration's structs is refused by those rules. A clause
// that reads a scalar the user did not write (one the schema's default
// fills) is incomplete in U alone, and the comprehension then yields no
// field there without an error when its struct's fields are listed:
// judgeCUE validates U first, and sends it to CUE when it is not
// complete. A comprehension outside the configuration (a hidden field's,
// a let's, a definition's) may be embedded in any struct of it, a
// collection too: then U is validated whole.
func (g *cueGate) comprehension(c *ast.Comprehension, in bool, t *stype) {
	for _, cl := range c.Clauses {
		g.sealed++
		switch cl := cl.(type) {
		case *ast.ForClause:
			g.expr(cl.Source, false, nil)
		case *ast.IfClause:
			g.expr(cl.Condition, false, nil)
		case *ast.LetClause:
			g.expr(cl.Expr, false, nil)
		default:
			g.refuse(c, "an unknown comprehension clause")
			return
		}
		g.sealed--
	}
	body, ok := c.Value.(*ast.StructLit)
	if !ok {
		g.refuse(c, "a comprehension without a struct")
		return
	}
	g.comprehensions = true
	paths := [][]string{nil} // outside: it may be embedded anywhere
	if in {
		paths = g.iteratedPaths(t)
	}
	for _, p := range paths {
		if !slices.ContainsFunc(g.validate, func(q []string) bool { return slices.Equal(p, q) }) {
			g.validate = append(g.validate, p)
		}
	}
	g.expr(body, in, t)
}

// iteratedPaths are the paths of the structs of schema type t whose fields
// fastCUE lists, rather than exporting them whole: the top level ([]),
// the collections ([volumes]) and the data sources' ([data, volumes]). A
// comprehension incomplete in U alone yields no field there, unnoticed;
// anywhere else the export of the resource that holds it fails.
func (g *cueGate) iteratedPaths(t *stype) [][]string {
	if t == nil {
		return nil // a field the schema does not have: the fast check says so
	}
	t = g.fs.resolve(t)
	root := g.fs.resolve(g.root)
	if t == root {
		return [][]string{nil}
	}
	var out [][]string
	for name, f := range root.fields {
		ft := g.fs.resolve(f.t)
		if ft == t {
			out = append(out, []string{name})
		}
		if name != "data" {
			continue
		}
		for dn, df := range ft.fields {
			if g.fs.resolve(df.t) == t {
				out = append(out, []string{name, dn})
			}
		}
	}
	slices.SortFunc(out, slices.Compare)
	return out
}

// uniformElem is the schema type of every field of a struct of type t,
// when all its names have one (a collection: [#Member]: #Volume).
func (g *cueGate) uniformElem(t *stype) (*stype, bool) {
	if t == nil {
		return nil, false
	}
	t = g.fs.resolve(t)
	if len(t.alts) > 0 || len(t.fields) > 0 || len(t.patterns) != 1 {
		return nil, false
	}
	return t.patterns[0].t, true
}

// expr walks an expression at a position of schema type t.
func (g *cueGate) expr(e ast.Expr, in bool, t *stype) {
	if g.why != "" {
		return
	}
	switch e := e.(type) {
	case *ast.BasicLit:
	case *ast.StructLit:
		g.scopes = append(g.scopes, gateScope{node: e, in: in, t: t})
		g.decls(e.Elts, in, t)
		g.scopes = g.scopes[:len(g.scopes)-1]
	case *ast.ListLit:
		for i, x := range e.Elts {
			if _, ok := x.(*ast.Ellipsis); ok {
				g.refuse(x, "...")
				return
			}
			g.expr(x, in, g.step(t, strconv.Itoa(i), true))
		}
	case *ast.ParenExpr:
		g.expr(e.X, in, t)
	case *ast.Interpolation:
		g.resolving++
		for _, x := range e.Elts {
			g.expr(x, false, nil)
		}
		g.resolving--
	case *ast.UnaryExpr:
		if e.Op == token.MUL {
			g.refuse(e, "a default")
			return
		}
		if e.Op == token.SUB || e.Op == token.NOT || e.Op == token.ADD {
			g.resolving++
			defer func() { g.resolving-- }()
		}
		g.expr(e.X, false, nil)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.OR:
			g.disjunction(e, in, t)
		case token.AND:
			g.expr(e.X, in, t)
			g.expr(e.Y, in, t)
		default:
			g.resolving++
			g.expr(e.X, false, nil)
			g.expr(e.Y, false, nil)
			g.resolving--
		}
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr:
		g.reference(e, in, t)
	case *ast.CallExpr:
		g.refuse(e, "a call")
	case *ast.BottomLit:
		g.refuse(e, "_|_")
	case *ast.Alias:
		g.refuse(e, "an alias")
	default:
		g.refuse(e, "an unknown expression")
	}
}

// universe are the predeclared names a reference may be to without a
// scope: types, which U alone and with the schema read alike.
var universe = map[string]bool{
	"_": true, "string": true, "bytes": true, "bool": true, "int": true, "float": true, "number": true,
	"uint": true, "int8": true, "int16": true, "int32": true, "int64": true, "int128": true,
	"uint8": true, "uint16": true, "uint32": true, "uint64": true, "uint128": true,
	"float32": true, "float64": true, "rune": true, "null": true,
}

// selector is one step of a reference: a field, or a list index.
type selector struct {
	name  string
	index bool
}

// reference checks a reference (x, x.y, x["y"], x[0]) written at a
// position of schema type pos.
func (g *cueGate) reference(e ast.Expr, in bool, pos *stype) {
	var sels []selector // innermost first
	for {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			name, _, err := ast.LabelName(x.Sel)
			if err != nil {
				g.refuse(e, "a computed selector")
				return
			}
			sels = append(sels, selector{name: name})
			e = x.X
			continue
		case *ast.IndexExpr:
			lit, ok := x.Index.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING && lit.Kind != token.INT {
				g.computedIndex(x, in)
				return
			}
			s := lit.Value
			if lit.Kind == token.STRING {
				var err error
				if s, err = literal.Unquote(s); err != nil {
					g.refuse(e, "a computed index")
					return
				}
			}
			sels = append(sels, selector{name: s, index: lit.Kind == token.INT})
			e = x.X
			continue
		}
		break
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		g.refuse(e, "a selection from an expression")
		return
	}
	for _, s := range sels {
		if !s.index && isDefinition(s.name) {
			g.definitions = true // lib.#Base
		}
	}
	if isDefinition(id.Name) && in && pos != nil && g.fs.resolve(pos) == g.fs.resolve(g.root) {
		// Embedded at the top level, it closes #Config's struct to the
		// fields the schema would add there.
		g.refuse(id, "a definition embedded at the configuration's top level")
		return
	}
	if g.disj[id.Name] && g.topLevel(id) && g.resolving == 0 {
		// It carries a disjunction to where it is placed.
		switch {
		case in && len(sels) == 0:
			g.instantiate(id, pos)
		case !in && len(sels) == 0 && g.outsideName != "" && g.disj[g.outsideName] && g.sealed == 0:
			// In another disj field's value: walked again where that
			// one is placed.
		default:
			g.refuse(id, "a disjunction carried by a reference to "+id.Name)
			return
		}
	}
	sc, ok := g.scopeOf(id)
	if !ok || !sc.in || strings.HasPrefix(id.Name, "_") {
		return // outside the configuration, or refused
	}
	target := g.step(sc.t, id.Name, false)
	for i := len(sels) - 1; i >= 0 && target != nil; i-- {
		target = g.step(target, sels[i].name, sels[i].index)
	}
	if target == nil || !g.scalar(target) && !g.sameResource(sc, id, sels, target, in, pos) {
		g.refuse(id, "a reference to a value the schema may fill in: "+id.Name)
	}
}

// scopeOf finds the scope an identifier is defined in; ok is false when
// it is outside every scope (a let, an import, a predeclared type) or
// when the gate refused it.
func (g *cueGate) scopeOf(id *ast.Ident) (gateScope, bool) {
	if isDefinition(id.Name) {
		// Declared at a file's top level (field), outside the
		// configuration.
		if id.Scope == nil {
			g.refuse(id, "an unresolved reference "+id.Name)
		}
		g.definitions = true
		return gateScope{}, false
	}
	switch id.Node.(type) {
	case *ast.ImportSpec, *ast.LetClause:
		return gateScope{}, false
	}
	if _, ok := id.Scope.(*ast.ForClause); ok {
		// A for clause's key or value: of its source, which is plain
		// (comprehension).
		return gateScope{}, false
	}
	if id.Scope == nil {
		if id.Node == nil && universe[id.Name] {
			return gateScope{}, false
		}
		g.refuse(id, "an unresolved reference "+id.Name)
		return gateScope{}, false
	}
	for i := len(g.scopes) - 1; i >= 0; i-- {
		if g.scopes[i].node == id.Scope {
			return g.scopes[i], true
		}
	}
	if sc, ok := g.files[id.Scope]; ok {
		return sc, true
	}
	g.refuse(id, "a reference to a scope not walked")
	return gateScope{}, false
}

// sameResource reports whether a reference is to a whole resource
// (images.x, from the configuration's top level) written at a position
// whose schema type is, or has as an alternative, that resource's
// definition.
func (g *cueGate) sameResource(sc gateScope, id *ast.Ident, sels []selector, target *stype, in bool, pos *stype) bool {
	if sc.t != g.root || len(sels) != 1 || sels[0].index || kindOfCollection(id.Name) == "" || !in || pos == nil {
		return false
	}
	return g.hasAlt(pos, g.fs.resolve(target))
}

func (g *cueGate) hasAlt(t, def *stype) bool {
	t = g.fs.resolve(t)
	if t == def {
		return true
	}
	for _, a := range t.alts {
		if g.hasAlt(a, def) {
			return true
		}
	}
	return false
}

// step is the schema type one field or list element below t, nil when
// the schema has none or, through a disjunction, more than one. A name
// under the one pattern of a collection is not checked here: the fast
// check checks it.
func (g *cueGate) step(t *stype, elem string, index bool) *stype {
	if t == nil {
		return nil
	}
	t = g.fs.resolve(t)
	if len(t.alts) > 0 {
		var out *stype
		for _, a := range t.alts {
			if s := g.step(a, elem, index); s != nil {
				if out != nil {
					return nil
				}
				out = s
			}
		}
		return out
	}
	if index {
		if t.kinds&kList == 0 {
			return nil
		}
		if i := atoi(elem); i < len(t.prefix) {
			return t.prefix[i]
		}
		return t.elem
	}
	if f := t.fields[elem]; f != nil {
		return f.t
	}
	if len(t.patterns) == 1 {
		return t.patterns[0].t
	}
	var out *stype
	for _, p := range t.patterns {
		if _, err := g.fs.check(p.key, elem, nil); err == nil {
			if out != nil {
				return nil
			}
			out = p.t
		}
	}
	return out
}

// scalar reports whether every value of t is a scalar or a list of them.
func (g *cueGate) scalar(t *stype) bool {
	t = g.fs.resolve(t)
	if s, ok := g.scalars[t]; ok {
		return s
	}
	g.scalars[t] = false // a recursive type is not scalar
	s := true
	for _, a := range g.fs.alternatives(t) {
		if a.kinds&kStruct != 0 {
			s = false
			break
		}
		if a.kinds&kList != 0 {
			for _, e := range a.prefix {
				s = s && g.scalar(e)
			}
			if a.elem != nil {
				s = s && g.scalar(a.elem)
			}
		}
	}
	g.scalars[t] = s
	return s
}

// gateVerdict is the gate's answer: plain, or why not; whether it let
// comprehensions through, and the paths judgeCUE validates before the
// fast path (cueGate.iteratedPaths); whether the configuration has
// definitions, whose closed structs fastCUE lists.
type gateVerdict struct {
	plain          bool
	why            string
	comprehensions bool
	validate       [][]string
	definitions    bool
}

// isDefinition reports whether a field name is a definition's (#x, _#x).
func isDefinition(name string) bool {
	return strings.HasPrefix(strings.TrimPrefix(name, "_"), "#")
}

// gatedError is why the gate kept a configuration from the fast path.
type gatedError string

func (e gatedError) Error() string { return "not plain data: " + string(e) }

// Disjunctions of scalars (issue 13). A disjunction whose alternatives
// are literals and predeclared types, one of them perhaps the default
// (*"" | "dev" | "prod", *3 | int), means the same alone and with the
// schema where the schema's type has no default: U alone gives the
// default (or is incomplete, and CUE judges), and #Config & U keeps it
// as the default, since every alternative the schema refuses drops out
// and the fast check refuses the default if the schema does. Where the
// schema's type has a default, CUE combines the two and may be left with
// none, so the gate refuses it there. Such a disjunction is let through
// where it is written in the configuration (at a position whose type is
// known), and in a top-level hidden field or definition of the
// configuration's files (disj), whose every use is then either an
// operand (resolving: an interpolation, an arithmetic or comparison
// operand, an index), where CUE takes the default alone and with the
// schema, or a reference placed in the configuration, where the field's
// value is walked again at that position's type (instantiate). Any other
// use (a selection from it, a hidden field or let that copies it) is
// refused.

// outsideValue walks the value of a top-level hidden field or definition.
func (g *cueGate) outsideValue(name string, v ast.Expr) {
	prev := g.outsideName
	if g.inRoot {
		g.outsideName = name
	} else {
		g.outsideName = ""
	}
	g.expr(v, false, nil)
	g.outsideName = prev
}

// disjunction checks a disjunction at a position of type t.
func (g *cueGate) disjunction(e *ast.BinaryExpr, in bool, t *stype) {
	if !scalarDisjunction(e) {
		g.refuse(e, "a disjunction")
		return
	}
	switch {
	case in && (t == nil || g.hasDefault(t, 0)):
		g.refuse(e, "a disjunction where the schema has a default")
	case in:
	case g.outsideName != "" && g.disj[g.outsideName] && g.resolving == 0 && g.sealed == 0:
		// Walked again where it is placed (instantiate).
	default:
		g.refuse(e, "a disjunction")
	}
}

// holdsDisjunction reports whether an expression holds a disjunction.
func holdsDisjunction(e ast.Expr) bool {
	found := false
	ast.Walk(e, func(n ast.Node) bool {
		if b, ok := n.(*ast.BinaryExpr); ok && b.Op == token.OR {
			found = true
		}
		return !found
	}, nil)
	return found
}

// scalarDisjunction reports whether every alternative of e is a literal or
// a predeclared type, perhaps marked as the default.
func scalarDisjunction(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return scalarDisjunction(e.X)
	case *ast.BinaryExpr:
		return e.Op == token.OR && scalarDisjunction(e.X) && scalarDisjunction(e.Y)
	case *ast.UnaryExpr:
		if e.Op == token.MUL || e.Op == token.SUB {
			_, lit := e.X.(*ast.BasicLit)
			id, isID := e.X.(*ast.Ident)
			return lit || e.Op == token.MUL && isID && id.Node == nil && universe[id.Name]
		}
		return false
	case *ast.BasicLit:
		return true
	case *ast.Ident:
		return e.Scope == nil && e.Node == nil && universe[e.Name]
	}
	return false
}

// hasDefault reports whether the schema's type t, or an alternative of
// it, has a default.
func (g *cueGate) hasDefault(t *stype, depth int) bool {
	t = g.fs.resolve(t)
	if depth > 8 {
		return true
	}
	if len(t.alts) > 0 {
		if t.defIdx >= 0 {
			return true
		}
		for _, a := range t.alts {
			if g.hasDefault(a, depth+1) {
				return true
			}
		}
	}
	return false
}

// topLevel reports whether id refers to a top-level field of the
// configuration's own files.
func (g *cueGate) topLevel(id *ast.Ident) bool {
	sc, ok := g.files[id.Scope]
	return ok && sc.in && len(g.outside[id.Name]) > 0
}

// instantiate walks the value of the top-level field id refers to as
// placed at a position of type pos in the configuration.
func (g *cueGate) instantiate(id *ast.Ident, pos *stype) {
	if g.instantiating[id.Name] {
		g.refuse(id, "a cycle through "+id.Name)
		return
	}
	g.instantiating[id.Name] = true
	prevName, prevScopes := g.outsideName, g.scopes
	g.outsideName, g.scopes = "", nil
	for _, v := range g.outside[id.Name] {
		g.expr(v, true, pos)
	}
	g.outsideName, g.scopes = prevName, prevScopes
	delete(g.instantiating, id.Name)
}

// computedIndex checks x[i] with an index that is not a literal: a
// selection from a value outside the configuration (a hidden field, a
// let, a literal), by an operand the schema does not meet, selects the
// same alone and with the schema.
func (g *cueGate) computedIndex(x *ast.IndexExpr, in bool) {
	g.resolving++
	g.expr(x.Index, false, nil)
	g.resolving--
	base := x.X
	for {
		switch b := base.(type) {
		case *ast.SelectorExpr:
			base = b.X
			continue
		case *ast.IndexExpr:
			base = b.X
			continue
		case *ast.ParenExpr:
			base = b.X
			continue
		}
		break
	}
	switch b := base.(type) {
	case *ast.StructLit, *ast.ListLit:
		if in {
			g.refuse(x, "a computed index into a literal in the configuration")
			return
		}
		g.expr(x.X, false, nil)
	case *ast.Ident:
		if isDefinition(b.Name) {
			g.refuse(x, "a computed index")
			return
		}
		if sc, ok := g.scopeOf(b); ok && sc.in && !strings.HasPrefix(b.Name, "_") {
			g.refuse(x, "a computed index")
			return
		}
		g.expr(x.X, false, nil)
	default:
		g.refuse(x, "a computed index")
	}
}

// disjunctive computes disj: the outside fields that hold a disjunction,
// and those that refer, by name, to one that does (its value may copy
// it), until none is added. A name refers to its field or to one it
// shadows: either way the set only grows, and a disj field's uses are
// the more restricted.
func (g *cueGate) disjunctive() {
	for name, vs := range g.outside {
		for _, v := range vs {
			if holdsDisjunction(v) {
				g.disj[name] = true
			}
		}
	}
	for changed := true; changed; {
		changed = false
		for name, vs := range g.outside {
			for _, v := range vs {
				if !g.disj[name] && g.carries(v) {
					g.disj[name], changed = true, true
				}
			}
		}
	}
}

// carries reports whether e's value may hold a disj field's disjunction:
// a reference to one, but as an operand (where CUE takes the default), is
// in it.
func (g *cueGate) carries(e ast.Node) bool {
	switch e := e.(type) {
	case nil, *ast.BasicLit, *ast.Interpolation, *ast.BottomLit:
		return false
	case *ast.Ident:
		return g.disj[e.Name]
	case *ast.ParenExpr:
		return g.carries(e.X)
	case *ast.SelectorExpr:
		return g.carries(e.X)
	case *ast.IndexExpr:
		return g.carries(e.X)
	case *ast.UnaryExpr:
		return e.Op != token.SUB && e.Op != token.NOT && e.Op != token.ADD && g.carries(e.X)
	case *ast.BinaryExpr:
		if e.Op == token.OR {
			return true
		}
		return e.Op == token.AND && (g.carries(e.X) || g.carries(e.Y))
	case *ast.ListLit:
		return slices.ContainsFunc(e.Elts, func(x ast.Expr) bool { return g.carries(x) })
	case *ast.StructLit:
		return slices.ContainsFunc(e.Elts, func(d ast.Decl) bool { return g.carries(d) })
	case *ast.Field:
		return g.carries(e.Value)
	case *ast.EmbedDecl:
		return g.carries(e.Expr)
	case *ast.LetClause:
		return g.carries(e.Expr)
	case *ast.Comprehension:
		for _, cl := range e.Clauses {
			if f, ok := cl.(*ast.ForClause); ok && g.carries(f.Source) {
				return true
			}
			if l, ok := cl.(*ast.LetClause); ok && g.carries(l.Expr) {
				return true
			}
		}
		return g.carries(e.Value)
	case *ast.Ellipsis, *ast.CommentGroup, *ast.Attribute:
		return false
	}
	return true
}
