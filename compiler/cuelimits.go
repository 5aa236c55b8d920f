package compiler

import (
	"fmt"
	"math"
	"math/big"
	"path"
	"strconv"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/token"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// CUE's evaluator has no limits of its own, and a few builtins make a
// value of any size from small arguments in one allocation, too fast for
// the memory watchdog: strings.Repeat("x", 1e12) dies of "out of memory"
// at once. Their calls are checked before evaluation: the arguments that
// set the size must be literals, and the size within the limits that HCL
// has (limits.go).

// sizeBuiltins are the builtins checked, by import path and name.
var sizeBuiltins = map[string]map[string]bool{
	"strings": {"Repeat": true},
	"bytes":   {"Repeat": true},
	"list":    {"Repeat": true, "Range": true},
}

// checkCUEBuiltins checks the calls of sizeBuiltins in the instance's
// files and in those of the packages it imports.
func checkCUEBuiltins(p *project, inst *build.Instance) diag.Diagnostics {
	var ds diag.Diagnostics
	seen := map[*build.Instance]bool{}
	var visit func(inst *build.Instance)
	visit = func(inst *build.Instance) {
		if inst == nil || seen[inst] {
			return
		}
		seen[inst] = true
		for _, f := range inst.Files {
			ds = append(ds, checkCUEFile(p, f)...)
		}
		for _, imp := range inst.Imports {
			visit(imp)
		}
	}
	visit(inst)
	return ds
}

func checkCUEFile(p *project, f *ast.File) diag.Diagnostics {
	// The local names of the checked packages in this file.
	pkgs := map[string]string{}
	for spec := range f.ImportSpecs() {
		ip, err := literal.Unquote(spec.Path.Value)
		if err != nil || sizeBuiltins[ip] == nil {
			continue
		}
		name := path.Base(ip)
		if spec.Name != nil {
			name = spec.Name.Name
		}
		pkgs[name] = ip
	}
	if len(pkgs) == 0 {
		return nil
	}
	var ds diag.Diagnostics
	ast.Walk(f, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		x, ok := sel.X.(*ast.Ident)
		if !ok {
			return true
		}
		fn, _, _ := ast.LabelName(sel.Sel)
		ip := pkgs[x.Name]
		if ip == "" || !sizeBuiltins[ip][fn] {
			return true
		}
		if msg := builtinSize(ip, fn, call.Args); msg != "" {
			d := diag.Errorf(p.rangeOfPos(call.Pos()), "%s.%s: %s", x.Name, fn, msg)
			if d.Subject == nil {
				d.Subject = p.rangeOfPos(token.NoPos)
			}
			ds = append(ds, d)
		}
		return true
	}, nil)
	return ds
}

// builtinSize says what is wrong with a call's arguments, or "".
func builtinSize(ip, fn string, args []ast.Expr) string {
	const notLiteral = "the arguments that set the size of its result must be literals here, so that cc can bound it"
	switch fn {
	case "Repeat":
		if len(args) != 2 {
			return "" // CUE words the wrong number of arguments
		}
		count, ok := intLit(args[1])
		if !ok {
			return notLiteral
		}
		var unit int64
		switch a := args[0].(type) {
		case *ast.BasicLit:
			s, err := literal.Unquote(a.Value)
			if err != nil || a.Kind != token.STRING {
				return notLiteral
			}
			unit = int64(len(s))
			if count.Cmp(big.NewInt(0)) > 0 && new(big.Int).Mul(count, big.NewInt(unit)).Cmp(big.NewInt(maxString)) > 0 {
				return fmt.Sprintf("the result would be longer than %s, the limit on a string", schema.FormatSize(maxString))
			}
		case *ast.ListLit:
			unit = int64(len(a.Elts))
			if count.Cmp(big.NewInt(0)) > 0 && new(big.Int).Mul(count, big.NewInt(unit)).Cmp(big.NewInt(maxElements)) > 0 {
				return fmt.Sprintf("the result would have more than %d elements, the limit on a collection", maxElements)
			}
		default:
			return notLiteral
		}
	case "Range":
		if len(args) != 3 {
			return ""
		}
		var nums [3]float64
		for i, a := range args {
			f, ok := numLit(a)
			if !ok {
				return notLiteral
			}
			nums[i] = f
		}
		if nums[2] != 0 {
			if n := math.Ceil((nums[1] - nums[0]) / nums[2]); n > maxElements {
				return fmt.Sprintf("the result would have %s elements, more than %d, the limit on a collection", strconv.FormatFloat(n, 'f', -1, 64), maxElements)
			}
		}
	}
	return ""
}

func intLit(e ast.Expr) (*big.Int, bool) {
	neg := false
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		neg, e = true, u.X
	}
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.INT {
		return nil, false
	}
	var ni literal.NumInfo
	if err := literal.ParseNum(b.Value, &ni); err != nil || !ni.IsInt() {
		return nil, false
	}
	n, ok := new(big.Int).SetString(ni.String(), 10)
	if ok && neg {
		n.Neg(n)
	}
	return n, ok
}

func numLit(e ast.Expr) (float64, bool) {
	neg := 1.0
	if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.SUB {
		neg, e = -1, u.X
	}
	b, ok := e.(*ast.BasicLit)
	if !ok || b.Kind != token.INT && b.Kind != token.FLOAT {
		return 0, false
	}
	var ni literal.NumInfo
	if err := literal.ParseNum(b.Value, &ni); err != nil {
		return 0, false
	}
	f, err := strconv.ParseFloat(ni.String(), 64)
	if err != nil {
		return 0, false
	}
	return neg * f, true
}
