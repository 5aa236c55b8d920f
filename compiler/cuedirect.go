package compiler

import (
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"
)

// The direct way of the CUE front end (issue 13: CUE compile at most
// cue export). For a configuration that the gate (cuegate.go) finds plain
// and that is written in a small subset of CUE, cc does not ask CUE's
// evaluator for the value: it reads it from the syntax, as CUE would
// evaluate and export it on its own, and hands each resource to the
// collector (collect.go) as the export path does.
//
// The subset, where CUE's evaluation is plain to see: struct literals
// with name or string labels (hidden fields too), list literals, string
// ("..." and multi-line), decimal integer, bool and null literals, a field
// declared several times when every declaration is a struct (their fields
// merge) or every one the same literal, and references (a, a.b, a."b",
// a[0]) to fields declared in it, followed to what they name, a reference
// standing alone as a field's one declaration. Anything else (imports,
// lets, embeddings, operators, interpolations, floats, bytes, a field
// declared both as a reference and otherwise, a reference cycle, a
// reference to something not declared, ...) is not this way's to judge:
// the configuration goes to CUE as before. Tests run every input that
// takes this way through CUE's too and compare (crossCheck).

// errNotDirect is a configuration outside the direct way's subset.
var errNotDirect = errors.New("not in the direct subset")

// dsel is one step of a path in the direct tree: a field (hidden or
// regular) or a list index.
type dsel struct {
	name   string
	hidden bool
	index  bool
}

func (s dsel) key() string {
	if s.hidden {
		return "\x00" + s.name
	}
	return s.name
}

// The kinds of declaration a node has.
const (
	dStruct uint8 = 1 << iota
	dList
	dScalar
	dRef
)

// dnode is one value of the configuration: what its declarations are,
// and its fields (struct declarations) or elements (a list declaration).
// It keeps no syntax, so that the syntax is garbage once read.
type dnode struct {
	parent *dnode
	sel    dsel
	// pos is where its first declaration is written (a field's label, a
	// list element's value), as CUE positions it; ndecl counts them.
	pos   token.Pos
	ndecl int32
	kinds uint8
	// conflict: two scalar declarations differ.
	conflict bool
	lit      any // the scalar declared
	litKind  token.Token
	ref      *dref // the reference declared
	// kids are its fields in declaration order, byKey them by dsel.key
	// when there are many.
	kids  []*dnode
	byKey map[string]*dnode
	elems []*dnode // the elements of its list declaration
}

// dref is a reference: the node of the struct or file it is resolved in
// (its identifier's scope), and its steps from there, the identifier's
// first.
type dref struct {
	scope *dnode
	sels  []dsel
}

// path is the node's path from the root.
func (n *dnode) path() []dsel {
	if n.parent == nil {
		return nil
	}
	return append(n.parent.path(), n.sel)
}

// refOnly is the node's reference, when its one declaration is one.
func (n *dnode) refOnly() *dref {
	if n.ndecl != 1 || n.kinds != dRef {
		return nil
	}
	return n.ref
}

// field is the node's field with key k (dsel.key), or nil.
func (n *dnode) field(k string) *dnode {
	if n.byKey != nil {
		return n.byKey[k]
	}
	for _, c := range n.kids {
		if c.sel.key() == k {
			return c
		}
	}
	return nil
}

// manyFields is when a node's fields get a map.
const manyFields = 8

func (n *dnode) child(s dsel) *dnode {
	k := s.key()
	if c := n.field(k); c != nil {
		return c
	}
	c := &dnode{parent: n, sel: s}
	n.kids = append(n.kids, c)
	switch {
	case n.byKey != nil:
		n.byKey[k] = c
	case len(n.kids) > manyFields:
		n.byKey = make(map[string]*dnode, 2*len(n.kids))
		for _, x := range n.kids {
			n.byKey[x.sel.key()] = x
		}
	}
	return c
}

// directTree is a configuration read from its syntax.
type directTree struct {
	root *dnode
	// scopes are the nodes of the files and struct literals, for the
	// references written in them, while the syntax is read.
	scopes map[ast.Node]*dnode
}

// newDirectTree reads inst's files into a tree, or errNotDirect.
func newDirectTree(inst *build.Instance) (*directTree, error) {
	if len(inst.Imports) > 0 || len(inst.Files) > 1 && (inst.PkgName == "" || inst.PkgName == "_") {
		return nil, errNotDirect
	}
	t := &directTree{root: &dnode{kinds: dStruct}, scopes: map[ast.Node]*dnode{}}
	for _, f := range inst.Files {
		t.scopes[f] = t.root
	}
	for _, f := range inst.Files {
		if err := t.decls(t.root, f.Decls); err != nil {
			return nil, err
		}
	}
	t.scopes = nil
	return t, nil
}

