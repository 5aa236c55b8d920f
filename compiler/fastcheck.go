package compiler

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"cc.dev/cc/schema"
)

// The fast check: the embedded CUE schema, compiled from its syntax into
// plain Go checks (kinds, literals, regular expressions, bounds, closed
// structs, patterns, lists, disjunctions with defaults), run over plain
// data: HCL's evaluated configuration, or a CUE configuration exported on
// its own.
//
// Its one meaning, in both languages, is CUE's: the configuration unified
// with #Config. Over plain data the fast check is exact: data it accepts
// comes out as unification would give it, defaults filled in, and data it
// refuses goes to CUE itself, which says precisely what is wrong and
// where. HCL's configuration is always plain data. A CUE configuration is
// exported and checked only when the gate (cuegate.go) finds nothing in
// its syntax whose meaning depends on unification with the schema (a
// default, a definition, an optional field, ...); otherwise CUE unifies it
// as the only judge. So CUE stays the judge and the one source of the
// rules, and valid configurations do not pay for a full unification.
//
// The schema compiler refuses any construct it does not model exactly
// (a conjunction of two disjunctions, a default the conjunction
// eliminates, ...), and a test requires it to compile the whole schema.
// Tests and the fuzz targets run both and compare, both ways (crossCheck,
// crosscheck.go).

type kinds uint8

const (
	kString kinds = 1 << iota
	kInt
	kFloat
	kBool
	kStruct
	kList
	kNull
	kNumber = kInt | kFloat
	kAll    = kString | kNumber | kBool | kStruct | kList | kNull
)

type stype struct {
	kinds  kinds
	lit    any // string, float64 or bool
	hasLit bool
	res    []*regexp.Regexp
	nres   []*regexp.Regexp
	bounds []bound
	neq    []any

	// A disjunction: alts, with the default's index or -1.
	alts   []*stype
	defIdx int

	// A reference to a definition, resolved when used (#Image is recursive).
	ref string

	fields   map[string]*sfield
	patterns []spattern
	closed   bool

	prefix   []*stype
	elem     *stype
	open     bool
	minItems int
}

type sfield struct {
	t        *stype
	optional bool
	required bool
}

type spattern struct {
	key *stype
	t   *stype
}

type bound struct {
	op      token.Token
	num     float64
	sibling string // compare with this field of the same struct
}

// fastSchema is the compiled schema; err says why it could not be.
type fastSchema struct {
	defs map[string]*stype
	// pending are the definitions being compiled, not known yet.
	pending map[string]bool
	err     error
}

// compiledSchema is the embedded schema, compiled.
func compiledSchema() *fastSchema { return compiledSchemaOf(schema.Default()) }

var fastSchemas sync.Map // *schema.Schema → *fastSchema

// compiledSchemaOf compiles the schema s, once.
func compiledSchemaOf(s *schema.Schema) *fastSchema {
	if fs, ok := fastSchemas.Load(s); ok {
		return fs.(*fastSchema)
	}
	var srcs []schemaText
	for _, sf := range s.Files() {
		srcs = append(srcs, schemaText{name: schemaFile + sf.Name, src: sf.Src})
	}
	fs, _ := fastSchemas.LoadOrStore(s, newFastSchema(srcs))
	return fs.(*fastSchema)
}

// schemaText is one file of a schema, for newFastSchema.
type schemaText struct {
	name string
	src  []byte
}

// newFastSchema compiles the top-level fields of a schema's files; the
// result's err says why it could not.
func newFastSchema(srcs []schemaText) *fastSchema {
	fs := &fastSchema{defs: map[string]*stype{}, pending: map[string]bool{}}
	var decls []*ast.Field
	for _, s := range srcs {
		f, err := parser.ParseFile(s.name, s.src)
		if err != nil {
			fs.err = err
			return fs
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.Field); ok {
				decls = append(decls, fd)
			}
		}
	}
	for _, fd := range decls {
		name, _, _ := ast.LabelName(fd.Label)
		fs.defs[name] = &stype{}
		fs.pending[name] = true
	}
	for _, fd := range decls {
		name, _, _ := ast.LabelName(fd.Label)
		t, err := fs.compile(fd.Value)
		if err != nil {
			fs.err = fmt.Errorf("%s: %w", name, err)
			return fs
		}
		*fs.defs[name] = *t
		delete(fs.pending, name)
	}
	return fs
}

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
		return &stype{kinds: kAll, defIdx: -1}, nil
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

// validate checks a whole configuration (plain data) against #Config and
// returns it with defaults filled in.
func (fs *fastSchema) validate(cfg any) (any, error) {
	if fs.err != nil {
		return nil, fs.err
	}
	return fs.check(fs.defs["#Config"], cfg, nil)
}

