package compiler

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"cc.dev/cc/diag"
	"cc.dev/cc/localfs"
	"cc.dev/cc/schema"
)

// HCL local modules (issue 12: modules). A module block
//
//	module "api" { source = "./modules/service"  image = image.base }
//
// loads the .hcl files of a directory of the project as a configuration
// of its own: its variables take the block's other attributes as values,
// its locals and resources are its own (image.base inside it is the
// module's image), and its output blocks are what the caller sees as
// module.api.NAME. Its resources join the project's with member names
// "module.api.NAME" (addresses module.api.sandbox.web). A module is one
// node of its caller's graph: it waits for what its inputs refer to, and
// whatever refers to its outputs waits for all of it.

// maxModuleDepth is how deeply modules may call modules.
const maxModuleDepth = 8

// hclModule is a module block of a configuration and the loader of the
// module's own files.
type hclModule struct {
	name   string
	block  *hclsyntax.Block
	inputs []*hclsyntax.Attribute
	child  *hclLoader
	value  cty.Value
	done   bool
}

// moduleScope is what a module's loader knows of where it is.
type moduleScope struct {
	// prefix is the module path of member names: "module.api.".
	prefix string
	// dir is the module's directory (absolute); chain lists it and the
	// directories of the modules calling it, for cycles of sources.
	dir   string
	chain []string
	// root is the project's loader, which holds every resource once
	// evaluated.
	root *hclLoader
	// outputs are the module's output blocks, by name.
	outputs map[string]*hclsyntax.Block
}

// memberName is a resource's member name in the loader's module.
func (l *hclLoader) memberName(label string) string {
	if l.scope == nil {
		return label
	}
	return l.scope.prefix + label
}

// scopedID is the "$id" of a resource node ("image.base"): its kind and
// member name ("image.module.api.base").
func (l *hclLoader) scopedID(n node) string {
	if l.scope == nil {
		return n
	}
	k, name, _ := strings.Cut(n, ".")
	return k + "." + l.scope.prefix + name
}

// callerDir is the directory a module block's relative source starts at.
func (l *hclLoader) callerDir(b *hclsyntax.Block) string {
	if l.scope != nil {
		return l.scope.dir
	}
	return filepath.Dir(l.absFile(b.TypeRange.Filename))
}

// absFile turns a displayed file name back into its absolute path.
func (l *hclLoader) absFile(display string) string {
	for _, f := range l.p.files {
		if l.p.display(f) == display {
			return f
		}
	}
	return filepath.Join(l.p.root, display)
}

// collectModule records a module block and loads the module's files.
func (l *hclLoader) collectModule(b *hclsyntax.Block) {
	if len(b.Labels) != 1 {
		l.errorf(b.DefRange(), `a module block has one label, its name: module "api" { source = "./modules/NAME" }`)
		return
	}
	name := b.Labels[0]
	if !schema.ValidName(name) {
		l.errorf(b.LabelRanges[0], "%q is not a valid module name: a lowercase DNS label", name)
		return
	}
	n := "module." + name
	if prev := l.modules[n]; prev != nil {
		d := l.errorf(b.DefRange(), "module %q is defined twice", name)
		d.Related = []diag.Range{*toRange(prev.block.DefRange())}
		return
	}
	m := &hclModule{name: name, block: b}
	dir, ok := l.moduleHeader(m)
	if !ok {
		return
	}
	if l.modules == nil {
		l.modules = map[node]*hclModule{}
	}
	l.modules[n] = m
	l.moduleOrder = append(l.moduleOrder, n)
	m.child = l.loadModule(m, dir)
}

