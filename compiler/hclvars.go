package compiler

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/ext/typeexpr"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/hashicorp/hcl/v2/json"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// hclVariable is a declared input variable.
type hclVariable struct {
	name        string
	block       *hclsyntax.Block
	typ         cty.Type
	defaults    *typeexpr.Defaults
	description string
	sensitive   bool
	validations []hclValidation
	value       cty.Value
	set         bool
	valueRange  hcl.Range
}

type hclValidation struct {
	condition hcl.Expression
	message   hcl.Expression
}

var variableSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "type"}, {Name: "default"}, {Name: "description"}, {Name: "sensitive"}, {Name: "nullable"},
	},
	Blocks: []hcl.BlockHeaderSchema{{Type: "validation"}},
}

var validationSchema = &hcl.BodySchema{
	Attributes: []hcl.AttributeSchema{
		{Name: "condition", Required: true}, {Name: "error_message", Required: true},
	},
}

// declareVariables reads variable blocks: type, default, description,
// sensitive and validation rules.
func (l *hclLoader) declareVariables(blocks []*hclsyntax.Block) {
	for _, b := range blocks {
		name := b.Labels[0]
		if prev := l.vars[name]; prev != nil {
			d := l.errorf(b.DefRange(), "variable %q is declared twice", name)
			d.Related = []diag.Range{*toRange(prev.block.DefRange())}
			continue
		}
		if !hclsyntax.ValidIdentifier(name) {
			l.errorf(b.LabelRanges[0], "invalid variable name %q", name)
			continue
		}
		v := &hclVariable{name: name, block: b, typ: cty.DynamicPseudoType}
		l.vars[name] = v
		content, hd := b.Body.Content(variableSchema)
		l.add(hd)
		if a := content.Attributes["type"]; a != nil {
			ty, defs, hd := typeexpr.TypeConstraintWithDefaults(a.Expr)
			l.add(hd)
			if !hd.HasErrors() {
				v.typ, v.defaults = ty, defs
			}
		}
		if a := content.Attributes["description"]; a != nil {
			dv, hd := a.Expr.Value(nil)
			l.add(hd)
			if !hd.HasErrors() && dv.Type() == cty.String && !dv.IsNull() {
				v.description = dv.AsString()
			}
		}
		if a := content.Attributes["sensitive"]; a != nil {
			sv, hd := a.Expr.Value(nil)
			l.add(hd)
			if !hd.HasErrors() {
				if sv.Type() != cty.Bool || sv.IsNull() {
					l.errorf(a.Expr.Range(), "sensitive: want true or false")
				} else {
					v.sensitive = sv.True()
				}
			}
		}
		if a := content.Attributes["default"]; a != nil {
			dv, hd := a.Expr.Value(&hcl.EvalContext{Functions: l.funcs})
			l.add(hd)
			if !hd.HasErrors() {
				v.value, v.set, v.valueRange = dv, true, a.Expr.Range()
			}
		}
		for _, vb := range content.Blocks {
			vc, hd := vb.Body.Content(validationSchema)
			l.add(hd)
			if hd.HasErrors() {
				continue
			}
			v.validations = append(v.validations, hclValidation{
				condition: vc.Attributes["condition"].Expr,
				message:   vc.Attributes["error_message"].Expr,
			})
		}
	}
}

// assignVariables applies CC_VAR_name environment variables, then the
// environment's variable file (env/ENV.ccvars.hcl), then -var-file files,
// then -var flags, converts every value to its declared type, runs the
// validation rules and builds var.
func (l *hclLoader) assignVariables(flags, files []string) {
	// CC_VAR_ and the environment's env file set the root module's
	// variables; a module's take its block's inputs alone (issue 12:
	// environments meet modules).
	if l.scope == nil {
		l.assignEnvVars(l.p.envVars)
		if l.p.envFile != "" {
			files = append([]string{l.p.envFile}, files...)
		}
	}
	for _, f := range files {
		l.readVarFile(f)
	}
	for _, kv := range flags {
		l.assignVarFlag(kv)
	}
	if l.diags.HasErrors() {
		return
	}
	obj := map[string]cty.Value{}
	for _, name := range keys(l.vars) {
		if val, ok := l.variableValue(name, l.vars[name]); ok {
			obj[name] = val
		}
	}
	l.varsObj = cty.ObjectVal(obj)
}

