package compiler

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"
)

// The schema compiler of the fast check: CUE syntax of the embedded
// schema into stypes, refusing what it does not model exactly.

// compile turns one schema expression into a type. What it does not know
// it refuses, so that the fast check never guesses.
func (fs *fastSchema) compile(e ast.Expr) (*stype, error) {
	switch e := e.(type) {
	case *ast.ParenExpr:
		return fs.compile(e.X)
	case *ast.Ident:
		return fs.compileIdent(e)
	case *ast.BasicLit:
		return compileLit(e)
	case *ast.UnaryExpr:
		return compileUnary(e)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.AND:
			a, err := fs.compile(e.X)
			if err != nil {
				return nil, err
			}
			b, err := fs.compile(e.Y)
			if err != nil {
				return nil, err
			}
			return fs.and(a, b)
		case token.OR:
			return fs.compileOr(e)
		}
		return nil, fmt.Errorf("unsupported operator %s", e.Op)
	case *ast.StructLit:
		return fs.compileStruct(e)
	case *ast.ListLit:
		return fs.compileList(e)
	case *ast.CallExpr:
		return fs.compileCall(e)
	}
	return nil, fmt.Errorf("unsupported expression %T", e)
}

func (fs *fastSchema) compileIdent(e *ast.Ident) (*stype, error) {
	switch e.Name {
	case "string":
		return &stype{kinds: kString, defIdx: -1}, nil
	case "int":
		return &stype{kinds: kInt, defIdx: -1}, nil
	case "number":
		return &stype{kinds: kNumber, defIdx: -1}, nil
	case "float":
		return &stype{kinds: kFloat, defIdx: -1}, nil
	case "bool":
		return &stype{kinds: kBool, defIdx: -1}, nil
	case "null":
		return &stype{kinds: kNull, defIdx: -1}, nil
	case "_":
		// Anything: a list of anything too (issue 11: a judge's
		// completion options, a stop list).
		return &stype{kinds: kAll, defIdx: -1, any: true}, nil
	}
	if strings.HasPrefix(e.Name, "#") {
		if fs.defs[e.Name] == nil {
			return nil, fmt.Errorf("undefined %s", e.Name)
		}
		return &stype{ref: e.Name, kinds: kAll, defIdx: -1}, nil
	}
	return nil, fmt.Errorf("unsupported reference %s", e.Name)
}

// compileLit is a literal. In CUE an int literal is an int and a float
// literal a float (3 & 3.0 is an error), so each has its own kind.
func compileLit(e *ast.BasicLit) (*stype, error) {
	v, err := basicLit(e)
	if err != nil {
		return nil, err
	}
	t := &stype{lit: v, hasLit: true, defIdx: -1}
	switch v.(type) {
	case string:
		t.kinds = kString
	case float64:
		t.kinds = kInt
		if e.Kind == token.FLOAT {
			t.kinds = kFloat
		}
	case bool:
		t.kinds = kBool
	}
	return t, nil
}

func compileUnary(e *ast.UnaryExpr) (*stype, error) {
	switch e.Op {
	case token.MUL:
		return nil, fmt.Errorf("a default marker outside a disjunction")
	case token.MAT, token.NMAT:
		lit, ok := e.X.(*ast.BasicLit)
		if !ok {
			return nil, fmt.Errorf("regular expression is not a literal")
		}
		s, err := literal.Unquote(lit.Value)
		if err != nil {
			return nil, err
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, err
		}
		t := &stype{kinds: kString, defIdx: -1}
		if e.Op == token.MAT {
			t.res = []*regexp.Regexp{re}
		} else {
			t.nres = []*regexp.Regexp{re}
		}
		return t, nil
	case token.GEQ, token.LEQ, token.GTR, token.LSS:
		t := &stype{kinds: kNumber, defIdx: -1}
		switch x := e.X.(type) {
		case *ast.BasicLit:
			v, err := basicLit(x)
			n, ok := v.(float64)
			if err != nil || !ok {
				return nil, fmt.Errorf("bound is not a number")
			}
			t.bounds = []bound{{op: e.Op, num: n}}
		case *ast.Ident:
			t.bounds = []bound{{op: e.Op, sibling: x.Name}}
		default:
			return nil, fmt.Errorf("unsupported bound")
		}
		return t, nil
	case token.NEQ:
		lit, ok := e.X.(*ast.BasicLit)
		if !ok {
			return nil, fmt.Errorf("!= of a non-literal")
		}
		v, err := basicLit(lit)
		if err != nil {
			return nil, err
		}
		return &stype{kinds: kAll, neq: []any{v}, defIdx: -1}, nil
	}
	return nil, fmt.Errorf("unsupported operator %s", e.Op)
}