// moduleHeader checks a module block's attributes and nested blocks,
// sorting its inputs out, and returns the module's directory.
func (l *hclLoader) moduleHeader(m *hclModule) (string, bool) {
	b := m.block
	for _, nb := range b.Body.Blocks {
		l.errorf(nb.DefRange(), "a module block holds only source and the module's inputs (attributes), not %s blocks", nb.Type)
	}
	var src *hclsyntax.Attribute
	for _, a := range sortedAttrs(b.Body.Attributes) {
		switch a.Name {
		case "source":
			src = a
		case "count", "for_each":
			l.errorf(a.NameRange, "%s on a module block is not supported: write one module block per instance", a.Name)
		case "depends_on", "providers", "version":
			l.errorf(a.NameRange, "%s on a module block is not supported: a module waits for what its inputs refer to", a.Name)
		default:
			m.inputs = append(m.inputs, a)
		}
	}
	if src == nil {
		l.errorf(b.DefRange(), `module %q has no source: add source = "./modules/NAME", a directory of the project`, m.name)
		return "", false
	}
	return l.moduleDir(b, src)
}

// moduleDir resolves a module's source: a literal relative path to a
// directory inside the project, starting with "./" or "../".
func (l *hclLoader) moduleDir(b *hclsyntax.Block, src *hclsyntax.Attribute) (string, bool) {
	v, hd := src.Expr.Value(nil)
	if hd.HasErrors() || v.Type() != cty.String || v.IsNull() {
		l.errorf(src.Expr.Range(), `source must be a literal string: source = "./modules/NAME"`)
		return "", false
	}
	s := v.AsString()
	bad := func(why string) (string, bool) {
		d := l.errorf(src.Expr.Range(), "module source %q: %s", s, why)
		d.Detail = `only local modules are supported: a directory of the project, relative to the file of the module block, starting with "./" or "../" (source = "./modules/service")`
		return "", false
	}
	switch {
	case filepath.IsAbs(s) || strings.HasPrefix(s, "/"):
		return bad("an absolute path is not supported")
	case strings.Contains(s, "::") || strings.Contains(s, "://") || strings.HasPrefix(s, "git@"):
		return bad("remote sources (git, http, registries) are not supported")
	case !strings.HasPrefix(s, "./") && !strings.HasPrefix(s, "../"):
		return bad(`registry sources are not supported; a local path starts with "./" or "../"`)
	}
	// The one policy for a path of the project (localfs.Resolve): inside
	// the root and out of its .cc, symbolic links resolved.
	dir, err := localfs.Resolve(l.p.root, localfs.RelTo(l.p.root, filepath.Join(l.callerDir(b), filepath.FromSlash(s))))
	switch {
	case errors.Is(err, localfs.ErrOutsideRoot):
		return bad("it is outside the project directory")
	case errors.Is(err, localfs.ErrStateDir):
		return bad("it is in .cc, cc's own state directory")
	case err != nil:
		return bad("no such directory")
	case dir == l.p.root:
		return bad("it is the project directory itself")
	}
	localfs.Touch(dir)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return bad("no such directory")
	}
	return dir, true
}

// loadModule makes the loader of a module's files, parses them and
// collects their blocks and variables; nil when they cannot be loaded.
func (l *hclLoader) loadModule(m *hclModule, dir string) *hclLoader {
	var chain []string
	if l.scope != nil {
		chain = l.scope.chain
	}
	for _, c := range chain {
		if c == dir {
			l.errorf(m.block.DefRange(), "module %q: a cycle of module sources: %s calls itself", m.name, l.p.display(dir))
			return nil
		}
	}
	if len(chain) >= maxModuleDepth {
		l.errorf(m.block.DefRange(), "module %q: modules call modules more than %d deep", m.name, maxModuleDepth)
		return nil
	}
	c := l.childLoader(m, dir, append(append([]string{}, chain...), dir))
	bodies := c.parseModule(m)
	var varBlocks []*hclsyntax.Block
	for _, b := range bodies {
		varBlocks = append(varBlocks, c.collect(c.moduleBody(b))...)
	}
	c.declareVariables(varBlocks)
	l.diags = append(l.diags, c.diags...)
	c.diags = nil
	return c
}