// assignVarFlag sets a variable from one -var name=value: a string for a
// string (or untyped) variable, else the value parsed as an HCL
// expression.
func (l *hclLoader) assignVarFlag(kv string) {
	name, raw, ok := strings.Cut(kv, "=")
	if !ok {
		l.diags = append(l.diags, diag.Errorf(nil, "--var %q: want name=value", kv))
		return
	}
	if l.vars[name] == nil {
		l.undeclared(name, nil)
		return
	}
	l.assignRaw(name, raw, "--var "+name)
}

// assignRaw sets declared variable name from the text raw of a -var flag
// or a CC_VAR_name environment variable (label names it in errors).
func (l *hclLoader) assignRaw(name, raw, label string) {
	v := l.vars[name]
	if v.sensitive {
		l.p.noteSensitive(cty.StringVal(raw).Mark(sensitiveMark))
	}
	if v.typ == cty.String || v.typ == cty.DynamicPseudoType {
		v.value, v.set, v.valueRange = cty.StringVal(raw), true, hcl.Range{Filename: label}
		return
	}
	expr, hd := hclsyntax.ParseExpression([]byte(raw), label, hcl.InitialPos)
	if _, bare := expr.(*hclsyntax.ScopeTraversalExpr); bare || hd.HasErrors() && !strings.ContainsAny(raw, "[{\"") {
		// A bare word (n=abc) is the string it spells, as Terraform
		// reads it: converted to the variable's type, its error says
		// what type is wanted, not "Variables not allowed" (issue 9
		// item 18).
		v.value, v.set, v.valueRange = cty.StringVal(raw), true, hcl.Range{Filename: label}
		return
	}
	l.add(hd)
	if hd.HasErrors() {
		return
	}
	l.budget.instrument(expr)
	val, hd := expr.Value(l.internalContext())
	l.add(noFunctions(hd))
	if !hd.HasErrors() {
		v.value, v.set, v.valueRange = val, true, expr.Range()
	}
}

// variableValue is a variable's value for var: its value or default,
// converted to its type and checked by its validation rules; ok is false
// when it has none or it does not convert.
func (l *hclLoader) variableValue(name string, v *hclVariable) (cty.Value, bool) {
	if !v.set && l.p.unknownVars {
		return unknownVariable(v), true
	}
	if !v.set {
		d := l.errorf(v.block.DefRange(), "no value for required variable %q", name)
		d.Detail = fmt.Sprintf("give it a default, or set it with --var %s=VALUE or in a --var-file", name)
		return cty.NilVal, false
	}
	val := v.value
	if v.sensitive {
		// Errors about a sensitive value point at its declaration, not
		// at the value (whose line a snippet would show), and never
		// quote it (scrub).
		l.p.noteSensitive(val.Mark(sensitiveMark))
		v.valueRange = v.block.DefRange()
	}
	if v.defaults != nil {
		val = v.defaults.Apply(val)
	}
	conv, err := convert.Convert(val, v.typ)
	if err != nil {
		d := diag.Errorf(rangeOrNil(v.valueRange), "invalid value for variable %q: %s", name, err)
		if d.Subject == nil {
			d.Subject = toRange(v.block.DefRange())
		}
		l.diags = append(l.diags, d)
		return cty.NilVal, false
	}
	// A sensitive value is marked before its validations run, so that
	// what they make of it is sensitive too: a function's error in a
	// condition, and an error message built from it.
	if v.sensitive {
		conv = conv.Mark(sensitiveMark)
		l.p.noteSensitive(conv)
	}
	for _, rule := range v.validations {
		l.validate(name, v, rule, conv)
	}
	return conv, true
}

