package compiler

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// Limits on what an HCL configuration may compute, so that no input, however
// hostile, exhausts memory: a configuration is data, and these are far
// beyond any real one. Each limit hit is an error at the expression.
const (
	// maxElements bounds a collection a function returns (range(), concat(),
	// split(), ...), counted over all its nesting, and the iterations of a
	// for expression over the whole compile, nested ones included.
	maxElements = 1_000_000
	// maxString bounds every string a function or a template produces.
	maxString = 16 << 20
	// maxValueBytes bounds the strings a function returns, or a for
	// expression produces over the whole compile, taken together.
	maxValueBytes = 256 << 20
)

// The internal functions the loader wraps around parts of expressions to
// count what they produce. Their names are not identifiers, so no
// configuration can call them.
const (
	forCollFunc = "#for-collection"
	forValFunc  = "#for-value"
	tmplFunc    = "#template-part"
)

// limitError is an internal function's report of a limit hit, which the
// loader turns into a diagnostic at the expression.
type limitError struct{ msg string }

func (e *limitError) Error() string { return e.msg }

// budget counts, per instrumented expression, what it has produced.
type budget struct {
	mu       sync.Mutex
	iters    map[int]int64 // for expression: iterations so far
	bytes    map[int]int64 // for expression: bytes of values produced; template: bytes this evaluation
	exceeded map[int]bool  // expressions that hit a limit (reported once)
	next     int
	// aborted is set when any limit is hit: from then on every function
	// and counted expression gives an unknown value at once, so what
	// remains of the evaluation does no real work.
	aborted atomic.Bool
	// reported holds the limit diagnostics, the only ones kept once
	// aborted (the rest are consequences of the unknown values).
	reported diag.Diagnostics
}

func newBudget() *budget {
	return &budget{iters: map[int]int64{}, bytes: map[int]int64{}, exceeded: map[int]bool{}}
}

// instrument rewrites the for expressions and templates under node so
// that what they produce is counted as it is produced, before it is held:
// a for expression's collection goes through forCollFunc (which refuses
// the iterations before they run) and its value through forValFunc; each
// interpolated part of a template through tmplFunc. A function call
// expression is plain hclsyntax, so evaluation is otherwise unchanged:
// same values, same marks, same references.
func (b *budget) instrument(node hclsyntax.Node) {
	switch n := node.(type) {
	case *hclsyntax.Body:
		b.instrumentBody(n)
	case hclsyntax.Expression:
		b.instrumentExpr(n)
	default:
		hclsyntax.VisitAll(node, b.visit)
	}
}

// instrumentBody instruments the expressions of body and of its blocks.
func (b *budget) instrumentBody(body *hclsyntax.Body) {
	for _, a := range body.Attributes {
		b.instrumentExpr(a.Expr)
	}
	for _, blk := range body.Blocks {
		b.instrumentBody(blk.Body)
	}
}

// instrumentExpr instruments e: it walks the expressions most attributes
// are made of itself, and any other through hclsyntax.VisitAll (issue 13:
// VisitAll's walk of every node was a tenth of a compile).
func (b *budget) instrumentExpr(e hclsyntax.Expression) {
	switch e := e.(type) {
	case *hclsyntax.LiteralValueExpr, *hclsyntax.ScopeTraversalExpr:
	case *hclsyntax.TemplateExpr:
		b.visit(e)
		for _, p := range e.Parts {
			b.instrumentExpr(p)
		}
	case *hclsyntax.TemplateWrapExpr:
		b.instrumentExpr(e.Wrapped)
	case *hclsyntax.TupleConsExpr:
		for _, x := range e.Exprs {
			b.instrumentExpr(x)
		}
	case *hclsyntax.ObjectConsExpr:
		for _, item := range e.Items {
			b.instrumentExpr(item.KeyExpr)
			b.instrumentExpr(item.ValueExpr)
		}
	case *hclsyntax.ObjectConsKeyExpr:
		b.instrumentExpr(e.Wrapped)
	case *hclsyntax.FunctionCallExpr:
		for _, x := range e.Args {
			b.instrumentExpr(x)
		}
	default:
		hclsyntax.VisitAll(e, b.visit)
	}
}