// fastError says why the fast check gave up. It carries no position: the
// fast check's only verdict is "CUE must look at this".
type fastError string

func (e fastError) Error() string { return string(e) }

func kindOfValue(v any) kinds {
	switch v := v.(type) {
	case string:
		return kString
	case bool:
		return kBool
	case int, int64:
		return kInt
	case float64:
		return kFloat // as cue.Context.Encode sees it
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return kFloat
		}
		return kInt
	case map[string]any:
		return kStruct
	case []any:
		return kList
	case nil:
		return kNull
	}
	return 0
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}

func sameScalar(v, lit any) bool {
	if s, ok := v.(string); ok {
		return s == lit
	}
	if b, ok := v.(bool); ok {
		return b == lit
	}
	if n, ok := number(v); ok {
		l, ok := lit.(float64)
		return ok && n == l
	}
	return false
}

// check checks v against t and returns it with the defaults of its
// absent fields filled in (in place: the data is the caller's own fresh
// copy). siblings is the struct holding v, for bounds that name a sibling.
func (fs *fastSchema) check(t *stype, v any, siblings map[string]any) (any, error) {
	t = fs.resolve(t)
	if len(t.alts) > 0 {
		return fs.checkAlts(t, v, siblings)
	}
	if err := fs.checkScalar(t, v, siblings); err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case map[string]any:
		return fs.checkStruct(t, v)
	case []any:
		return fs.checkList(t, v)
	}
	return v, nil
}

// checkAlts checks v against a disjunction: exactly one alternative (or
// several giving the same value) must accept it.
func (fs *fastSchema) checkAlts(t *stype, v any, siblings map[string]any) (any, error) {
	// Only the alternatives of the value's kind can accept it; when one
	// does, it may fill defaults in place.
	k := kindOfValue(v)
	var cands []*stype
	for _, alt := range t.alts {
		if fs.resolve(alt).kinds&k != 0 || len(fs.resolve(alt).alts) > 0 {
			cands = append(cands, alt)
		}
	}
	if len(cands) == 1 {
		return fs.check(cands[0], v, siblings)
	}
	var out any
	var outKey string
	n := 0
	var first error
	for _, alt := range cands {
		y, err := fs.check(alt, deepCopy(v), siblings)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		key, _ := json.Marshal(y)
		if n > 0 && string(key) == outKey {
			continue
		}
		out, outKey = y, string(key)
		n++
	}
	switch n {
	case 0:
		if first == nil {
			first = fastError("no alternative")
		}
		return nil, first
	case 1:
		return out, nil
	}
	return nil, fastError("ambiguous")
}

// checkScalar checks what t says of v itself: its kind, literal, regular
// expressions and bounds.
func (fs *fastSchema) checkScalar(t *stype, v any, siblings map[string]any) error {
	k := kindOfValue(v)
	if k&t.kinds == 0 {
		return fastError("kind")
	}
	if t.hasLit && !sameScalar(v, t.lit) {
		return fastError("literal")
	}
	for _, x := range t.neq {
		if sameScalar(v, x) {
			return fastError("!=")
		}
	}
	if s, ok := v.(string); ok {
		for _, re := range t.res {
			if !re.MatchString(s) {
				return fastError("regexp")
			}
		}
		for _, re := range t.nres {
			if re.MatchString(s) {
				return fastError("regexp")
			}
		}
	}
	if len(t.bounds) == 0 {
		return nil
	}
	n, ok := number(v)
	if !ok {
		return fastError("bound on a non-number")
	}
	for _, b := range t.bounds {
		lim := b.num
		if b.sibling != "" {
			s, ok := number(siblings[b.sibling])
			if !ok {
				return fastError("bound on %s")
			}
			lim = s
		}
		if !(b.op == token.GEQ && n >= lim || b.op == token.LEQ && n <= lim || b.op == token.GTR && n > lim || b.op == token.LSS && n < lim) {
			return fastError("bound")
		}
	}
	return nil
}

func (fs *fastSchema) checkList(t *stype, v []any) (any, error) {
	if len(v) < t.minItems || len(v) < len(t.prefix) || !t.open && len(v) > len(t.prefix) {
		return nil, fastError("length")
	}
	for i, x := range v {
		et := t.elem
		if i < len(t.prefix) {
			et = t.prefix[i]
		}
		y, err := fs.check(et, x, nil)
		if err != nil {
			return nil, err
		}
		v[i] = y
	}
	return v, nil
}

