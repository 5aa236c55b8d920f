package compiler

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// Issue 12 (reuse): for_each and count. A resource block with
//
//	for_each = { a = "x", b = "y" }     each.key, each.value
//	count    = 2                        count.index
//
// declares one resource per key or index, its instances, named by member
// names worker["a"] and worker[0] (schema/address.go): their addresses are
// sandbox.worker["a"] and sandbox.worker[0]. The body is evaluated once per
// instance, keys in sorted order (Terraform's), so the desired state is the
// same whatever the order of the for_each value. A reference to the
// resource as a whole (image.base) is the object of its instances by key
// (for_each) or the tuple of them (count); image.base["a"] and image.base[0]
// are one instance.

// maxCount is the largest count a resource block may have.
const maxCount = 1000

// hclInstance is one instance of a repeated resource block.
type hclInstance struct {
	key    cty.Value // a string (for_each) or a number (count)
	member string    // worker["a"], worker[0]
	value  cty.Value
}

// repeated reports whether the block has for_each or count.
func (r *hclResource) repeated() bool { return r.forEach != nil || r.count != nil }

// splitRepetition takes for_each and count out of a resource block's body
// into r, refusing both at once.
func (l *hclLoader) splitRepetition(r *hclResource) {
	attrs := r.block.Body.Attributes
	fe, cnt := attrs["for_each"], attrs["count"]
	if fe == nil && cnt == nil {
		return
	}
	if fe != nil && cnt != nil {
		d := l.errorf(cnt.NameRange, "%s %q has both for_each and count: a block repeats by one of them", r.kind, r.name)
		d.Related = []diag.Range{*toRange(fe.NameRange)}
	}
	body := *r.block.Body
	body.Attributes = hclsyntax.Attributes{}
	for n, a := range attrs {
		if n != "for_each" && n != "count" {
			body.Attributes[n] = a
		}
	}
	blk := *r.block
	blk.Body = &body
	r.block, r.forEach, r.count = &blk, fe, cnt
}

