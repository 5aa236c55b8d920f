package compiler

import (
	"errors"
	"fmt"
	"os"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/customdecode"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"
	"github.com/zclconf/go-cty/cty/function"

	"cc.dev/cc/localfs"
	"cc.dev/cc/schema"
)

// Terraform's templatefile and templatestring (issue 15). A template is
// evaluated with the configuration's functions (less these two: no
// recursion) and is counted by the same budget as the configuration, so a
// template's for loops are bounded as the configuration's are.

// templateFileFunc is templatefile(path, vars): the template in the file
// path (inside root) rendered with vars.
func templateFileFunc(root string, b *budget, fns func() map[string]function.Function) function.Function {
	return function.New(&function.Spec{
		Description: "Reads the file at the given path and renders its content as a template using a supplied set of template variables.",
		Params:      []function.Parameter{{Name: "path", Type: cty.String}, {Name: "vars", Type: cty.DynamicPseudoType}},
		Type:        function.StaticReturnType(cty.DynamicPseudoType),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			p := args[0].AsString()
			src, err := readTemplate(root, p)
			if err != nil {
				return cty.NilVal, function.NewArgError(0, err)
			}
			expr, diags := hclsyntax.ParseTemplate(src, p, hcl.InitialPos)
			if diags.HasErrors() {
				return cty.NilVal, diags
			}
			return renderTemplate(expr, args[1], b, templateFuncs(fns(), true))
		},
	})
}

// readTemplate reads a template file inside root.
func readTemplate(root, p string) ([]byte, error) {
	var f *os.File
	abs, err := insideRoot(root, p)
	if err == nil {
		localfs.Touch(abs)
		f, _, err = schema.OpenRegular(abs)
	}
	if err != nil {
		return nil, openError(p, err)
	}
	defer f.Close()
	src, err := readLimited(f, p, "templatefile()")
	if err == nil && !utf8.Valid(src) {
		err = fmt.Errorf("contents of %q are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead", p)
	}
	return src, err
}

// templateStringFunc is templatestring(ref, vars): the template held in
// the string ref refers to, rendered with vars. As in Terraform, ref must
// be a reference (a template written in place is just a string template),
// and the template may call no file function.
func templateStringFunc(b *budget, fns func() map[string]function.Function) function.Function {
	return function.New(&function.Spec{
		Description: "Renders a template given in a string value (a reference to it, not a template written in place) using a supplied set of template variables.",
		Params:      []function.Parameter{{Name: "template", Type: customdecode.ExpressionClosureType}, {Name: "vars", Type: cty.DynamicPseudoType}},
		Type:        function.StaticReturnType(cty.String),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			closure := customdecode.ExpressionClosureFromVal(args[0])
			if !isReference(closure.Expression) {
				return cty.NilVal, function.NewArgErrorf(0, "invalid template expression: must be a direct reference to a single string from elsewhere, containing valid Terraform template syntax")
			}
			tv, diags := closure.Value()
			if diags.HasErrors() {
				return cty.NilVal, function.NewArgErrorf(0, "invalid template expression: %s", diags.Error())
			}
			if !tv.IsKnown() {
				return cty.UnknownVal(cty.String), nil
			}
			tv, marks := tv.Unmark()
			if tv.Type() != cty.String || tv.IsNull() {
				return cty.NilVal, function.NewArgErrorf(0, "invalid template value: a string is required")
			}
			// A sensitive template is not an argument's value the call
			// sees (args[0] is the expression), so its errors, which
			// quote the template's text, are withheld here.
			hide := func(err error) error {
				if _, ok := marks[sensitiveMark]; ok {
					return withheld(err)
				}
				return err
			}
			expr, diags := hclsyntax.ParseTemplate([]byte(tv.AsString()), "<templatestring argument>", hcl.InitialPos)
			if diags.HasErrors() {
				return cty.NilVal, hide(function.NewArgErrorf(0, "invalid template: %s", diags.Error()))
			}
			v, err := renderTemplate(expr, args[1], b, templateFuncs(fns(), false))
			if err != nil {
				return cty.NilVal, hide(err)
			}
			if v, err = convert.Convert(v, cty.String); err != nil {
				return cty.NilVal, hide(fmt.Errorf("invalid template result: %s", err))
			}
			return v.WithMarks(marks), nil
		},
	})
}