// childLoader is a module's loader: its own variables, locals, resources
// and modules; the project, functions, budget and locator of its caller.
func (l *hclLoader) childLoader(m *hclModule, dir string, chain []string) *hclLoader {
	root := l
	prefix := "module." + m.name + "."
	if l.scope != nil {
		root, prefix = l.scope.root, l.scope.prefix+prefix
	}
	return &hclLoader{
		p: l.p, funcs: l.funcs, budget: l.budget, ranges: l.ranges, shared: l.shared,
		vars: map[string]*hclVariable{}, locals: map[string]*hclLocal{}, resources: map[string]*hclResource{},
		scope: &moduleScope{prefix: prefix, dir: dir, chain: chain, root: root, outputs: map[string]*hclsyntax.Block{}},
	}
}

// parseModule parses the .hcl files of a module's directory.
func (l *hclLoader) parseModule(m *hclModule) []*hclsyntax.Body {
	localfs.Touch(l.scope.dir)
	entries, err := os.ReadDir(l.scope.dir)
	if err != nil {
		l.errorf(m.block.DefRange(), "module %q: %v", m.name, unwrapPathError(err))
		return nil
	}
	var bodies []*hclsyntax.Body
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".hcl" {
			continue
		}
		abs := filepath.Join(l.scope.dir, e.Name())
		src, err := l.p.readConfig(abs)
		if err != nil {
			l.errorf(m.block.DefRange(), "module %q: %v", m.name, err)
			continue
		}
		if body := l.parseSource(abs, src); body != nil {
			bodies = append(bodies, body)
		}
	}
	if len(bodies) == 0 && !l.diags.HasErrors() {
		l.errorf(m.block.DefRange(), "module %q: no .hcl files in %s", m.name, l.p.display(l.scope.dir))
	}
	return bodies
}

// moduleRefused are the top-level blocks a module may not hold, and why.
var moduleRefused = map[string]string{
	"defaults": "defaults are the root configuration's: they apply to the module's resources too",
	"moved":    "moved blocks are the root configuration's: write module addresses there (to = module.api.sandbox.web)",
	"removed":  "removed blocks are the root configuration's",
	"import":   "import blocks are the root configuration's",
	"data":     "data sources are the root configuration's: pass them to the module as inputs",
}

// moduleBody is a module file's body without what a module may not hold
// (refused with a position) and without its outputs (recorded).
func (l *hclLoader) moduleBody(b *hclsyntax.Body) *hclsyntax.Body {
	for _, a := range sortedAttrs(b.Attributes) {
		if a.Name == "project" {
			l.errorf(a.NameRange, "a module sets no project: the project is the root configuration's")
		} else {
			l.errorf(a.NameRange, "unknown attribute %q: a module holds only variable, locals, output, module and resource blocks", a.Name)
		}
	}
	out := &hclsyntax.Body{SrcRange: b.SrcRange, EndRange: b.EndRange}
	for _, nb := range b.Blocks {
		if why, ok := moduleRefused[nb.Type]; ok {
			l.errorf(nb.TypeRange, "a module cannot hold %s blocks: %s", nb.Type, why)
			continue
		}
		if nb.Type == "output" {
			l.collectOutput(nb)
			continue
		}
		out.Blocks = append(out.Blocks, nb)
	}
	return out
}

// moduleNodes adds the modules to the evaluation graph: each waits for
// what its inputs refer to and for the defaults (which apply to its
// resources).
func (l *hclLoader) moduleNodes(graph map[node][]node, nodes []node) []node {
	for _, n := range l.moduleOrder {
		m := l.modules[n]
		var exprs []hclsyntax.Expression
		for _, a := range m.inputs {
			exprs = append(exprs, a.Expr)
		}
		nodes = append(nodes, n)
		graph[n] = append(l.deps(exprs), l.defaultOrder...)
	}
	return nodes
}