func (t *directTree) decls(n *dnode, ds []ast.Decl) error {
	for _, d := range ds {
		switch d := d.(type) {
		case *ast.Field:
			if err := t.field(n, d); err != nil {
				return err
			}
		case *ast.Package, *ast.CommentGroup, *ast.Attribute:
		default:
			return errNotDirect
		}
	}
	return nil
}

func (t *directTree) field(n *dnode, f *ast.Field) error {
	if f.Constraint != token.ILLEGAL || n.kinds&dList != 0 {
		return errNotDirect
	}
	var s dsel
	switch l := f.Label.(type) {
	case *ast.Ident:
		if l.Name == "_" || strings.HasPrefix(strings.TrimPrefix(l.Name, "_"), "#") {
			return errNotDirect
		}
		s = identSel(l.Name)
	case *ast.BasicLit:
		name, err := directString(l)
		if err != nil {
			return err
		}
		s = dsel{name: name}
	default:
		return errNotDirect
	}
	return t.value(n.child(s), f.Pos(), f.Value)
}

// value reads one declaration e, written at pos, of node n.
func (t *directTree) value(n *dnode, pos token.Pos, e ast.Expr) error {
	if n.ndecl == 0 {
		n.pos = pos
	}
	n.ndecl++
	switch e := e.(type) {
	case *ast.StructLit:
		n.kinds |= dStruct
		t.scopes[e] = n
		return t.decls(n, e.Elts)
	case *ast.ListLit:
		if n.kinds&dList != 0 || len(n.kids) > 0 {
			return errNotDirect
		}
		n.kinds |= dList
		n.elems = make([]*dnode, len(e.Elts))
		for i, x := range e.Elts {
			c := &dnode{parent: n, sel: dsel{name: strconv.Itoa(i), index: true}}
			n.elems[i] = c
			if err := t.value(c, x.Pos(), x); err != nil {
				return err
			}
		}
		return nil
	case *ast.BasicLit:
		v, err := directLit(e)
		if err != nil {
			return err
		}
		if n.kinds&dScalar != 0 && (v != n.lit || e.Kind != n.litKind) {
			n.conflict = true // CUE words it
		}
		n.kinds |= dScalar
		n.lit, n.litKind = v, e.Kind
		return nil
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr:
		r, err := t.reference(e)
		if err != nil {
			return err
		}
		n.kinds |= dRef
		n.ref = r
		return nil
	}
	return errNotDirect
}

// reference reads a reference (x, x.y, x."y", x[0], x["y"]).
func (t *directTree) reference(r ast.Expr) (*dref, error) {
	var sels []dsel // innermost first
	for {
		var s dsel
		var err error
		switch x := r.(type) {
		case *ast.SelectorExpr:
			s, err = selectorOf(x)
			r = x.X
		case *ast.IndexExpr:
			s, err = indexOf(x)
			r = x.X
		default:
			return t.referenceFrom(r, sels)
		}
		if err != nil {
			return nil, err
		}
		sels = append(sels, s)
	}
}

// referenceFrom is the reference of identifier r and then sels
// (innermost first).
func (t *directTree) referenceFrom(r ast.Expr, sels []dsel) (*dref, error) {
	id, ok := r.(*ast.Ident)
	if !ok || id.Scope == nil || strings.HasPrefix(strings.TrimPrefix(id.Name, "_"), "#") {
		return nil, errNotDirect
	}
	switch id.Node.(type) {
	case nil, *ast.ImportSpec, *ast.LetClause, *ast.Alias, *ast.ForClause:
		return nil, errNotDirect // not a field (refused when read, too)
	}
	scope := t.scopes[id.Scope]
	if scope == nil {
		return nil, errNotDirect
	}
	out := &dref{scope: scope, sels: make([]dsel, 0, len(sels)+1)}
	out.sels = append(out.sels, identSel(id.Name))
	for i := len(sels) - 1; i >= 0; i-- {
		out.sels = append(out.sels, sels[i])
	}
	return out, nil
}

// decimal is an integer as CUE exports it unchanged.
var decimal = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

// directLit is a literal's value as the export's JSON holds it.
func directLit(l *ast.BasicLit) (any, error) {
	switch l.Kind {
	case token.STRING:
		return directString(l)
	case token.INT:
		if !decimal.MatchString(l.Value) {
			return nil, errNotDirect
		}
		return json.Number(l.Value), nil
	case token.TRUE:
		return true, nil
	case token.FALSE:
		return false, nil
	case token.NULL:
		return nil, nil
	}
	return nil, errNotDirect
}