// visit instruments the node n itself, a for expression or a template
// with an interpolated part.
func (b *budget) visit(n hclsyntax.Node) hcl.Diagnostics {
	switch e := n.(type) {
	case *hclsyntax.ForExpr:
		id := b.nextID()
		rng := hcl.RangeBetween(e.OpenRange, e.CloseRange)
		e.CollExpr = wrapCall(forCollFunc, e.CollExpr, id, rng)
		e.ValExpr = wrapCall(forValFunc, e.ValExpr, id, rng)
	case *hclsyntax.TemplateExpr:
		if !slices.ContainsFunc(e.Parts, notLiteral) {
			return nil
		}
		id := b.nextID()
		first := true
		for i, part := range e.Parts {
			if !notLiteral(part) {
				continue
			}
			mode := int64(0)
			if first {
				mode, first = 1, false
			}
			e.Parts[i] = &hclsyntax.FunctionCallExpr{
				Name: tmplFunc,
				Args: []hclsyntax.Expression{part,
					&hclsyntax.LiteralValueExpr{Val: cty.NumberIntVal(int64(id)), SrcRange: part.Range()},
					&hclsyntax.LiteralValueExpr{Val: cty.NumberIntVal(mode), SrcRange: part.Range()}},
				NameRange: e.SrcRange, OpenParenRange: part.Range(), CloseParenRange: e.SrcRange,
			}
		}
	}
	return nil
}

// notLiteral tells a template part that is interpolated.
func notLiteral(part hclsyntax.Expression) bool {
	_, lit := part.(*hclsyntax.LiteralValueExpr)
	return !lit
}

// nextID numbers an instrumented expression (the numbers only tell them
// apart).
func (b *budget) nextID() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := b.next
	b.next++
	return id
}

func wrapCall(name string, x hclsyntax.Expression, id int, rng hcl.Range) hclsyntax.Expression {
	return &hclsyntax.FunctionCallExpr{
		Name:           name,
		Args:           []hclsyntax.Expression{x, &hclsyntax.LiteralValueExpr{Val: cty.NumberIntVal(int64(id)), SrcRange: x.Range()}},
		NameRange:      rng,
		OpenParenRange: x.Range(),
		// The call's range is the whole for expression.
		CloseParenRange: rng,
	}
}

// functions returns the internal counting functions.
func (b *budget) functions() map[string]function.Function {
	pass := function.Parameter{Name: "value", Type: cty.DynamicPseudoType, AllowNull: true, AllowUnknown: true, AllowDynamicType: true, AllowMarked: true}
	id := function.Parameter{Name: "id", Type: cty.Number}
	mode := function.Parameter{Name: "mode", Type: cty.Number}
	same := func(args []cty.Value) (cty.Type, error) { return args[0].Type(), nil }
	return map[string]function.Function{
		forCollFunc: function.New(&function.Spec{Params: []function.Parameter{pass, id}, Type: same, Impl: b.countElements}),
		forValFunc:  function.New(&function.Spec{Params: []function.Parameter{pass, id}, Type: same, Impl: b.countValueBytes}),
		tmplFunc:    function.New(&function.Spec{Params: []function.Parameter{pass, id, mode}, Type: same, Impl: b.countTemplate}),
	}
}

// idOf is the id argument of a counting function.
func idOf(v cty.Value) int { n, _ := v.AsBigFloat().Int64(); return int(n) }