// checkModuleTraversal validates a reference module.NAME.OUTPUT and
// returns the module it depends on, or "".
func (l *hclLoader) checkModuleTraversal(tr hcl.Traversal) node {
	name, r, ok := traversalAttr(tr)
	if !ok {
		l.errorf(tr.SourceRange(), "a module's output is referred to as module.NAME.OUTPUT")
		return ""
	}
	n := "module." + name
	m := l.modules[n]
	if m == nil {
		d := l.errorf(hcl.RangeBetween(tr[0].SourceRange(), r), "reference to undefined module %q", name)
		var names []string
		for _, k := range l.moduleOrder {
			names = append(names, strings.TrimPrefix(k, "module."))
		}
		if s := suggestName(name, names); s != "" {
			d.Summary += fmt.Sprintf("; did you mean module.%s?", s)
		}
		return ""
	}
	if m.child == nil {
		return "" // its loading failed, and said why
	}
	out, orng, ok := traversalAttr(tr[1:])
	if !ok {
		l.errorf(tr.SourceRange(), "a module's output is referred to as module.%s.OUTPUT", name)
		return ""
	}
	if m.child.scope.outputs[out] == nil {
		d := l.errorf(hcl.RangeBetween(tr[0].SourceRange(), orng), "module %q has no output %q", name, out)
		if s := diag.Suggest(out, keys(m.child.scope.outputs)); s != "" {
			d.Summary += fmt.Sprintf("; did you mean module.%s.%s?", name, s)
		}
		return ""
	}
	return n
}

// evalModule evaluates a module: its inputs in the caller's context, then
// everything of the module, then its outputs, the module's value.
func (l *hclLoader) evalModule(m *hclModule, deps []node) {
	m.done, m.value = true, cty.DynamicVal
	c := m.child
	if c == nil {
		return
	}
	l.p.track.setf("evaluating module.%s (%s)", m.name, toRange(m.block.DefRange()))
	ectx := l.evalContext(deps)
	ok := l.setInputs(m, ectx)
	if ok {
		c.assignVariables(nil, nil)
	}
	if ok && !c.diags.HasErrors() {
		c.col = l.col
		c.evaluate()
		if !c.diags.HasErrors() {
			m.value = c.outputValues()
		}
		c.register()
	}
	l.diags = append(l.diags, c.diags...)
	c.diags = nil
}

// setInputs gives the module's variables the values of its block's
// inputs, refusing an input the module does not declare and a required
// variable left without a value; false on an error.
func (l *hclLoader) setInputs(m *hclModule, ectx *hcl.EvalContext) bool {
	c, ok := m.child, true
	for _, a := range m.inputs {
		v := c.vars[a.Name]
		if v == nil {
			d := l.errorf(a.NameRange, "module %q has no variable %q", m.name, a.Name)
			if s := diag.Suggest(a.Name, keys(c.vars)); s != "" {
				d.Summary += fmt.Sprintf("; did you mean %q?", s)
			}
			ok = false
			continue
		}
		l.dupKeys(a.Expr, ectx)
		val, hd := a.Expr.Value(ectx)
		l.add(hd)
		if hd.HasErrors() {
			ok = false
			continue
		}
		v.value, v.set, v.valueRange = val, true, a.Expr.Range()
	}
	for _, name := range keys(c.vars) {
		if v := c.vars[name]; !v.set {
			d := l.errorf(m.block.DefRange(), "module %q: no value for required variable %q", m.name, name)
			d.Detail = fmt.Sprintf("set it in the module block (%s = ...), or give the variable a default", name)
			d.Related = []diag.Range{*toRange(v.block.DefRange())}
			ok = false
		}
	}
	return ok
}

// outputValues evaluates a module's outputs into the object that
// module.NAME is in its caller; a sensitive output is marked so.
func (l *hclLoader) outputValues() cty.Value {
	obj := map[string]cty.Value{}
	for _, name := range keys(l.scope.outputs) {
		b := l.scope.outputs[name]
		val := l.outputValue(b)
		if sens, ok := b.Body.Attributes["sensitive"]; ok {
			sv, hd := sens.Expr.Value(nil)
			switch {
			case hd.HasErrors() || sv.Type() != cty.Bool || sv.IsNull():
				l.errorf(sens.Expr.Range(), "sensitive: want true or false")
			case sv.True():
				val = val.Mark(sensitiveMark)
				l.p.noteSensitive(val)
			}
		}
		if val.ContainsMarked() && !isTrue(b.Body.Attributes["sensitive"]) {
			d := l.errorf(b.Body.Attributes["value"].Expr.Range(), "%s", sensitiveOutputSummary)
			d.Detail = sensitiveOutputDetail(name)
		}
		obj[name] = val
	}
	return cty.ObjectVal(obj)
}