// resourceDeps is what a resource block refers to: its body's references,
// with each, count and its dynamic blocks' iterators in scope, and its
// for_each or count's, with none of them.
func (l *hclLoader) resourceDeps(r *hclResource) []node {
	if r.deferred != nil {
		return l.deferredDeps(r.deferred)
	}
	var rep []hclsyntax.Expression
	scope := map[string]bool{}
	if r.forEach != nil {
		rep, scope["each"] = append(rep, r.forEach.Expr), true
	}
	if r.count != nil {
		rep, scope["count"] = append(rep, r.count.Expr), true
	}
	dynamicIterators(r.block.Body, scope)
	out := l.deps(rep)
	if !l.iteratorsOK(r.block.Body) {
		return out
	}
	l.iterScope = scope
	defer func() { l.iterScope = nil }()
	for _, n := range l.deps(bodyExprs(r.block.Body, nil)) {
		if !contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

// iterationRef checks a reference to each, count or a dynamic block's
// iterator; false when the reference is none of them.
func (l *hclLoader) iterationRef(tr hcl.Traversal) bool {
	root := tr.RootName()
	if l.iterScope[root] {
		return true
	}
	switch root {
	case "each":
		l.errorf(tr.SourceRange(), "each.key and each.value exist only in a resource block with for_each")
	case "count":
		l.errorf(tr.SourceRange(), "count.index exists only in a resource block with count")
	default:
		return false
	}
	return true
}

// evalInstances evaluates a repeated resource block: its for_each or
// count, then its body once per instance.
func (l *hclLoader) evalInstances(r *hclResource, coll string, sh *shape, label hcl.Range, ectx *hcl.EvalContext) {
	if l.unknownRepetition(r, coll, sh, label, ectx) {
		return
	}
	r.done, r.value = true, cty.DynamicVal
	var keys []cty.Value
	var name string
	if r.forEach != nil {
		keys, name = l.forEachKeys(r, ectx), "each"
	} else {
		keys, name = l.countKeys(r, ectx), "count"
	}
	if keys == nil && l.diags.HasErrors() {
		return
	}
	start := len(l.diags)
	var whose []string // the instance of each diagnostic from start
	for _, k := range keys {
		iter := map[string]cty.Value{"index": k}
		if r.forEach != nil {
			iter = map[string]cty.Value{"key": k, "value": r.eachValues[k.AsString()]}
		}
		member, _ := instanceMember(r.name, hcl.TraverseIndex{Key: k})
		path := append(strings.Split(coll, "."), member)
		l.ranges.set(path, r.block.DefRange(), label)
		obj := l.modulePaths(r.kind, l.evalBody(r.block.Body, sh, path, withVariable(ectx, name, cty.ObjectVal(iter))))
		for len(whose) < len(l.diags)-start {
			whose = append(whose, r.kind+"."+member)
		}
		if referable[r.kind] {
			obj["$id"] = cty.StringVal(r.kind + "." + member)
		}
		in := hclInstance{key: k, member: member, value: cty.ObjectVal(obj)}
		r.instances = append(r.instances, in)
		l.p.noteSensitive(in.value)
		if l.col != nil && !l.diags.HasErrors() {
			l.col.add(item{coll: coll, name: member, val: in.value})
		}
	}
	for len(whose) < len(l.diags)-start {
		whose = append(whose, r.kind+"."+r.name)
	}
	l.diags = append(l.diags[:start], nameInstances(l.diags[start:], whose)...)
	r.value = r.wholeValue()
}

// nameInstances gives the diagnostics ds, each of the instance whose[i]
// of a repeated resource ("" for none), one for each problem: every
// instance points at the same place, so a problem says whose it is
// ("sandbox.w[1]: ...", "sandbox.w[1] and sandbox.w[4]: ...",
// "sandbox.w[0] and 29 other instances: ...").
func nameInstances(ds diag.Diagnostics, whose []string) diag.Diagnostics {
	type key struct {
		at            diag.Pos
		file          string
		summary, more string
	}
	var out diag.Diagnostics
	of := map[key][]string{}
	first := map[key]*diag.Diagnostic{}
	for i, d := range ds {
		if i >= len(whose) || whose[i] == "" {
			out = append(out, d)
			continue
		}
		k := key{summary: d.Summary, more: d.Detail}
		if d.Subject != nil {
			k.at, k.file = d.Subject.Start, d.Subject.File
		}
		if _, ok := first[k]; !ok {
			first[k] = d
			out = append(out, d)
		}
		if m := of[k]; len(m) == 0 || m[len(m)-1] != whose[i] {
			of[k] = append(m, whose[i])
		}
	}
	for k, d := range first {
		switch m := of[k]; len(m) {
		case 1:
			d.Summary = m[0] + ": " + d.Summary
		case 2:
			d.Summary = m[0] + " and " + m[1] + ": " + d.Summary
		default:
			d.Summary = fmt.Sprintf("%s and %d other instances: %s", m[0], len(m)-1, d.Summary)
		}
	}
	return out
}

// wholeValue is what a reference to the whole repeated resource gives:
// the object of its instances by key, or the tuple of them by index.
func (r *hclResource) wholeValue() cty.Value {
	if r.count != nil {
		vals := make([]cty.Value, len(r.instances))
		for i, in := range r.instances {
			vals[i] = in.value
		}
		return cty.TupleVal(vals)
	}
	m := map[string]cty.Value{}
	for _, in := range r.instances {
		m[in.key.AsString()] = in.value
	}
	return cty.ObjectVal(m)
}

// withVariable is ectx with one more variable.
func withVariable(ectx *hcl.EvalContext, name string, v cty.Value) *hcl.EvalContext {
	vars := make(map[string]cty.Value, len(ectx.Variables)+1)
	for k, x := range ectx.Variables {
		vars[k] = x
	}
	vars[name] = v
	return &hcl.EvalContext{Variables: vars, Functions: ectx.Functions}
}

// forEachKeys evaluates a for_each into its keys, sorted, noting each
// key's value in r.eachValues: a map or object, or a set, list or tuple
// of strings (each.value is each.key).
func (l *hclLoader) forEachKeys(r *hclResource, ectx *hcl.EvalContext) []cty.Value {
	a := r.forEach
	v, hd := a.Expr.Value(ectx)
	l.add(hd)
	if hd.HasErrors() {
		return nil
	}
	switch {
	case v.IsNull() || !v.IsWhollyKnown():
		l.errorf(a.Expr.Range(), "for_each must be a known map or set of strings, not null")
		return nil
	case v.ContainsMarked():
		l.errorf(a.Expr.Range(), "for_each must not come from a sensitive value: its keys become addresses, shown in plans")
		return nil
	case secretRef(v):
		l.errorf(a.Expr.Range(), "for_each must not be a secret: a secret is where a value comes from, not a collection; iterate over a map of secrets instead")
		return nil
	}
	ty := v.Type()
	vals := map[string]cty.Value{}
	switch {
	case ty.IsMapType() || ty.IsObjectType():
		for it := v.ElementIterator(); it.Next(); {
			k, x := it.Element()
			vals[k.AsString()] = x
		}
	case ty.IsSetType() || ty.IsListType() || ty.IsTupleType():
		for it := v.ElementIterator(); it.Next(); {
			_, x := it.Element()
			if x.IsNull() || x.Type() != cty.String {
				l.errorf(a.Expr.Range(), "for_each over a set or list takes strings: use a map for other values")
				return nil
			}
			if _, dup := vals[x.AsString()]; dup {
				l.errorf(a.Expr.Range(), "for_each has key %q twice", x.AsString())
				return nil
			}
			vals[x.AsString()] = x
		}
	default:
		l.errorf(a.Expr.Range(), "for_each must be a map or a set of strings, not %s", ty.FriendlyName())
		return nil
	}
	return l.checkedKeys(r, vals)
}

// checkedKeys refuses keys outside the address grammar and gives the
// rest sorted (byte order, as Terraform's).
func (l *hclLoader) checkedKeys(r *hclResource, vals map[string]cty.Value) []cty.Value {
	names := sortedKeys(vals)
	out := make([]cty.Value, 0, len(names))
	for _, k := range names {
		if !schema.ValidMember(hclKinds[r.kind], r.name+`["`+k+`"]`) {
			l.errorf(r.forEach.Expr.Range(), "for_each key %q cannot be an instance key: 1 to 63 letters, digits, \"_\", \"-\" and \".\", starting with a letter, a digit or \"_\"", k)
			return nil
		}
		out = append(out, cty.StringVal(k))
	}
	r.eachValues = vals
	return out
}

// countKeys evaluates a count into its indexes: a whole number from 0 to
// maxCount.
func (l *hclLoader) countKeys(r *hclResource, ectx *hcl.EvalContext) []cty.Value {
	a := r.count
	v, hd := a.Expr.Value(ectx)
	l.add(hd)
	if hd.HasErrors() {
		return nil
	}
	if v.ContainsMarked() {
		l.errorf(a.Expr.Range(), "count must not come from a sensitive value: its indexes become addresses, shown in plans")
		return nil
	}
	if v.IsNull() || !v.IsKnown() || v.Type() != cty.Number {
		l.errorf(a.Expr.Range(), "count must be a whole number from 0 to %d", maxCount)
		return nil
	}
	f := v.AsBigFloat()
	n, acc := f.Int64()
	if acc != big.Exact || n < 0 || n > maxCount {
		l.errorf(a.Expr.Range(), "count must be a whole number from 0 to %d, not %s", maxCount, f.Text('g', 10))
		return nil
	}
	out := make([]cty.Value, n)
	for i := range out {
		out[i] = cty.NumberIntVal(int64(i))
	}
	if n == 0 {
		return []cty.Value{}
	}
	return out
}

// putInstances writes a repeated resource's instances into its
// collection m of the assembled configuration, whose path is coll
// (["sandboxes"], ["data", "volumes"]): each instance's sensitive values
// are noted under coll and its member name. False when r is not
// repeated.
func (l *hclLoader) putInstances(m map[string]any, r *hclResource, coll []string, keep func(member string) bool) bool {
	if !r.repeated() {
		return false
	}
	at := func(member string) []string {
		return append(append(make([]string, 0, len(coll)+1), coll...), member)
	}
	if r.unknownBody != cty.NilVal && keep(r.name) {
		m[r.name] = ctyToGo(r.unknownBody, at(r.name), &l.ranges.sensitive)
	}
	for _, in := range r.instances {
		if keep(in.member) {
			m[in.member] = ctyToGo(in.value, at(in.member), &l.ranges.sensitive)
		}
	}
	return true
}

// instanceMember is the member name a traversal's index step gives after
// a resource's name: worker["a"], worker[0]; false when the step is no
// instance key.
func instanceMember(name string, step hcl.Traverser) (string, bool) {
	ix, ok := step.(hcl.TraverseIndex)
	if !ok || ix.Key.IsNull() || !ix.Key.IsKnown() {
		return "", false
	}
	switch ix.Key.Type() {
	case cty.String:
		return name + "[" + strconv.Quote(ix.Key.AsString()) + "]", true
	case cty.Number:
		return name + "[" + ix.Key.AsBigFloat().Text('f', -1) + "]", true
	}
	return "", false
}

// someRepeated reports whether a resource of the loader has for_each or
// count: only then can a reference name an instance (issue 13:
// instanceRefs walked every expression of every resource once more).
// Every resource is collected before the first is evaluated.
func (l *hclLoader) someRepeated() bool {
	if l.repeats == 0 {
		l.repeats = 1
		for _, r := range l.resources {
			if r.repeated() {
				l.repeats = 2
				break
			}
		}
	}
	return l.repeats == 2
}

// instanceRefs checks the references to instances (image.base["a"]) under
// exprs against the instances the referred-to resources have, with
// did-you-mean; false when one names no instance (reported).
func (l *hclLoader) instanceRefs(exprs []hclsyntax.Expression) bool {
	ok := true
	for _, e := range exprs {
		for _, tr := range e.Variables() {
			if !referable[tr.RootName()] || len(tr) < 3 {
				continue
			}
			name, _, _ := traversalAttr(tr)
			r := l.resources[tr.RootName()+"."+name]
			if r == nil || !r.repeated() || !r.done || r.value == cty.DynamicVal {
				continue
			}
			if !l.instanceExists(r, tr) {
				ok = false
			}
		}
	}
	return ok
}

// instanceExists reports, when it is false, a reference tr to an instance
// r does not have.
func (l *hclLoader) instanceExists(r *hclResource, tr hcl.Traversal) bool {
	ix, isIndex := tr[2].(hcl.TraverseIndex)
	if !isIndex {
		d := l.errorf(tr.SourceRange(), "%s.%s has instances: refer to one as %s.%s[KEY]", r.kind, r.name, r.kind, r.name)
		d.Detail = "or use the whole resource in a for expression or values()"
		return false
	}
	var names []string
	for _, in := range r.instances {
		if in.key.Equals(ix.Key).True() {
			return true
		}
		names = append(names, schema.InstanceKey(in.member))
	}
	key := ix.Key.GoString()
	if m, ok := instanceMember("", ix); ok {
		key = m
	}
	d := l.errorf(hcl.RangeBetween(tr[0].SourceRange(), ix.SrcRange), "reference to %s.%s%s, an instance %s.%s does not have", r.kind, r.name, key, r.kind, r.name)
	if s := diag.Suggest(key, names); s != "" {
		d.Summary += fmt.Sprintf("; did you mean %s.%s%s?", r.kind, r.name, s)
	} else if len(names) > 0 {
		d.Detail = "its instances: " + strings.Join(names, ", ")
	}
	return false
}

// lifecycleMember is the member name a moved, removed or import block's
// reference tr names: attr, or an instance of it (sandbox.worker["a"]).
func lifecycleMember(k schema.Kind, attr string, tr hcl.Traversal) (string, bool) {
	if len(tr) == 2 {
		return attr, true
	}
	m, ok := instanceMember(attr, tr[2])
	return m, ok && schema.ValidMember(k, m)
}

// secretRef reports whether v is a secret (secret.x, data.secret.x) as a
// reference gives it.
func secretRef(v cty.Value) bool {
	if !v.Type().IsObjectType() || !v.Type().HasAttribute("$id") {
		return false
	}
	id := v.GetAttr("$id")
	if id.Type() != cty.String || !id.IsKnown() || id.IsNull() {
		return false
	}
	k := strings.TrimPrefix(id.AsString(), "data.")
	return strings.HasPrefix(k, "secret.")
}