// directString is a string literal's value; bytes ('...') are not one.
func directString(l *ast.BasicLit) (string, error) {
	if l.Kind != token.STRING || !strings.HasPrefix(strings.TrimLeft(l.Value, "#"), `"`) {
		return "", errNotDirect
	}
	s, err := literal.Unquote(l.Value)
	if err != nil {
		return "", errNotDirect
	}
	return s, nil
}

// directEval evaluates nodes of a tree; one per goroutine.
type directEval struct {
	t *directTree
	// stack are the nodes being evaluated, to refuse a cycle.
	stack []*dnode
}

// maxDirectDepth bounds the nesting of values and references evaluated.
const maxDirectDepth = 256

// value is n's value as CUE exports it: maps, lists, strings,
// json.Number, bools and nil; hidden fields are checked, not exported.
func (e *directEval) value(n *dnode) (any, error) {
	for _, s := range e.stack {
		if s == n {
			return nil, errNotDirect // a structural or reference cycle
		}
	}
	if len(e.stack) >= maxDirectDepth {
		return nil, errNotDirect
	}
	e.stack = append(e.stack, n)
	defer func() { e.stack = e.stack[:len(e.stack)-1] }()
	switch {
	case n.refOnly() != nil:
		target, err := e.resolve(n.ref)
		if err != nil {
			return nil, err
		}
		if target.contains(n) {
			return nil, errNotDirect // a value containing itself
		}
		return e.value(target)
	case n.kinds == dList && n.ndecl == 1:
		out := make([]any, len(n.elems))
		for i, c := range n.elems {
			v, err := e.value(c)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case n.kinds == dStruct:
		return e.structValue(n)
	case n.kinds == dScalar && !n.conflict:
		return n.lit, nil
	}
	return nil, errNotDirect // kinds that meet: CUE words it
}

// contains reports whether n is m or one of its ancestors.
func (n *dnode) contains(m *dnode) bool {
	for ; m != nil; m = m.parent {
		if m == n {
			return true
		}
	}
	return false
}

func (e *directEval) structValue(n *dnode) (any, error) {
	out := make(map[string]any, len(n.kids))
	for _, c := range n.kids {
		v, err := e.value(c)
		if err != nil {
			return nil, err
		}
		if !c.sel.hidden {
			out[c.sel.name] = v
		}
	}
	return out, nil
}

// resolve finds the node a reference names.
func (e *directEval) resolve(r *dref) (*dnode, error) {
	n := r.scope.field(r.sels[0].key())
	for _, s := range r.sels[1:] {
		if n == nil {
			break
		}
		var err error
		if n, err = e.step(n, s); err != nil {
			return nil, err
		}
	}
	if n == nil {
		return nil, errNotDirect // not declared: CUE says so
	}
	return n, nil
}

// identSel is the step an identifier names.
func identSel(name string) dsel {
	return dsel{name: name, hidden: strings.HasPrefix(name, "_")}
}

// selectorOf is the step of x.sel.
func selectorOf(x *ast.SelectorExpr) (dsel, error) {
	switch l := x.Sel.(type) {
	case *ast.Ident:
		if strings.HasPrefix(strings.TrimPrefix(l.Name, "_"), "#") {
			return dsel{}, errNotDirect
		}
		return identSel(l.Name), nil
	case *ast.BasicLit:
		s, err := directString(l)
		return dsel{name: s}, err
	}
	return dsel{}, errNotDirect
}

// indexOf is the step of x[lit].
func indexOf(x *ast.IndexExpr) (dsel, error) {
	l, ok := x.Index.(*ast.BasicLit)
	if !ok {
		return dsel{}, errNotDirect
	}
	v, err := directLit(l)
	switch {
	case err != nil:
		return dsel{}, err
	case l.Kind == token.INT:
		return dsel{name: string(v.(json.Number)), index: true}, nil
	case l.Kind == token.STRING:
		return dsel{name: v.(string)}, nil
	}
	return dsel{}, errNotDirect
}

// step is the node one selector below n, looking through references.
func (e *directEval) step(n *dnode, s dsel) (*dnode, error) {
	for hops := 0; n.refOnly() != nil; hops++ {
		if hops > maxDirectDepth {
			return nil, errNotDirect
		}
		var err error
		if n, err = e.resolve(n.ref); err != nil {
			return nil, err
		}
	}
	if s.index {
		i, err := strconv.Atoi(s.name)
		if n.kinds&dList == 0 || err != nil || i >= len(n.elems) {
			return nil, nil
		}
		return n.elems[i], nil
	}
	if n.kinds&dList != 0 {
		return nil, nil
	}
	return n.field(s.key()), nil
}