// compileOr is a disjunction, flattened, with at most one default.
func (fs *fastSchema) compileOr(e *ast.BinaryExpr) (*stype, error) {
	t := &stype{defIdx: -1}
	for _, x := range []ast.Expr{e.X, e.Y} {
		isDef := false
		if u, ok := x.(*ast.UnaryExpr); ok && u.Op == token.MUL {
			x, isDef = u.X, true
		}
		a, err := fs.compile(x)
		if err != nil {
			return nil, err
		}
		if len(a.alts) > 0 {
			if a.defIdx >= 0 {
				if t.defIdx >= 0 {
					return nil, fmt.Errorf("two defaults")
				}
				t.defIdx = len(t.alts) + a.defIdx
			}
			t.alts = append(t.alts, a.alts...)
			continue
		}
		if isDef {
			if t.defIdx >= 0 {
				return nil, fmt.Errorf("two defaults")
			}
			t.defIdx = len(t.alts)
		}
		t.alts = append(t.alts, a)
	}
	return t, nil
}

func (fs *fastSchema) compileStruct(e *ast.StructLit) (*stype, error) {
	t := &stype{kinds: kStruct, fields: map[string]*sfield{}, closed: true, defIdx: -1}
	var embeds []ast.Expr
	for _, d := range e.Elts {
		switch d := d.(type) {
		case *ast.Field:
			if err := fs.compileField(t, d); err != nil {
				return nil, err
			}
		case *ast.EmbedDecl:
			embeds = append(embeds, d.Expr)
		case *ast.CommentGroup:
		default:
			return nil, fmt.Errorf("unsupported declaration %T", d)
		}
	}
	// CUE applies a pattern to every field whose name it matches, declared
	// or not: a declared field's type includes the patterns that match it.
	for name, f := range t.fields {
		ft, err := fs.withPatterns(f.t, name, t.patterns)
		if err != nil {
			return nil, err
		}
		f.t = ft
	}
	for _, x := range embeds {
		et, err := fs.compile(x)
		if err != nil {
			return nil, err
		}
		if t, err = fs.and(t, et); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// compileField adds one field or pattern of a struct to t. Attributes
// (@cc(...)) are the schema's metadata and do not constrain values.
func (fs *fastSchema) compileField(t *stype, d *ast.Field) error {
	ft, err := fs.compile(d.Value)
	if err != nil {
		return err
	}
	if ll, ok := d.Label.(*ast.ListLit); ok {
		if len(ll.Elts) != 1 {
			return fmt.Errorf("unsupported pattern")
		}
		kx := ll.Elts[0]
		if a, ok := kx.(*ast.Alias); ok {
			kx = a.Expr
		}
		kt, err := fs.compile(kx)
		if err != nil {
			return err
		}
		t.patterns = append(t.patterns, spattern{key: kt, t: ft})
		return nil
	}
	name, _, err := ast.LabelName(d.Label)
	if err != nil {
		return err
	}
	f := &sfield{t: ft, optional: d.Constraint == token.OPTION, required: d.Constraint == token.NOT}
	if prev := t.fields[name]; prev != nil {
		if f.t, err = fs.and(prev.t, f.t); err != nil {
			return err
		}
		f.optional = prev.optional && f.optional
		f.required = prev.required || f.required
	}
	t.fields[name] = f
	return nil
}

// withPatterns is t and the types of the patterns matching name.
func (fs *fastSchema) withPatterns(t *stype, name string, pats []spattern) (*stype, error) {
	for _, p := range pats {
		if fs.isPending(p.key) {
			return nil, fmt.Errorf("pattern %s used before it is compiled", p.key.ref)
		}
		if _, err := fs.check(p.key, name, nil); err != nil {
			continue
		}
		var err error
		if t, err = fs.and(t, p.t); err != nil {
			return nil, err
		}
	}
	return t, nil
}

func (fs *fastSchema) compileList(e *ast.ListLit) (*stype, error) {
	t := &stype{kinds: kList, defIdx: -1}
	for _, x := range e.Elts {
		if el, ok := x.(*ast.Ellipsis); ok {
			t.open = true
			t.elem = &stype{kinds: kAll, defIdx: -1}
			if el.Type != nil {
				et, err := fs.compile(el.Type)
				if err != nil {
					return nil, err
				}
				t.elem = et
			}
			continue
		}
		et, err := fs.compile(x)
		if err != nil {
			return nil, err
		}
		t.prefix = append(t.prefix, et)
	}
	return t, nil
}

// compileCall knows close(x) and list.MinItems(n).
func (fs *fastSchema) compileCall(e *ast.CallExpr) (*stype, error) {
	switch fn := e.Fun.(type) {
	case *ast.Ident:
		if fn.Name == "close" && len(e.Args) == 1 {
			return fs.compile(e.Args[0])
		}
	case *ast.SelectorExpr:
		x, ok := fn.X.(*ast.Ident)
		sel, _ := fn.Sel.(*ast.Ident)
		if ok && x.Name == "list" && sel != nil && sel.Name == "MinItems" && len(e.Args) == 1 {
			lit, _ := e.Args[0].(*ast.BasicLit)
			if lit == nil {
				return nil, fmt.Errorf("list.MinItems of a non-literal")
			}
			v, err := basicLit(lit)
			n, ok := v.(float64)
			if err != nil || !ok {
				return nil, fmt.Errorf("list.MinItems of a non-number")
			}
			return &stype{kinds: kList, open: true, elem: &stype{kinds: kAll, defIdx: -1}, minItems: int(n), defIdx: -1}, nil
		}
	}
	return nil, fmt.Errorf("unsupported call")
}

func basicLit(l *ast.BasicLit) (any, error) {
	switch l.Kind {
	case token.STRING:
		return literal.Unquote(l.Value)
	case token.INT, token.FLOAT:
		return strconv.ParseFloat(l.Value, 64)
	case token.TRUE:
		return true, nil
	case token.FALSE:
		return false, nil
	}
	return nil, fmt.Errorf("unsupported literal %s", l.Value)
}

func (fs *fastSchema) resolve(t *stype) *stype {
	for t.ref != "" {
		t = fs.defs[t.ref]
	}
	return t
}

// isPending reports whether t is a definition not compiled yet (its type
// is not known while the schema is being compiled).
func (fs *fastSchema) isPending(t *stype) bool {
	for t.ref != "" {
		if fs.pending[t.ref] {
			return true
		}
		t = fs.defs[t.ref]
	}
	return false
}

// and is the conjunction of two types. It refuses what it cannot model as
// CUE does: a definition not compiled yet, two disjunctions (CUE combines
// their defaults: *1 | int and *2 | int leave no default), and a default
// the other side eliminates (CUE then drops the default).
func (fs *fastSchema) and(a, b *stype) (*stype, error) {
	if fs.isPending(a) || fs.isPending(b) {
		return nil, fmt.Errorf("a conjunction with a definition used before it is compiled")
	}
	a, b = fs.resolve(a), fs.resolve(b)
	if len(a.alts) > 0 || len(b.alts) > 0 {
		return fs.andOr(a, b)
	}
	t := &stype{
		kinds: a.kinds & b.kinds, defIdx: -1,
		res:      append(append([]*regexp.Regexp(nil), a.res...), b.res...),
		nres:     append(append([]*regexp.Regexp(nil), a.nres...), b.nres...),
		bounds:   append(append([]bound(nil), a.bounds...), b.bounds...),
		neq:      append(append([]any(nil), a.neq...), b.neq...),
		minItems: max(a.minItems, b.minItems),
	}
	switch {
	case a.hasLit && b.hasLit:
		t.lit, t.hasLit = a.lit, true
		if a.lit != b.lit {
			t.kinds = 0
		}
	case a.hasLit:
		t.lit, t.hasLit = a.lit, true
	case b.hasLit:
		t.lit, t.hasLit = b.lit, true
	}
	if a.fields != nil || b.fields != nil {
		if err := fs.andStructs(t, a, b); err != nil {
			return nil, err
		}
	}
	// Lists: one side may be list.MinItems (open, any elements).
	switch {
	case a.kinds&kList != 0 && len(a.prefix) == 0 && a.open && a.elem != nil && a.elem.kinds == kAll && a.elem.ref == "":
		t.prefix, t.elem, t.open = b.prefix, b.elem, b.open
	default:
		t.prefix, t.elem, t.open = a.prefix, a.elem, a.open
		if b.kinds&kList != 0 && !(len(b.prefix) == 0 && b.open && b.elem != nil && b.elem.kinds == kAll) {
			t.prefix, t.elem, t.open = b.prefix, b.elem, b.open
		}
	}
	return t, nil
}

// andOr is the conjunction of a disjunction with a type that is not one.
func (fs *fastSchema) andOr(a, b *stype) (*stype, error) {
	if len(a.alts) > 0 && len(b.alts) > 0 {
		return nil, fmt.Errorf("a conjunction of two disjunctions")
	}
	if len(a.alts) == 0 {
		a, b = b, a
	}
	t := &stype{defIdx: a.defIdx}
	for _, alt := range a.alts {
		x, err := fs.and(alt, b)
		if err != nil {
			return nil, err
		}
		t.alts = append(t.alts, x)
	}
	if t.defIdx >= 0 && !hasSiblingBound(b) {
		d, ok := fs.concrete(t.alts[t.defIdx])
		if !ok {
			return nil, fmt.Errorf("a default that is not one value")
		}
		if _, err := fs.check(t.alts[t.defIdx], deepCopy(d), nil); err != nil {
			return nil, fmt.Errorf("a default the conjunction eliminates")
		}
	}
	return t, nil
}

func hasSiblingBound(t *stype) bool {
	for _, b := range t.bounds {
		if b.sibling != "" {
			return true
		}
	}
	return false
}

// andStructs conjoins the fields and patterns of a and b into t: each
// side's patterns apply to the other side's fields too.
func (fs *fastSchema) andStructs(t, a, b *stype) error {
	t.fields = map[string]*sfield{}
	for _, s := range [][2]*stype{{a, b}, {b, a}} {
		for n, f := range s[0].fields {
			prev := t.fields[n]
			if prev == nil {
				ft := f.t
				if _, both := s[1].fields[n]; !both {
					var err error
					if ft, err = fs.withPatterns(f.t, n, s[1].patterns); err != nil {
						return err
					}
				}
				t.fields[n] = &sfield{t: ft, optional: f.optional, required: f.required}
				continue
			}
			ft, err := fs.and(prev.t, f.t)
			if err != nil {
				return err
			}
			t.fields[n] = &sfield{t: ft, optional: prev.optional && f.optional, required: prev.required || f.required}
		}
	}
	t.patterns = append(append([]spattern(nil), a.patterns...), b.patterns...)
	t.closed = a.closed || b.closed
	return nil
}