// countElements is forCollFunc: it counts the elements a for expression
// iterates over, against maxElements.
func (b *budget) countElements(args []cty.Value, ret cty.Type) (cty.Value, error) {
	if b.aborted.Load() {
		return cty.UnknownVal(ret), nil
	}
	n := idOf(args[1])
	coll, _ := args[0].Unmark()
	size := int64(0)
	if coll.IsKnown() && !coll.IsNull() && (coll.Type().IsCollectionType() || coll.Type().IsTupleType() || coll.Type().IsObjectType()) {
		size = int64(coll.LengthInt())
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.exceeded[n] {
		return cty.UnknownVal(ret), nil
	}
	b.iters[n] += size
	if b.iters[n] > maxElements {
		b.exceeded[n] = true
		b.aborted.Store(true)
		return cty.UnknownVal(ret), &limitError{fmt.Sprintf("this for expression would make more than %d elements (%d here, counting every time it is evaluated), the limit on a comprehension", maxElements, b.iters[n])}
	}
	return args[0], nil
}

// countValueBytes is forValFunc: it counts the bytes of strings a for
// expression produces, against maxValueBytes.
func (b *budget) countValueBytes(args []cty.Value, ret cty.Type) (cty.Value, error) {
	if b.aborted.Load() {
		return cty.UnknownVal(ret), nil
	}
	n := idOf(args[1])
	sz := measure(args[0], maxValueBytes)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.exceeded[n] {
		return cty.UnknownVal(ret), nil
	}
	b.bytes[n] += sz.bytes
	if b.bytes[n] > maxValueBytes {
		b.exceeded[n] = true
		b.aborted.Store(true)
		return cty.UnknownVal(ret), &limitError{fmt.Sprintf("this for expression produces more than %s of strings, the limit on a comprehension", schema.FormatSize(maxValueBytes))}
	}
	return args[0], nil
}

// countTemplate is tmplFunc: it counts the length of the string a
// template makes, against maxString; mode 1 starts the template again.
func (b *budget) countTemplate(args []cty.Value, ret cty.Type) (cty.Value, error) {
	if b.aborted.Load() {
		return cty.UnknownVal(ret), nil
	}
	n := idOf(args[1])
	v, _ := args[0].Unmark()
	size := int64(0)
	if v.IsKnown() && !v.IsNull() && v.Type() == cty.String {
		size = int64(len(v.AsString()))
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if args[2].Equals(cty.NumberIntVal(1)).True() {
		b.bytes[n], b.exceeded[n] = 0, false
	}
	if b.exceeded[n] {
		return cty.UnknownVal(ret), nil
	}
	b.bytes[n] += size
	if b.bytes[n] > maxString {
		b.exceeded[n] = true
		b.aborted.Store(true)
		return cty.UnknownVal(ret), &limitError{fmt.Sprintf("this template makes a string longer than %s, the limit on a string", schema.FormatSize(maxString))}
	}
	return args[0], nil
}

// limitDiag turns an internal function's limit error, or a limit error of
// a wrapped function, into a diagnostic at the expression; other
// diagnostics are nil.
func limitDiag(d *hcl.Diagnostic) *diag.Diagnostic {
	extra, ok := hcl.DiagnosticExtra[hclsyntax.FunctionCallDiagExtra](d)
	if !ok {
		return nil
	}
	var le *limitError
	if !errors.As(extra.FunctionCallError(), &le) {
		return nil
	}
	out := &diag.Diagnostic{Severity: diag.Error, Summary: le.msg}
	if d.Subject != nil {
		out.Subject = toRange(*d.Subject)
	}
	return out
}

// size is what measure finds in a value.
type size struct {
	elements, bytes, longest int64
}

// measure counts a value's elements (over all its nesting) and the bytes of
// its strings, stopping once the bytes pass stop.
func measure(v cty.Value, stop int64) size {
	var s size
	var walk func(v cty.Value)
	walk = func(v cty.Value) {
		if s.bytes > stop || s.elements > maxElements {
			return
		}
		v, _ = v.Unmark()
		if !v.IsKnown() || v.IsNull() {
			return
		}
		t := v.Type()
		switch {
		case t == cty.String:
			n := int64(len(v.AsString()))
			s.bytes += n
			s.longest = max(s.longest, n)
		case t.IsCollectionType() || t.IsTupleType() || t.IsObjectType():
			for it := v.ElementIterator(); it.Next(); {
				k, e := it.Element()
				s.elements++
				if t.IsMapType() || t.IsObjectType() {
					walk(k)
				}
				walk(e)
				if s.bytes > stop || s.elements > maxElements {
					return
				}
			}
		}
	}
	walk(v)
	return s
}

// checkResult refuses a function's result that passes a limit.
func checkResult(v cty.Value) error {
	s := measure(v, maxValueBytes)
	switch {
	case s.elements > maxElements:
		return &limitError{fmt.Sprintf("the result has more than %d elements, the limit on a collection", maxElements)}
	case s.longest > maxString:
		return &limitError{fmt.Sprintf("the result holds a string longer than %s, the limit on a string", schema.FormatSize(maxString))}
	case s.bytes > maxValueBytes:
		return &limitError{fmt.Sprintf("the result holds more than %s of strings, the limit on a value", schema.FormatSize(maxValueBytes))}
	}
	return nil
}

// limitFunctions wraps every function so that its result is checked
// against the limits, and, for those whose result can be far larger than
// their arguments, refused before it is made. The wrapper also withholds
// the reason of an error of a call with a sensitive argument
// (funcswithheld.go): it is the one wrapper every call goes through.
func (b *budget) limitFunctions(fns map[string]function.Function) {
	for name, f := range fns {
		fns[name] = b.limited(name, f)
	}
}

func (b *budget) limited(name string, f function.Function) function.Function {
	pre := precheck[name]
	spec := &function.Spec{
		Description: f.Description(),
		Params:      seeingMarks(f.Params()),
		VarParam:    seeingMark(f.VarParam()),
		Type: func(args []cty.Value) (cty.Type, error) {
			ty, err := f.ReturnTypeForValues(args)
			return ty, withholdReason(err, args)
		},
		Impl: func(args []cty.Value, ret cty.Type) (cty.Value, error) {
			if b.aborted.Load() {
				return cty.UnknownVal(ret), nil
			}
			if pre != nil {
				unmarked := make([]cty.Value, len(args))
				for i, a := range args {
					unmarked[i], _ = a.UnmarkDeep()
				}
				if err := pre(unmarked); err != nil {
					b.aborted.Store(true)
					return cty.NilVal, err
				}
			}
			v, err := f.Call(args)
			if err != nil {
				return v, withholdReason(err, args)
			}
			if err := checkResult(v); err != nil {
				b.aborted.Store(true)
				return cty.NilVal, &limitError{name + "(): " + err.Error()}
			}
			return v, nil
		},
	}
	return function.New(spec)
}

// precheck holds, by function name, a check of the arguments that refuses
// a result over the limits before it is made.
var precheck = map[string]func(args []cty.Value) error{
	"range": func(args []cty.Value) error {
		start, limit, step := 0.0, 0.0, 1.0
		nums := make([]float64, len(args))
		for i, a := range args {
			if !a.IsKnown() || a.IsNull() || a.Type() != cty.Number {
				return nil
			}
			nums[i], _ = a.AsBigFloat().Float64()
		}
		switch len(nums) {
		case 1:
			limit = nums[0]
		case 2:
			start, limit = nums[0], nums[1]
		case 3:
			start, limit, step = nums[0], nums[1], nums[2]
		default:
			return nil
		}
		if step == 0 {
			return nil
		}
		if n := math.Ceil((limit - start) / step); n > maxElements {
			return &limitError{fmt.Sprintf("range() would make %s elements, more than %d, the limit on a collection", strconv.FormatFloat(n, 'f', -1, 64), maxElements)}
		}
		return nil
	},
	"concat":   sumOfLengths("concat"),
	"setunion": sumOfLengths("setunion"),
	"merge":    sumOfLengths("merge"),
	"join": func(args []cty.Value) error {
		if len(args) < 2 || !known(args[0]) {
			return nil
		}
		sep := int64(len(args[0].AsString()))
		total := int64(0)
		for _, l := range args[1:] {
			if !known(l) {
				return nil
			}
			n := int64(l.LengthInt())
			total += sep*n + measure(l, maxString).bytes
			if total > maxString {
				return &limitError{fmt.Sprintf("join() would make a string longer than %s, the limit on a string", schema.FormatSize(maxString))}
			}
		}
		return nil
	},
	"split": func(args []cty.Value) error {
		if len(args) != 2 || !known(args[0]) || !known(args[1]) {
			return nil
		}
		sep, s := args[0].AsString(), args[1].AsString()
		n := len(s) + 1
		if sep != "" {
			n = strings.Count(s, sep) + 1
		}
		if n > maxElements {
			return &limitError{fmt.Sprintf("split() would make %d elements, more than %d, the limit on a collection", n, maxElements)}
		}
		return nil
	},
	"replace": func(args []cty.Value) error {
		if len(args) != 3 || !known(args[0]) || !known(args[1]) || !known(args[2]) {
			return nil
		}
		s, sub, repl := args[0].AsString(), args[1].AsString(), args[2].AsString()
		var matches int
		if len(sub) > 1 && sub[0] == '/' && sub[len(sub)-1] == '/' {
			re, err := regexp.Compile(sub[1 : len(sub)-1])
			if err != nil {
				return nil // replace itself words the error
			}
			if regexReplaceLen(re, s, repl) > maxString {
				return &limitError{fmt.Sprintf("replace() would make a string longer than %s, the limit on a string", schema.FormatSize(maxString))}
			}
			return nil
		} else if sub == "" {
			matches = len(s) + 1
		} else {
			matches = strings.Count(s, sub)
		}
		if int64(len(s))+int64(matches)*int64(len(repl)) > maxString {
			return &limitError{fmt.Sprintf("replace() would make a string longer than %s, the limit on a string", schema.FormatSize(maxString))}
		}
		return nil
	},
	"indent": func(args []cty.Value) error {
		if len(args) != 2 || !known(args[0]) || !known(args[1]) || args[0].Type() != cty.Number {
			return nil
		}
		n, _ := args[0].AsBigFloat().Float64()
		s := args[1].AsString()
		if float64(len(s))+n*float64(strings.Count(s, "\n")+1) > maxString {
			return &limitError{fmt.Sprintf("indent() would make a string longer than %s, the limit on a string", schema.FormatSize(maxString))}
		}
		return nil
	},
	"setproduct": productOfLengths,
	"yamldecode": yamlAliases,
	"format":     formatWidths("format"),
	"formatlist": formatWidths("formatlist"),
}

func known(v cty.Value) bool {
	return v.IsKnown() && !v.IsNull() && (v.Type() == cty.String || v.Type().IsCollectionType() || v.Type().IsTupleType() || v.Type().IsObjectType() || v.Type() == cty.Number)
}

func sumOfLengths(name string) func([]cty.Value) error {
	return func(args []cty.Value) error {
		total := 0
		for _, a := range args {
			if !known(a) || a.Type() == cty.String || a.Type() == cty.Number {
				continue
			}
			total += a.LengthInt()
		}
		if total > maxElements {
			return &limitError{fmt.Sprintf("%s() would make %d elements, more than %d, the limit on a collection", name, total, maxElements)}
		}
		return nil
	}
}

// productOfLengths refuses a setproduct whose result would have more than
// maxElements elements (issue 15: each argument multiplies them).
func productOfLengths(args []cty.Value) error {
	n := int64(1)
	for _, a := range args {
		if !known(a) || a.Type() == cty.String || a.Type() == cty.Number {
			return nil
		}
		if n *= int64(a.LengthInt()); n == 0 {
			return nil
		}
		if n > maxElements {
			return &limitError{fmt.Sprintf("setproduct() would make more than %d elements, the limit on a collection", maxElements)}
		}
	}
	return nil
}

// verbWidth finds the widths and precisions of a format string's verbs.
var verbWidth = regexp.MustCompile(`%[-+# 0]*(\d*)(?:\.(\d*))?`)

func formatWidths(name string) func([]cty.Value) error {
	return func(args []cty.Value) error {
		if len(args) == 0 || !known(args[0]) || args[0].Type() != cty.String {
			return nil
		}
		for _, m := range verbWidth.FindAllStringSubmatch(args[0].AsString(), -1) {
			for _, num := range m[1:] {
				if num == "" {
					continue
				}
				if n, ok := new(big.Int).SetString(num, 10); !ok || n.Cmp(big.NewInt(maxString)) > 0 {
					return &limitError{fmt.Sprintf("%s(): a width or precision of %s is more than %d, the limit on a string", name, num, maxString)}
				}
			}
		}
		return nil
	}
}
