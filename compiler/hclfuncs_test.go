package compiler

import (
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"
)

// terraformVersion is the Terraform whose results terraformCases hold.
const terraformVersion = "v1.11.4"

// funcCase is one expression and Terraform's result for it: want, an HCL
// expression (tolist, toset and tomap say the type where Terraform's
// console does), or, when err is set, an error whose message contains err.
type funcCase struct {
	expr, want, err string
}

// funcVars are the variables the cases may use, as the examples of
// Terraform's documentation do.
var funcVars = map[string]cty.Value{
	"local": cty.ObjectVal(map[string]cty.Value{
		"foo":        cty.ObjectVal(map[string]cty.Value{"bar": cty.StringVal("baz")}),
		"template":   cty.StringVal("Hello, ${name}!"),
		"reads_file": cty.StringVal(`${file("hello.txt")}`),
	}),
	"var": cty.ObjectVal(map[string]cty.Value{
		"name":   cty.StringVal("Valentina"),
		"secret": cty.StringVal("hunter2").Mark(sensitiveMark),
		"s":      cty.StringVal("My Service_Name"),
	}),
}

// evalFunc evaluates expr as an HCL configuration does: the function table
// of a compile, rooted at testdata/funcs, with its budget.
func evalFunc(t *testing.T, expr string) (cty.Value, hcl.Diagnostics) {
	t.Helper()
	b := newBudget()
	fns := functionTable("testdata/funcs", b)
	e, diags := hclsyntax.ParseExpression([]byte(expr), "case.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("ParseExpression(%s): %v", expr, diags)
	}
	b.instrument(e)
	return e.Value(&hcl.EvalContext{Variables: funcVars, Functions: fns})
}

// wantValue evaluates a case's result, with only the type conversion
// functions.
func wantValue(t *testing.T, want string) cty.Value {
	t.Helper()
	e, diags := hclsyntax.ParseExpression([]byte(want+"\n"), "want.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("ParseExpression(want %s): %v", want, diags)
	}
	v, diags := e.Value(&hcl.EvalContext{Functions: map[string]function.Function{
		"tolist": stdlib.MakeToFunc(cty.List(cty.DynamicPseudoType)),
		"toset":  stdlib.MakeToFunc(cty.Set(cty.DynamicPseudoType)),
		"tomap":  stdlib.MakeToFunc(cty.Map(cty.DynamicPseudoType)),
	}})
	if diags.HasErrors() {
		t.Fatalf("want %s: %v", want, diags)
	}
	return v
}

// sameValue compares a result with Terraform's. Where the console shows
// a list, set or map as a plain tuple or object (older examples do), a
// list, set or map is taken for it; a tuple or an object where Terraform
// has a list, set or map is not. Numbers compare to 1e-12 (log).
func sameValue(got, want cty.Value) bool {
	got, _ = got.UnmarkDeep()
	gt, wt := got.Type(), want.Type()
	switch {
	case got.IsNull() || want.IsNull():
		return got.IsNull() && want.IsNull()
	case gt == cty.Number && wt == cty.Number:
		g, _ := got.AsBigFloat().Float64()
		w, _ := want.AsBigFloat().Float64()
		return g == w || math.Abs(g-w) <= 1e-12*math.Abs(w)
	case gt.IsPrimitiveType() || wt.IsPrimitiveType():
		return gt.Equals(wt) && got.RawEquals(want)
	case gt.IsSetType() && (wt.IsSetType() || wt.IsTupleType()):
		w, err := convert.Convert(want, gt)
		return err == nil && sameElements(got, w)
	case (gt.IsListType() || gt.IsTupleType()) && (wt.IsTupleType() || wt.IsListType() && gt.IsListType()):
		return sameElements(got, want)
	case (gt.IsMapType() || gt.IsObjectType()) && (wt.IsObjectType() || wt.IsMapType() && gt.IsMapType()):
		return sameElements(got, want)
	}
	return false
}

// sameElements compares two collections element by element, keys too.
func sameElements(got, want cty.Value) bool {
	if got.LengthInt() != want.LengthInt() {
		return false
	}
	g, w := got.ElementIterator(), want.ElementIterator()
	for g.Next() && w.Next() {
		gk, gv := g.Element()
		wk, wv := w.Element()
		if gk.Type() == cty.String && !gk.RawEquals(wk) || !sameValue(gv, wv) {
			return false
		}
	}
	return true
}

// TestTerraformFunctions: issue 15. Each expression gives the value
// Terraform (terraformVersion) gives, or fails for the same reason with
// Terraform's message; the cases are the examples of Terraform's
// documentation of each function and cases of its function tests.
func TestTerraformFunctions(t *testing.T) {
	if len(terraformCases) < 200 {
		t.Errorf("%d cases, want at least 200", len(terraformCases))
	}
	for _, c := range terraformCases {
		got, diags := evalFunc(t, c.expr)
		if c.err != "" {
			if !diags.HasErrors() {
				t.Errorf("%s = %#v, want an error containing %q", c.expr, got, c.err)
			} else if msg := diags.Error(); !strings.Contains(msg, c.err) {
				t.Errorf("%s: error %s, want one containing %q", c.expr, msg, c.err)
			}
			continue
		}
		if diags.HasErrors() {
			t.Errorf("%s: %v, want %s", c.expr, diags, c.want)
			continue
		}
		if want := wantValue(t, c.want); !sameValue(got, want) {
			t.Errorf("%s = %#v, want %s (Terraform %s)", c.expr, got, c.want, terraformVersion)
		}
	}
}

// TestTerraformCasesCoverTable: issue 15. Every function cc offers is
// called by at least one case of the table.
func TestTerraformCasesCoverTable(t *testing.T) {
	for _, d := range Functions() {
		if d.Refused {
			continue
		}
		called := regexp.MustCompile(`\b` + d.Name + `\(`)
		found := false
		for _, c := range terraformCases {
			if called.MatchString(c.expr) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("no case calls %s", d.Name)
		}
	}
}