// isReference tells an expression that refers to a value elsewhere.
func isReference(e hcl.Expression) bool {
	switch e := e.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		return true
	case *hclsyntax.RelativeTraversalExpr:
		return isReference(e.Source)
	case *hclsyntax.IndexExpr:
		return isReference(e.Collection)
	case *hclsyntax.SplatExpr:
		return isReference(e.Source)
	}
	return false
}

// templateFuncs are the functions a template may call: all but the
// template functions, and, unless fsOK, the file functions.
func templateFuncs(all map[string]function.Function, fsOK bool) map[string]function.Function {
	out := make(map[string]function.Function, len(all))
	for name, f := range all {
		out[name] = f
	}
	for _, name := range []string{"templatefile", "templatestring"} {
		out[name] = failing(all[name], fmt.Sprintf("cannot recursively call %s from inside another template function", name))
	}
	if !fsOK {
		for name := range fileFunctions("") {
			out[name] = failing(all[name], fmt.Sprintf("cannot use filesystem access functions like %s in templatestring templates; consider passing the function result as a template variable instead", name))
		}
		out["templatefile"] = failing(all["templatefile"], "cannot use filesystem access functions like templatefile in templatestring templates; consider passing the function result as a template variable instead")
	}
	return out
}

// failing is a function with f's parameters whose every call fails with
// msg.
func failing(f function.Function, msg string) function.Function {
	return function.New(&function.Spec{
		Params:   f.Params(),
		VarParam: f.VarParam(),
		Type:     func([]cty.Value) (cty.Type, error) { return cty.NilType, errors.New(msg) },
	})
}

// renderTemplate evaluates a template with vars (a map or an object) as
// its variables, each of which must be an identifier, and each variable
// it refers to given.
func renderTemplate(expr hclsyntax.Expression, vars cty.Value, b *budget, fns map[string]function.Function) (cty.Value, error) {
	if t := vars.Type(); !t.IsMapType() && !t.IsObjectType() {
		return cty.NilVal, function.NewArgErrorf(1, "invalid vars value: must be a map")
	}
	ctx := &hcl.EvalContext{Variables: vars.AsValueMap(), Functions: fns}
	for n := range ctx.Variables {
		if !hclsyntax.ValidIdentifier(n) {
			return cty.NilVal, function.NewArgErrorf(1, "invalid template variable name %q: must start with a letter, followed by zero or more letters, digits, and underscores", n)
		}
	}
	for _, t := range expr.Variables() {
		if _, ok := ctx.Variables[t.RootName()]; !ok {
			return cty.NilVal, function.NewArgErrorf(1, "vars map does not contain key %q, referenced at %s", t.RootName(), t[0].SourceRange())
		}
	}
	if b != nil {
		b.instrument(expr)
	}
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		return cty.NilVal, templateLimit(diags)
	}
	if v.IsNull() {
		return cty.NilVal, errors.New("the result of the template is null, which is not a valid result for a template")
	}
	return v, nil
}

// templateLimit is a template's limit error, if it hit one, saying where
// in the template (the loader reports it at the call, as any function's
// limit error); other diagnostics are returned as they are.
func templateLimit(diags hcl.Diagnostics) error {
	for _, d := range diags {
		extra, ok := hcl.DiagnosticExtra[hclsyntax.FunctionCallDiagExtra](d)
		var le *limitError
		if ok && errors.As(extra.FunctionCallError(), &le) && d.Subject != nil {
			return &limitError{fmt.Sprintf("%s: %s", d.Subject, le.msg)}
		}
	}
	return diags
}
