package compiler

import (
	"encoding/json"
	"errors"
	"fmt"
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

// dnode is one value of the configuration: its declarations, and its
// fields (struct declarations) or elements (a list declaration).
type dnode struct {
	parent *dnode
	sel    dsel
	// conj are the node's declarations, pos where each is written (a
	// field's label, a list element's value), as CUE positions them.
	conj []ast.Expr
	pos  []token.Pos
	// fields are the fields of its struct declarations, by dsel.key.
	fields map[string]*dnode
	names  []string // fields' keys in declaration order
	elems  []*dnode // the elements of its list declaration
	isList bool
}

// path is the node's path from the root.
func (n *dnode) path() []dsel {
	if n.parent == nil {
		return nil
	}
	return append(n.parent.path(), n.sel)
}

// ref is the node's reference, when its one declaration is one.
func (n *dnode) ref() ast.Expr {
	if len(n.conj) != 1 {
		return nil
	}
	switch e := n.conj[0].(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr:
		return e
	}
	return nil
}

func (n *dnode) child(s dsel) *dnode {
	if n.fields == nil {
		n.fields = map[string]*dnode{}
	}
	k := s.key()
	c := n.fields[k]
	if c == nil {
		c = &dnode{parent: n, sel: s}
		n.fields[k] = c
		n.names = append(n.names, k)
	}
	return c
}

// directTree is a configuration read from its syntax.
type directTree struct {
	root *dnode
	// scopes are the nodes of the files and struct literals, for the
	// references written in them.
	scopes map[ast.Node]*dnode
}

// newDirectTree reads inst's files into a tree, or errNotDirect.
func newDirectTree(inst *build.Instance) (*directTree, error) {
	if len(inst.Imports) > 0 || len(inst.Files) > 1 && (inst.PkgName == "" || inst.PkgName == "_") {
		return nil, errNotDirect
	}
	t := &directTree{root: &dnode{}, scopes: map[ast.Node]*dnode{}}
	for _, f := range inst.Files {
		t.scopes[f] = t.root
	}
	for _, f := range inst.Files {
		if err := t.decls(t.root, f.Decls); err != nil {
			return nil, err
		}
	}
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
	if f.Constraint != token.ILLEGAL || n.isList {
		return errNotDirect
	}
	var s dsel
	switch l := f.Label.(type) {
	case *ast.Ident:
		if l.Name == "_" || strings.HasPrefix(strings.TrimPrefix(l.Name, "_"), "#") {
			return errNotDirect
		}
		s = dsel{name: l.Name, hidden: strings.HasPrefix(l.Name, "_")}
	case *ast.BasicLit:
		name, err := directString(l)
		if err != nil {
			return err
		}
		s = dsel{name: name}
	default:
		return errNotDirect
	}
	c := n.child(s)
	c.conj = append(c.conj, f.Value)
	c.pos = append(c.pos, f.Pos())
	return t.value(c, f.Value)
}

// value reads the declaration e of node n.
func (t *directTree) value(n *dnode, e ast.Expr) error {
	switch e := e.(type) {
	case *ast.StructLit:
		t.scopes[e] = n
		return t.decls(n, e.Elts)
	case *ast.ListLit:
		if n.isList || n.fields != nil {
			return errNotDirect
		}
		n.isList = true
		for i, x := range e.Elts {
			c := &dnode{parent: n, sel: dsel{name: strconv.Itoa(i), index: true}, conj: []ast.Expr{x}, pos: []token.Pos{x.Pos()}}
			n.elems = append(n.elems, c)
			if err := t.value(c, x); err != nil {
				return err
			}
		}
		return nil
	case *ast.BasicLit:
		_, err := directLit(e)
		return err
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr:
		return nil // resolved when evaluated
	}
	return errNotDirect
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
	if r := n.ref(); r != nil {
		target, err := e.resolve(r)
		if err != nil {
			return nil, err
		}
		if target.contains(n) {
			return nil, errNotDirect // a value containing itself
		}
		return e.value(target)
	}
	switch {
	case n.isList:
		if len(n.conj) != 1 {
			return nil, errNotDirect
		}
		out := make([]any, len(n.elems))
		for i, c := range n.elems {
			v, err := e.value(c)
			if err != nil {
				return nil, err
			}
			out[i] = v
		}
		return out, nil
	case n.fields != nil || isStructLit(n.conj[0]):
		return e.structValue(n)
	}
	return scalarOf(n)
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

func isStructLit(e ast.Expr) bool { _, ok := e.(*ast.StructLit); return ok }

func (e *directEval) structValue(n *dnode) (any, error) {
	for _, c := range n.conj {
		if !isStructLit(c) {
			return nil, errNotDirect // a struct meeting another kind
		}
	}
	out := make(map[string]any, len(n.names))
	for _, k := range n.names {
		c := n.fields[k]
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

// scalarOf is the value of a node whose declarations are all literals,
// the same value each.
func scalarOf(n *dnode) (any, error) {
	var out any
	for i, c := range n.conj {
		l, ok := c.(*ast.BasicLit)
		if !ok {
			return nil, errNotDirect
		}
		v, err := directLit(l)
		if err != nil {
			return nil, err
		}
		if i > 0 && (v != out || l.Kind != n.conj[0].(*ast.BasicLit).Kind) {
			return nil, errNotDirect // a conflict: CUE words it
		}
		out = v
	}
	return out, nil
}

// resolve finds the node a reference names.
func (e *directEval) resolve(r ast.Expr) (*dnode, error) {
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
			return e.resolveFrom(r, sels)
		}
		if err != nil {
			return nil, err
		}
		sels = append(sels, s)
	}
}

// resolveFrom finds the node of identifier r and then sels (innermost
// first).
func (e *directEval) resolveFrom(r ast.Expr, sels []dsel) (*dnode, error) {
	id, ok := r.(*ast.Ident)
	if !ok || id.Scope == nil || strings.HasPrefix(strings.TrimPrefix(id.Name, "_"), "#") {
		return nil, errNotDirect
	}
	switch id.Node.(type) {
	case nil, *ast.ImportSpec, *ast.LetClause, *ast.Alias, *ast.ForClause:
		return nil, errNotDirect // not a field (refused when read, too)
	}
	scope := e.t.scopes[id.Scope]
	if scope == nil {
		return nil, errNotDirect
	}
	n := scope.fields[identSel(id.Name).key()]
	for i := len(sels) - 1; i >= 0 && n != nil; i-- {
		var err error
		if n, err = e.step(n, sels[i]); err != nil {
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
	for hops := 0; n.ref() != nil; hops++ {
		if hops > maxDirectDepth {
			return nil, errNotDirect
		}
		var err error
		if n, err = e.resolve(n.ref()); err != nil {
			return nil, err
		}
	}
	if s.index {
		i, err := strconv.Atoi(s.name)
		if !n.isList || err != nil || i >= len(n.elems) {
			return nil, nil
		}
		return n.elems[i], nil
	}
	if n.isList {
		return nil, nil
	}
	return n.fields[s.key()], nil
}

// String writes a node's path, for messages.
func (n *dnode) String() string {
	var b strings.Builder
	for i, s := range n.path() {
		if i > 0 {
			b.WriteByte('.')
		}
		fmt.Fprintf(&b, "%s", s.name)
	}
	return b.String()
}