// validate runs one validation rule of a variable on its converted value.
func (l *hclLoader) validate(name string, v *hclVariable, rule hclValidation, conv cty.Value) {
	ectx := &hcl.EvalContext{
		Variables: map[string]cty.Value{"var": cty.ObjectVal(map[string]cty.Value{name: conv})},
		Functions: l.funcs,
	}
	ok, hd := rule.condition.Value(ectx)
	l.add(hd)
	if hd.HasErrors() {
		return
	}
	ok, _ = ok.Unmark()
	if ok.Type() != cty.Bool || ok.IsNull() {
		l.errorf(rule.condition.Range(), "a validation condition must be true or false")
		return
	}
	if !ok.False() {
		return
	}
	msg, hd := rule.message.Value(ectx)
	text := "the value is not valid"
	switch {
	case hd.HasErrors() || msg.Type() != cty.String || msg.IsNull() || !msg.IsKnown():
	case msg.HasMarkDeep(sensitiveMark):
		// As Terraform does: the scrubber would hide the value quoted
		// whole, but not a part of it (substr(var.p, 0, 4)).
		text = "the value is not valid (its error message is withheld, as it is made from a sensitive value)"
	default:
		u, _ := msg.Unmark()
		text = u.AsString()
	}
	d := diag.Errorf(rangeOrNil(v.valueRange), "invalid value for variable %q: %s", name, text)
	if d.Subject == nil {
		d.Subject = toRange(rule.condition.Range())
	}
	d.Related = []diag.Range{*toRange(rule.condition.Range())}
	l.diags = append(l.diags, d)
}

func rangeOrNil(r hcl.Range) *diag.Range {
	if r.Start.Line == 0 {
		return nil
	}
	return toRange(r)
}

func (l *hclLoader) undeclared(name string, at *hcl.Range) {
	var rng *diag.Range
	if at != nil {
		rng = toRange(*at)
	}
	d := diag.Errorf(rng, "variable %q is not declared", name)
	if s := diag.Suggest(name, keys(l.vars)); s != "" {
		d.Summary += fmt.Sprintf("; did you mean %q?", s)
	} else {
		d.Detail = fmt.Sprintf(`declare it with variable %q { ... }`, name)
	}
	l.diags = append(l.diags, d)
}

// readVarFile reads a -var-file: HCL attributes (name = value), or JSON
// for a .json file.
func (l *hclLoader) readVarFile(path string) {
	src, err := l.p.readOnce(path)
	var tl *schema.TooLargeError
	switch {
	case errors.As(err, &tl):
		l.diags = append(l.diags, diag.Errorf(nil, "--var-file %s is larger than %s, the limit on a configuration file; raise it with --max-config-size", path, schema.FormatSize(l.p.maxSize)))
		return
	case err != nil:
		l.diags = append(l.diags, diag.Errorf(nil, "--var-file %s: %v", path, unwrapPathError(err)))
		return
	}
	l.p.sources[path] = src
	var f *hcl.File
	var hd hcl.Diagnostics
	if filepath.Ext(path) == ".json" {
		f, hd = json.Parse(src, path)
	} else {
		f, hd = hclsyntax.ParseConfig(src, path, hcl.InitialPos)
	}
	l.add(hd)
	if hd.HasErrors() {
		return
	}
	if body, ok := f.Body.(*hclsyntax.Body); ok {
		l.budget.instrument(body)
	}
	attrs, hd := f.Body.JustAttributes()
	l.add(hd)
	for _, a := range attrs {
		v := l.vars[a.Name]
		if v == nil {
			r := a.NameRange
			l.undeclared(a.Name, &r)
			continue
		}
		val, hd := a.Expr.Value(l.internalContext())
		l.add(noFunctions(hd))
		if !hd.HasErrors() {
			v.value, v.set, v.valueRange = val, true, a.Expr.Range()
		}
		if v.sensitive {
			// The file holds a sensitive value: no diagnostic shows a
			// snippet of it.
			delete(l.p.sources, path)
		}
	}
}