// checkStruct checks an object and fills in the defaults of its absent
// fields, in place. A declared field's type already holds the patterns
// matching its name (compileStruct); any other field takes the one
// pattern matching it, and when several match (CUE applies them all) the
// fast check leaves the value to CUE.
func (fs *fastSchema) checkStruct(t *stype, v map[string]any) (any, error) {
	// Fill defaults first: a bound may refer to a defaulted sibling.
	for name, f := range t.fields {
		if _, ok := v[name]; ok || f.optional {
			continue
		}
		if f.required {
			return nil, fastError("missing field")
		}
		d, ok := fs.defaultOf(f.t)
		if !ok {
			return nil, fastError("no value")
		}
		v[name] = d
	}
	for k, x := range v {
		if f := t.fields[k]; f != nil {
			y, err := fs.check(f.t, x, v)
			if err != nil {
				return nil, err
			}
			v[k] = y
			continue
		}
		var pat *spattern
		for i := range t.patterns {
			if _, err := fs.check(t.patterns[i].key, k, nil); err != nil {
				continue
			}
			if pat != nil {
				return nil, fastError("several patterns")
			}
			pat = &t.patterns[i]
		}
		if pat == nil {
			if t.closed {
				return nil, fastError("field not allowed")
			}
			continue
		}
		y, err := fs.check(pat.t, x, nil)
		if err != nil {
			return nil, err
		}
		v[k] = y
	}
	return v, nil
}

// deepCopy copies plain data, for trying one of several alternatives.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

// defaultOf is the value of an absent regular field: its marked default,
// or the one value it allows (a struct: its fields' defaults).
func (fs *fastSchema) defaultOf(t *stype) (any, bool) {
	t = fs.resolve(t)
	if len(t.alts) > 0 {
		if t.defIdx < 0 {
			return nil, false
		}
		return fs.concrete(t.alts[t.defIdx])
	}
	return fs.concrete(t)
}

func (fs *fastSchema) concrete(t *stype) (any, bool) {
	t = fs.resolve(t)
	if t.hasLit {
		f, ok := t.lit.(float64)
		switch {
		case ok && t.kinds == kInt && f == math.Trunc(f):
			return int64(f), true
		case ok && t.kinds == kFloat:
			// As CUE exports it: a float stays a float (1.0, not 1).
			s := strconv.FormatFloat(f, 'g', -1, 64)
			if !strings.ContainsAny(s, ".eE") {
				s += ".0"
			}
			return json.Number(s), true
		}
		return t.lit, true
	}
	if t.kinds == kStruct {
		// A regular field of struct type is there even when not written
		// (in CUE it always is), with its own defaults.
		v, err := fs.checkStruct(t, map[string]any{})
		return v, err == nil
	}
	if t.kinds == kList && !t.open {
		out := make([]any, len(t.prefix))
		for i, e := range t.prefix {
			v, ok := fs.concrete(e)
			if !ok {
				return nil, false
			}
			out[i] = v
		}
		return out, true
	}
	return nil, false
}

// fieldsAt lists the fields the schema allows in the struct at a config
// path, for did-you-mean suggestions: through collections (images.NAME),
// list elements, definitions and disjunctions (from: ref | image).
func (fs *fastSchema) fieldsAt(path []string) []string {
	if fs.err != nil {
		return nil
	}
	t := fs.defs["#Config"]
	for _, elem := range path {
		if t = fs.step(t, elem); t == nil {
			return nil
		}
	}
	seen := map[string]bool{}
	for _, a := range fs.alternatives(t) {
		for name := range a.fields {
			if !strings.HasPrefix(name, "$") {
				seen[name] = true
			}
		}
	}
	return sortedKeys(seen)
}

// step is the type of one element below t: a field, a pattern's value or a
// list element.
func (fs *fastSchema) step(t *stype, elem string) *stype {
	for _, a := range fs.alternatives(t) {
		if isIndex(elem) {
			if a.kinds&kList == 0 {
				continue
			}
			if i := atoi(elem); i < len(a.prefix) {
				return a.prefix[i]
			}
			if a.elem != nil {
				return a.elem
			}
			continue
		}
		if f := a.fields[elem]; f != nil {
			return f.t
		}
		for _, p := range a.patterns {
			if _, err := fs.check(p.key, elem, nil); err == nil {
				return p.t
			}
		}
	}
	return nil
}

// alternatives resolves t and flattens its disjunction.
func (fs *fastSchema) alternatives(t *stype) []*stype {
	t = fs.resolve(t)
	if len(t.alts) == 0 {
		return []*stype{t}
	}
	var out []*stype
	for _, a := range t.alts {
		out = append(out, fs.alternatives(a)...)
	}
	return out
}
