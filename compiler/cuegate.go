package compiler

import (
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
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
//   - definitions (#x, _#x) and close(): a closed struct refuses the
//     fields the schema adds (timeout, a default, into a closed #MyFn);
//   - "...": it opens or constrains a struct or list the schema meets;
//   - disjunctions, with or without a default marker (*3 | int): CUE
//     combines defaults with the schema's (*0 | int) and may be left with
//     no default, or pick another alternative than U alone;
//   - optional (a?:) and required (a!:) fields: alone they are not
//     output, while with the schema's regular field of that name their
//     value is;
//   - pattern constraints ([string]: x), dynamic and interpolated labels,
//     and aliases: a pattern applies to the fields the schema adds, and
//     the others hide which path a value is at;
//   - comprehensions (for, if), calls (len, and, or, every standard
//     library function and validator: struct.MaxFields counts the fields
//     the schema adds), and _|_: they can see whether a field exists or
//     how many there are, which the schema's defaults change;
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
// What remains (literals, struct and list literals, embeddings, lets,
// hidden fields, unary and binary operators, interpolations) means the
// same with and without the schema. A reference to a field the schema
// would add (functions.f.timeout, not written) is incomplete in U alone:
// the export fails, and CUE judges.
//
// So the fast path's one meaning is CUE's: #Config & U. HCL's evaluated
// configuration is plain data (no defaults, definitions or references
// left), for which the fast check is always exact.

// cueGate walks the user's syntax for what makes the fast path inexact.
type cueGate struct {
	fs *fastSchema
	// paths are the config paths of the struct literals seen, nil for
	// those outside the configuration (hidden fields, lets, imports).
	paths map[ast.Node][]string
	// config are the files of the configuration itself.
	config map[*ast.File]bool
	// why is the first construct found, empty when there is none.
	why string
}

// cueFastPathOK reports whether inst's value means the same alone and
// unified with the schema, and if not, the first construct why not.
func cueFastPathOK(fs *fastSchema, inst *build.Instance) (bool, string) {
	if fs.err != nil {
		return false, fs.err.Error()
	}
	g := &cueGate{fs: fs, paths: map[ast.Node][]string{}, config: map[*ast.File]bool{}}
	for _, f := range inst.Files {
		g.config[f] = true
	}
	seen := map[*build.Instance]bool{}
	var walk func(in *build.Instance)
	walk = func(in *build.Instance) {
		if seen[in] || g.why != "" {
			return
		}
		seen[in] = true
		// A file's scope holds the package's top-level fields, of every
		// file: know them all before looking at references.
		for _, f := range in.Files {
			var path []string
			if g.config[f] {
				path = []string{}
			}
			g.paths[f] = path
		}
		for _, f := range in.Files {
			g.decls(f.Decls, g.paths[f])
		}
		for _, imp := range in.Imports {
			walk(imp)
		}
	}
	walk(inst)
	return g.why == "", g.why
}

func (g *cueGate) refuse(n ast.Node, what string) {
	if g.why == "" {
		g.why = what
		if p := n.Pos(); p.IsValid() {
			g.why += " at " + p.String()
		}
	}
}

// decls walks the declarations of a file or struct at path (nil: outside
// the configuration).
func (g *cueGate) decls(ds []ast.Decl, path []string) {
	for _, d := range ds {
		if g.why != "" {
			return
		}
		switch d := d.(type) {
		case *ast.Field:
			g.field(d, path)
		case *ast.EmbedDecl:
			g.expr(d.Expr, path)
		case *ast.LetClause:
			g.expr(d.Expr, nil)
		case *ast.Package, *ast.ImportDecl, *ast.CommentGroup, *ast.Attribute:
		case *ast.Ellipsis:
			g.refuse(d, "...")
		case *ast.Comprehension:
			g.refuse(d, "a comprehension")
		default:
			g.refuse(d, "an unknown declaration")
		}
	}
}

func (g *cueGate) field(f *ast.Field, path []string) {
	if f.Constraint != token.ILLEGAL {
		g.refuse(f, "an optional or required field")
		return
	}
	switch f.Label.(type) {
	case *ast.Ident, *ast.BasicLit:
	default:
		g.refuse(f, "a pattern, dynamic or aliased label")
		return
	}
	name, isIdent, err := ast.LabelName(f.Label)
	if err != nil {
		g.refuse(f, "a label that is not a name")
		return
	}
	if isIdent && strings.HasPrefix(strings.TrimPrefix(name, "_"), "#") {
		g.refuse(f, "a definition")
		return
	}
	var sub []string
	if path != nil && !(isIdent && strings.HasPrefix(name, "_")) {
		sub = append(append(make([]string, 0, len(path)+1), path...), name)
	}
	g.expr(f.Value, sub)
}

// expr walks an expression whose value is at path.
func (g *cueGate) expr(e ast.Expr, path []string) {
	if g.why != "" {
		return
	}
	switch e := e.(type) {
	case *ast.BasicLit:
	case *ast.StructLit:
		g.paths[e] = path
		g.decls(e.Elts, path)
	case *ast.ListLit:
		for i, x := range e.Elts {
			if _, ok := x.(*ast.Ellipsis); ok {
				g.refuse(x, "...")
				return
			}
			var sub []string
			if path != nil {
				sub = append(append(make([]string, 0, len(path)+1), path...), strconv.Itoa(i))
			}
			g.expr(x, sub)
		}
	case *ast.ParenExpr:
		g.expr(e.X, path)
	case *ast.Interpolation:
		for _, x := range e.Elts {
			g.expr(x, nil)
		}
	case *ast.UnaryExpr:
		if e.Op == token.MUL {
			g.refuse(e, "a default")
			return
		}
		g.expr(e.X, nil)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.OR:
			g.refuse(e, "a disjunction")
		case token.AND:
			g.expr(e.X, path)
			g.expr(e.Y, path)
		default:
			g.expr(e.X, nil)
			g.expr(e.Y, nil)
		}
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr:
		g.reference(e, path)
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

// reference checks a reference (x, x.y, x["y"], x[0]) written at path.
func (g *cueGate) reference(e ast.Expr, path []string) {
	var sels []string
	for {
		switch x := e.(type) {
		case *ast.SelectorExpr:
			name, _, err := ast.LabelName(x.Sel)
			if err != nil {
				g.refuse(e, "a computed selector")
				return
			}
			sels = append(sels, name)
			e = x.X
			continue
		case *ast.IndexExpr:
			lit, ok := x.Index.(*ast.BasicLit)
			if !ok {
				g.refuse(e, "a computed index")
				return
			}
			s := lit.Value
			if lit.Kind == token.STRING {
				var err error
				if s, err = strconv.Unquote(s); err != nil {
					g.refuse(e, "a computed index")
					return
				}
			}
			sels = append(sels, s)
			e = x.X
			continue
		}
		break
	}
	id, ok := e.(*ast.Ident)
	if !ok {
		g.expr(e, nil) // (a & b).c: walk a and b
		if g.why == "" {
			g.refuse(e, "a selection from an expression")
		}
		return
	}
	target, inConfig := g.resolve(id)
	if g.why != "" || !inConfig {
		return
	}
	for i := len(sels) - 1; i >= 0; i-- {
		target = append(target, sels[i])
	}
	if !g.plainReference(target, path) {
		g.refuse(id, "a reference to "+strings.Join(target, "."))
	}
}

// resolve says what an identifier refers to: a config path, or something
// outside the configuration (inConfig false).
func (g *cueGate) resolve(id *ast.Ident) (path []string, inConfig bool) {
	if strings.HasPrefix(strings.TrimPrefix(id.Name, "_"), "#") {
		g.refuse(id, "a definition")
		return nil, false
	}
	switch id.Node.(type) {
	case *ast.ImportSpec, *ast.LetClause:
		return nil, false
	}
	if id.Scope == nil {
		if id.Node == nil && universe[id.Name] {
			return nil, false
		}
		g.refuse(id, "an unresolved reference "+id.Name)
		return nil, false
	}
	scope, ok := g.paths[id.Scope]
	if !ok {
		g.refuse(id, "a reference to an enclosing scope not walked")
		return nil, false
	}
	if scope == nil || strings.HasPrefix(id.Name, "_") {
		return nil, false
	}
	return append(append(make([]string, 0, len(scope)+1), scope...), id.Name), true
}

// plainReference reports whether a reference to the config path target,
// written at path, means the same with and without the schema.
func (g *cueGate) plainReference(target, path []string) bool {
	tt := g.typeAt(target)
	if tt == nil {
		return false
	}
	if g.scalar(tt, 0) {
		return true
	}
	if path == nil || len(target) != 2 || kindOfCollection(target[0]) == "" {
		return false
	}
	pt := g.typeAt(path)
	if pt == nil {
		return false
	}
	def := g.fs.resolve(tt)
	for _, a := range g.fs.alternatives(pt) {
		if a == def {
			return true
		}
	}
	return false
}

// typeAt is the schema type at a config path, nil when it has none.
func (g *cueGate) typeAt(path []string) *stype {
	t := g.fs.defs["#Config"]
	for _, e := range path {
		if t = g.fs.step(t, e); t == nil {
			return nil
		}
	}
	return t
}

// scalar reports whether every value of t is a scalar or a list of them.
func (g *cueGate) scalar(t *stype, depth int) bool {
	if depth > 8 {
		return false
	}
	for _, a := range g.fs.alternatives(t) {
		if a.kinds&kStruct != 0 {
			return false
		}
		if a.kinds&kList != 0 {
			for _, e := range a.prefix {
				if !g.scalar(e, depth+1) {
					return false
				}
			}
			if a.elem != nil && !g.scalar(a.elem, depth+1) {
				return false
			}
		}
	}
	return true
}

// gatedError is why the gate kept a configuration from the fast path.
type gatedError string

func (e gatedError) Error() string { return "not plain data: " + string(e) }