// isTrue reports whether an output's sensitive attribute is the literal
// true (outputValues has checked it is a bool).
func isTrue(a *hclsyntax.Attribute) bool {
	if a == nil {
		return false
	}
	v, hd := a.Expr.Value(nil)
	return !hd.HasErrors() && v.Type() == cty.Bool && !v.IsNull() && v.True()
}

// outputValue evaluates one output's value.
func (l *hclLoader) outputValue(b *hclsyntax.Block) cty.Value {
	a := b.Body.Attributes["value"]
	deps := l.deps([]hclsyntax.Expression{a.Expr})
	if l.diags.HasErrors() {
		return cty.DynamicVal
	}
	ectx := l.evalContext(deps)
	v, hd := a.Expr.Value(ectx)
	l.add(hd)
	if hd.HasErrors() {
		return cty.DynamicVal
	}
	return v
}

// register adds a module's evaluated resources to the project's loader,
// keyed by kind and member name, so that the configuration holds them.
func (l *hclLoader) register() {
	root := l.scope.root
	for _, addr := range l.order {
		r := l.resources[addr]
		key := r.kind + "." + r.name
		root.resources[key] = r
		root.order = append(root.order, key)
	}
}

// moduleAddressOf reads a moved block's address of a module's resource,
// module.api.sandbox.web, or of one of its instances,
// module.api.sandbox.web["a"] (issue 12: modules, instances).
func (l *hclLoader) moduleAddressOf(a *hclsyntax.Attribute, tr hcl.Traversal, path []string) (string, bool) {
	parts := moduleAddressParts(tr[1:])
	addr := "module." + strings.Join(parts, ".")
	k, _, ok := schema.ParseAddress(addr)
	switch {
	case len(parts) < 3 || !ok:
		l.errorf(a.Expr.Range(), "%s must name a module's resource as module.NAME.KIND.NAME (module.api.sandbox.web)", a.Name)
		return "", false
	case k == schema.KindImage:
		l.errorf(a.Expr.Range(), "an image is a value, addressed by its content: it needs no moved, removed or import")
		return "", false
	}
	l.ranges.set(path, a.Expr.Range(), a.NameRange)
	return addr, true
}

// moduleAddressParts are the steps of a module address after "module",
// the last one with its instance key if it has one; nil when a step is
// neither a name nor that last key.
func moduleAddressParts(steps hcl.Traversal) []string {
	var parts []string
	for i, s := range steps {
		if at, ok := s.(hcl.TraverseAttr); ok {
			parts = append(parts, at.Name)
			continue
		}
		if i != len(steps)-1 || len(parts) < 3 {
			return nil
		}
		m, ok := instanceMember(parts[len(parts)-1], s)
		if !ok {
			return nil
		}
		parts[len(parts)-1] = m
	}
	return parts
}

// pathObj is path: path.module is the directory of the module being
// evaluated and path.root the project's, relative to the project root
// ("modules/service" and "."), as the paths of local files are written
// (issue 12: modules).
func (l *hclLoader) pathObj() cty.Value {
	mod := "."
	if l.scope != nil {
		if rel, err := filepath.Rel(l.p.root, l.scope.dir); err == nil {
			mod = filepath.ToSlash(rel)
		}
	}
	return cty.ObjectVal(map[string]cty.Value{"module": cty.StringVal(mod), "root": cty.StringVal(".")})
}

// checkPathTraversal reports a reference path.X that is not path.module
// or path.root.
func (l *hclLoader) checkPathTraversal(tr hcl.Traversal) {
	name, r, ok := traversalAttr(tr)
	if !ok || name != "module" && name != "root" {
		l.errorf(hcl.RangeBetween(tr[0].SourceRange(), r), "path has path.module (the module's directory) and path.root (the project's)")
	}
}
