package compiler

import (
	"encoding/json"
	"fmt"

	"cuelang.org/go/cue"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/convert"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// Outputs (issue 12: outputs). HCL: output "url" { value = EXPR,
// description = "...", sensitive = BOOL } at the project root, evaluated
// after the resources with what they may refer to. CUE: outputs: url:
// {value: ..., description?: string, sensitive?: bool}. Both give the
// Desired state's Outputs, sorted by name. An output whose value derives
// from a sensitive value (a sensitive variable, a secret) must say
// sensitive, as Terraform requires.

// sensitiveOutputSummary is the error of an output that shows a sensitive
// value without saying so; Terraform's words.
const sensitiveOutputSummary = "Output refers to sensitive values"

func sensitiveOutputDetail(name string) string {
	return fmt.Sprintf("output %q derives from a sensitive value (a sensitive variable or a secret); to show it only when asked for, add sensitive = true (CUE: sensitive: true)", name)
}

// collectOutput records an output block, the project's or a module's,
// refusing a wrong label and a second declaration.
func (l *hclLoader) collectOutput(b *hclsyntax.Block) {
	if len(b.Labels) != 1 {
		l.errorf(b.DefRange(), "an output block has one label, its name: output \"name\" { ... }")
		return
	}
	name := b.Labels[0]
	if !schema.ValidOutputName(name) {
		l.errorf(b.LabelRanges[0], "output name %q: want an identifier (letters, digits, _ and -, starting with a letter or _), at most 64 characters", name)
		return
	}
	for _, prev := range l.outputBlocks {
		if prev.Labels[0] == name {
			d := l.errorf(b.LabelRanges[0], "output %q is defined twice", name)
			d.Related = []diag.Range{*toRange(prev.LabelRanges[0])}
			return
		}
	}
	l.outputBlocks = append(l.outputBlocks, b)
	if l.scope != nil {
		// A module's outputs are module.NAME.OUTPUT in its caller
		// (hclmodules.go outputValues).
		l.scope.outputs[name] = b
	}
}

// outputAttrs are an output block's attributes.
var outputAttrs = []string{"value", "description", "sensitive"}

// evalOutputs evaluates the output blocks, once the resources are.
func (l *hclLoader) evalOutputs() []schema.Output {
	var outs []schema.Output
	for _, b := range l.outputBlocks {
		if o, ok := l.evalOutput(b); ok {
			outs = append(outs, o)
		}
	}
	schema.SortOutputs(outs)
	return outs
}

func (l *hclLoader) evalOutput(b *hclsyntax.Block) (schema.Output, bool) {
	name := b.Labels[0]
	o := schema.Output{Name: name, Range: toRange(b.LabelRanges[0])}
	for _, nb := range b.Body.Blocks {
		l.errorf(nb.TypeRange, "an output block holds only the attributes value, description and sensitive, not %s blocks", nb.Type)
	}
	for _, a := range sortedAttrs(b.Body.Attributes) {
		switch a.Name {
		case "value", "description", "sensitive":
		default:
			d := l.errorf(a.NameRange, "unknown attribute %q in output %q", a.Name, name)
			if s := diag.Suggest(a.Name, outputAttrs); s != "" {
				d.Summary += fmt.Sprintf("; did you mean %q?", s)
			}
		}
	}
	attrs := b.Body.Attributes
	va := attrs["value"]
	if va == nil {
		l.errorf(b.DefRange(), "output %q needs a value: value = EXPR", name)
		return o, false
	}
	if a := attrs["description"]; a != nil {
		v, ok := l.outputAttr(a, cty.String)
		if ok {
			o.Description = v.AsString()
		}
	}
	if a := attrs["sensitive"]; a != nil {
		v, ok := l.outputAttr(a, cty.Bool)
		if ok {
			o.Sensitive = v.True()
		}
	}
	v, hd := va.Expr.Value(l.evalContext(l.deps([]hclsyntax.Expression{va.Expr})))
	l.add(hd)
	if hd.HasErrors() {
		return o, false
	}
	if !v.IsWhollyKnown() && !l.p.unknownVars {
		// An error already reported (in a module it refers to, say)
		// leaves values unknown: no second error for it.
		if !l.diags.HasErrors() {
			l.errorf(va.Expr.Range(), "output %q: its value is not known until apply; outputs of values only known after apply are not supported yet", name)
		}
		return o, false
	}
	if (v.ContainsMarked() || refersToSecret(va.Expr)) && !o.Sensitive {
		d := l.errorf(va.Expr.Range(), "%s", sensitiveOutputSummary)
		d.Detail = sensitiveOutputDetail(name)
		return o, false
	}
	v, _ = l.known(v, va.Expr.Range())
	l.p.noteSensitive(v)
	plain, _ := v.UnmarkDeep()
	// A resource in the value shows its attributes, not cc's "$id" of it.
	raw, err := schema.Canonical(stripIDs(ctyToGo(plain, nil, nil)))
	if err != nil {
		l.errorf(va.Expr.Range(), "output %q: %v", name, err)
		return o, false
	}
	o.Value = raw
	return o, true
}

// outputAttr evaluates a description or sensitive attribute, which may
// use variables and locals, as a known value of type ty.
func (l *hclLoader) outputAttr(a *hclsyntax.Attribute, ty cty.Type) (cty.Value, bool) {
	v, hd := a.Expr.Value(l.evalContext(l.deps([]hclsyntax.Expression{a.Expr})))
	l.add(hd)
	if hd.HasErrors() {
		return v, false
	}
	if v.ContainsMarked() {
		l.errorf(a.Expr.Range(), "an output's %s cannot derive from a sensitive value", a.Name)
		return v, false
	}
	cv, err := convert.Convert(v, ty)
	if err != nil || cv.IsNull() || !cv.IsKnown() {
		l.errorf(a.Expr.Range(), "an output's %s must be a %s", a.Name, ty.FriendlyName())
		return v, false
	}
	return cv, true
}

// refersToSecret reports whether the expression refers to a secret
// (secret.x, data.secret.x).
func refersToSecret(e hcl.Expression) bool {
	for _, tr := range e.Variables() {
		root := tr.RootName()
		if root == "secret" {
			return true
		}
		if root == "data" && len(tr) > 1 {
			if a, ok := tr[1].(hcl.TraverseAttr); ok && a.Name == "secret" {
				return true
			}
		}
	}
	return false
}

// cueOutputs reads the outputs of a CUE configuration v (already checked
// against #Config, so each is a concrete #Output).
func cueOutputs(p *project, v cue.Value) ([]schema.Output, diag.Diagnostics) {
	ov := v.LookupPath(cue.ParsePath("outputs"))
	if !ov.Exists() {
		return nil, nil
	}
	it, err := ov.Fields()
	if err != nil {
		return nil, nil
	}
	var outs []schema.Output
	var ds diag.Diagnostics
	for it.Next() {
		name := it.Selector().Unquoted()
		val := it.Value()
		rng := p.rangeOfPos(val.Pos())
		var co struct {
			Value       json.RawMessage `json:"value"`
			Description string          `json:"description"`
			Sensitive   bool            `json:"sensitive"`
		}
		if err := val.Decode(&co); err != nil {
			ds = append(ds, diag.Errorf(rng, "output %q: %v", name, err))
			continue
		}
		vv := val.LookupPath(cue.ParsePath("value"))
		if cueRefersToSecret(vv) && !co.Sensitive {
			d := diag.Errorf(p.rangeOfPos(vv.Pos()), "%s", sensitiveOutputSummary)
			d.Detail = sensitiveOutputDetail(name)
			ds = append(ds, d)
			continue
		}
		raw, err := schema.Canonical(co.Value)
		if err != nil {
			ds = append(ds, diag.Errorf(rng, "output %q: %v", name, err))
			continue
		}
		outs = append(outs, schema.Output{Name: name, Value: raw, Description: co.Description, Sensitive: co.Sensitive, Range: rng})
	}
	schema.SortOutputs(outs)
	return outs, ds
}

// cueRefersToSecret reports whether the value is, or holds, a reference
// into secrets.
func cueRefersToSecret(v cue.Value) bool {
	found := false
	v.Walk(func(x cue.Value) bool {
		if found {
			return false
		}
		if _, ref := x.ReferencePath(); len(ref.Selectors()) > 0 && ref.Selectors()[0].String() == "secrets" {
			found = true
		}
		return !found
	}, nil)
	if !found {
		if _, ref := v.ReferencePath(); len(ref.Selectors()) > 0 && ref.Selectors()[0].String() == "secrets" {
			found = true
		}
	}
	return found
}
