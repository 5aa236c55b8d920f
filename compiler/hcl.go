package compiler

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"cuelang.org/go/cue"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// The HCL side: files are parsed, variables resolved, then locals and
// resources evaluated in dependency order, each with an evaluation context
// holding just what it refers to. The result is plain data, checked
// against the CUE schema exactly as a CUE configuration is. Every value
// keeps the source range of the expression it came from, keyed by its
// config path, so schema errors point back into the HCL.

// hclKinds are the top-level resource block types, by kind.
var hclKinds = map[string]schema.Kind{
	"image": schema.KindImage, "secret": schema.KindSecret, "volume": schema.KindVolume,
	"dataset": schema.KindDataset, "sandbox": schema.KindSandbox, "function": schema.KindFunction,
	"container": schema.KindContainer, "training": schema.KindTraining, "evaluation": schema.KindEvaluation, "scaling_group": schema.KindScalingGroup, "suite": schema.KindSuite,
}

// referable are the kinds other resources may refer to (image.base).
var referable = map[string]bool{"image": true, "secret": true, "volume": true, "dataset": true, "function": true, "suite": true}

// sensitiveMark marks values derived from sensitive variables.
const sensitiveMark = "sensitive"

type hclResource struct {
	kind string
	name string
	// dataKind is the kind of a data block (data "volume" "cache"), whose
	// kind is "data" (issue 10).
	dataKind schema.Kind
	block    *hclsyntax.Block
	// deferred holds the references of a plain block whose body the
	// parse let go, until evalNode parses it again (hcldefer.go).
	deferred *deferredBody
	value    cty.Value
	done     bool
	// dropped is set once the value is let go (hclrelease.go); sent once
	// the collector has it, which alone lets it go.
	dropped, sent bool
	// wholeKnown is 0 until knownAttr looks, then 1 when value is
	// wholly known, else 2.
	wholeKnown int8
	// forEach and count repeat the block; instances are what it
	// declares then, eachValues the for_each value by key
	// (hclinstances.go, issue 12).
	forEach, count *hclsyntax.Attribute
	instances      []hclInstance
	eachValues     map[string]cty.Value
	// unknownBody is the body checked once when the for_each or count
	// is unknown (hclunknownvars.go).
	unknownBody cty.Value
}

type hclLocal struct {
	name  string
	attr  *hclsyntax.Attribute
	value cty.Value
	done  bool
}

type hclLoader struct {
	p *project
	// ctxRoots are env and path's values, made once for every
	// evaluation context (evalContext).
	ctxRoots *[2]cty.Value
	// lastCtx is the context evalContext made last (knownAttr).
	lastCtx   *hcl.EvalContext
	funcs     map[string]function.Function
	vars      map[string]*hclVariable
	varsObj   cty.Value
	locals    map[string]*hclLocal
	resources map[string]*hclResource // by "kind.name"
	order     []string                // resources in source order
	project   *hclsyntax.Attribute
	// lifecycleBlocks are the moved, removed and import blocks, read
	// after the variables into lifecycle (lifecycle.go).
	lifecycleBlocks []*hclsyntax.Block
	lifecycle       hclLifecycle
	// outputBlocks are the output blocks, in source order (outputs.go).
	outputBlocks []*hclsyntax.Block
	// defaults are the kind blocks of defaults blocks, by their config
	// path (defaults.sandbox), in source order in defaultOrder; shared
	// is what they evaluate to (defaults_hcl.go).
	defaults     map[node]*hclDefault
	defaultOrder []node
	shared       *sharedDefaults
	ranges       *hclLocator
	diags        diag.Diagnostics
	cctx         *cue.Context
	sch          cue.Value
	col          *collector
	// budget counts what for expressions and templates produce (limits.go).
	budget *budget
	// omitted counts the HCL diagnostics past maxCollected.
	omitted int
	// modules are the module blocks, by node ("module.api"), in source
	// order in moduleOrder; scope is set in a module's own loader
	// (hclmodules.go).
	modules     map[node]*hclModule
	moduleOrder []node
	scope       *moduleScope
	// iterScope are the iteration names (each, count, dynamic blocks'
	// iterators) a reference may start with while a resource's references
	// are checked (hclinstances.go).
	iterScope map[string]bool
	// repeats is 0 until someRepeated looks, then 1 (no resource has
	// for_each or count) or 2.
	repeats int8
	// deferred are the resource bodies the parse let go (hcldefer.go).
	deferred deferrals
	// restored counts the bodies parsed again.
	restored int
	// keepValues keeps every resource's value; else dropped counts the
	// values let go (and not given back: restoreRefused), and lost is set
	// when one was read after (hclrelease.go).
	keepValues bool
	dropped    int
	lost       bool
}

// maxCollected is how many of HCL's diagnostics are kept: random bytes
// give one per token, and only the first diag.MaxShown are shown. Past it
// they are counted (HCL's diagnostics of one file come in source order, so
// the first ones by position are among those kept).
const maxCollected = 1000

func loadHCL(ctx context.Context, p *project, vars, varFiles []string) (*loaded, diag.Diagnostics) {
	unknownAt := len(p.unknownAt)
	var again bool
	ld, ds := loadHCLValues(ctx, p, vars, varFiles, false, &again)
	if again {
		p.unknownAt = p.unknownAt[:unknownAt]
		ld, ds = loadHCLValues(ctx, p, vars, varFiles, true, &again)
	}
	return ld, ds
}

// loadHCLValues loads the configuration, keeping every resource's value
// or letting go of those nothing reads later (hclrelease.go); it sets
// *again when it let go of one and turned out to need them all.
func loadHCLValues(ctx context.Context, p *project, vars, varFiles []string, keep bool, again *bool) (_ *loaded, ds diag.Diagnostics) {
	b := newBudget()
	l := &hclLoader{
		p:          p,
		keepValues: keep,
		funcs:      functionTable(p.root, b),
		budget:     b,
		vars:       map[string]*hclVariable{},
		locals:     map[string]*hclLocal{},
		resources:  map[string]*hclResource{},
		ranges:     newHCLLocator(),
		shared:     newSharedDefaults(),
	}
	// Stopped, evaluation gives unknown values from then on and ends soon.
	p.track.whenStopped(func() { b.aborted.Store(true) }) // b, not l: the tracker outlives the loader
	defer func() {
		// Past a limit, evaluation went on with unknown values: only the
		// limits hit are worth saying.
		if l.budget.aborted.Load() && len(l.budget.reported) > 0 {
			ds = l.budget.reported
		}
		if l.omitted > 0 && ds.HasErrors() {
			ds = append(ds, &diag.Diagnostic{Severity: diag.Error, Summary: fmt.Sprintf("and %d more errors", l.omitted), Omitted: l.omitted})
		}
	}()
	bodies, err := l.parse()
	if err != nil {
		return nil, diag.Diagnostics{diag.Errorf(nil, "%v", err)}
	}
	if l.diags.HasErrors() {
		return nil, l.diags
	}
	var varBlocks []*hclsyntax.Block
	for _, b := range bodies {
		varBlocks = append(varBlocks, l.collect(b)...)
	}
	if l.diags.HasErrors() {
		return nil, l.diags
	}
	if afterCollect != nil {
		afterCollect(l)
	}
	l.declareVariables(varBlocks)
	l.assignVariables(vars, varFiles)
	if l.diags.HasErrors() {
		return nil, l.diags
	}
	return l.evaluateAll(again)
}

// evaluateAll evaluates the collected configuration and judges it: the
// fast check's typed configuration, or CUE's verdict. It sets *again when
// the loader let go of a value it turned out to need (hclrelease.go).
func (l *hclLoader) evaluateAll(again *bool) (*loaded, diag.Diagnostics) {
	// Resources go to the collector as they are evaluated; its workers
	// check and decode them meanwhile.
	l.col = newCollector(compiledSchemaOf(l.p.schema()))
	l.col.defaults = l.shared
	l.evaluate()
	outputs := l.evalOutputs()
	for _, b := range l.lifecycleBlocks {
		l.lifecycleBlock(b)
	}
	project, ok := l.projectValue()
	if ok {
		l.col.setProject(project)
	}
	fast, ferr := l.col.wait()
	if afterFastCheck != nil {
		afterFastCheck(l)
	}
	if l.dropped > 0 && (l.lost || ferr != nil || l.diags.HasErrors()) && !l.restoreRefused() {
		*again = true
		return nil, nil
	}
	l.diags = l.p.skipUnknown(l.diags)
	if l.diags.HasErrors() {
		if ok {
			l.alsoSchemaErrors(project)
		}
		return nil, l.diags
	}
	if ferr == nil {
		l.lifecycle.setOn(fast.cfg)
	}
	if ferr == nil && !crossCheck {
		return &loaded{cfg: fast.cfg, loc: withDefaults(l.ranges, l.shared), sensitive: fast.sens, defaults: l.shared, outputs: outputs}, nil
	}
	ld, ds := l.judge(project, fast, ferr)
	if l.lost {
		*again = true
		return nil, nil
	}
	if ld != nil {
		ld.outputs = outputs
	}
	return ld, ds
}

// alsoSchemaErrors adds the schema's verdict on what did evaluate to the
// errors found while evaluating, so that every error of a file is
// reported, not only the first kind (issue 9 item 13: a misspelt block
// hid every misspelt attribute). What the evaluation dropped (a misspelt
// block, a failed attribute) can look missing to the schema: its
// "missing required", "must not be empty" and "needs at least", and errors
// at a place already reported, are left out.
func (l *hclLoader) alsoSchemaErrors(project any) {
	at := map[diag.Pos]bool{}
	for _, d := range l.diags {
		if d.Subject != nil {
			at[d.Subject.Start] = true
		}
	}
	ds := l.schemaErrors(project, l.config(project, l.refused))
	for _, d := range ds {
		if d.Subject == nil || at[d.Subject.Start] || fromDropped(d.Summary) {
			continue
		}
		l.diags = append(l.diags, d)
	}
	l.diags = l.diags.Sort()
}

// fromDropped tells a schema error that a value dropped while evaluating
// can cause.
func fromDropped(summary string) bool {
	for _, s := range []string{"missing required", "must not be empty", "needs at least", "internal error"} {
		if strings.Contains(summary, s) {
			return true
		}
	}
	return false
}

// judge checks the configuration with CUE, when the fast check refused
// it or to cross-check the fast check.
func (l *hclLoader) judge(project any, fast *fastResult, ferr error) (*loaded, diag.Diagnostics) {
	if ferr != nil {
		n := len(l.diags)
		if part := l.config(project, l.refused); !l.diags.HasErrors() {
			if ds := l.p.skipUnknown(l.schemaErrors(project, part)); ds.HasErrors() {
				return nil, ds
			}
		}
		// CUE accepts what the fast check refused, or the defaults do not
		// apply to it: judged whole below, which merges them again.
		l.diags = l.diags[:n]
	}
	if l.dropped > 0 {
		l.lost = true // the load runs again keeping every value
		return nil, nil
	}
	cfg := l.config(project, nil)
	if l.diags.HasErrors() {
		return nil, l.diags
	}
	ld, ds := l.validateCUE(cfg)
	if ds = l.p.skipUnknown(ds); ds.HasErrors() {
		if ferr == nil {
			return nil, diag.Diagnostics{diag.Errorf(nil, "internal error: the fast check accepts what CUE rejects: %v", ds)}
		}
		return nil, ds
	}
	if ld == nil {
		return nil, ds // every error was a skipped check of an unknown value
	}
	if !crossCheck {
		return ld, nil
	}
	if err := crossCheckFast(fast, ferr, ld.json, nil); err != nil {
		return nil, diag.Diagnostics{diag.Errorf(nil, "internal error: %v", err)}
	}
	if ferr == nil && pathKeys(fast.sens) != pathKeys(ld.sensitive) {
		return nil, diag.Diagnostics{diag.Errorf(nil, "internal error: sensitive paths differ: %v and %v", fast.sens, ld.sensitive)}
	}
	return ld, nil
}

// parse reads and parses the project's files, instrumented for the
// budget; syntax errors are in l.diags.
func (l *hclLoader) parse() ([]*hclsyntax.Body, error) {
	var bodies []*hclsyntax.Body
	for _, f := range l.p.files {
		src, err := l.p.readConfig(f)
		if err != nil {
			return nil, err
		}
		l.p.track.setf("parsing %s", l.p.display(f))
		l.reserveRanges(len(src))
		if body := l.parseSource(f, src); body != nil {
			bodies = append(bodies, body)
		}
	}
	return bodies, nil
}

// parseSource parses one configuration file read from abs, keeping its
// source for error snippets and instrumenting it for the budget; nil
// when it has syntax errors, which are in l.diags.
func (l *hclLoader) parseSource(abs string, src []byte) *hclsyntax.Body {
	name := l.p.display(abs)
	l.p.sources[name] = src
	// The budget's instrumentation runs in the parse's workers: it
	// numbers expressions under a lock, and the numbers only tell them
	// apart. It runs after the deferral, on what the parse keeps: a
	// deferred body is instrumented when it is parsed again.
	body, hd := parseHCLConfigEach(src, name, func(b *hclsyntax.Body) {
		l.deferred.deferBodies(b, src)
		l.budget.instrument(b)
	})
	l.add(hd)
	if body == nil || hd.HasErrors() {
		return nil
	}
	return body
}

func pathKeys(ps [][]string) string {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(pathKey(p))
		b.WriteByte('\n')
	}
	return b.String()
}

func (l *hclLoader) add(hd hcl.Diagnostics) {
	for _, d := range hd {
		if ld := limitDiag(d); ld != nil {
			l.diags = append(l.diags, ld)
			l.budget.reported = append(l.budget.reported, ld)
			continue
		}
		if len(l.diags) >= maxCollected && d.Severity == hcl.DiagError {
			l.omitted++ // counted only: see maxCollected
			continue
		}
		l.diags = append(l.diags, fromHCL(d))
	}
}

// internalContext is the evaluation context of expressions that may call
// no function (-var values, -var-file attributes): just the loader's
// counting functions, which instrument puts in their for expressions and
// templates.
func (l *hclLoader) internalContext() *hcl.EvalContext {
	return &hcl.EvalContext{Functions: l.budget.functions()}
}

// noFunctions words a call of a function in an internalContext as HCL does
// where there are none.
func noFunctions(hd hcl.Diagnostics) hcl.Diagnostics {
	for _, d := range hd {
		if d.Summary == "Call to unknown function" {
			d.Summary, d.Detail = "Function calls not allowed", "Functions may not be called here."
		}
	}
	return hd
}

func (l *hclLoader) errorf(r hcl.Range, format string, args ...any) *diag.Diagnostic {
	d := diag.Errorf(toRange(r), format, args...)
	l.diags = append(l.diags, d)
	return d
}

// collect sorts a file's top-level content into variables (returned),
// locals, resources and the project attribute, refusing duplicates.
func (l *hclLoader) collect(body *hclsyntax.Body) []*hclsyntax.Block {
	for _, a := range sortedAttrs(body.Attributes) {
		if a.Name != "project" {
			d := l.errorf(a.NameRange, "unknown attribute %q", a.Name)
			if s := diag.Suggest(a.Name, []string{"project"}); s != "" {
				d.Summary += fmt.Sprintf("; did you mean %q?", s)
			} else if _, ok := hclKinds[a.Name]; ok || a.Name == "locals" || a.Name == "variable" {
				d.Summary = fmt.Sprintf("%s is a block, not an attribute", a.Name)
			}
			continue
		}
		if l.project != nil {
			d := l.errorf(a.NameRange, "project is set twice")
			d.Related = []diag.Range{*toRange(l.project.NameRange)}
			continue
		}
		l.project = a
	}
	var vars []*hclsyntax.Block
	for _, b := range body.Blocks {
		switch b.Type {
		case "variable":
			if len(b.Labels) != 1 {
				l.errorf(b.DefRange(), "a variable block has one label, its name: variable \"name\" { ... }")
				continue
			}
			vars = append(vars, b)
		case "moved", "removed", "import":
			l.lifecycleBlocks = append(l.lifecycleBlocks, b)
		case "locals":
			l.collectLocals(b)
		case "output":
			l.collectOutput(b)
		case "data":
			l.collectData(b)
		case defaultsField:
			l.collectDefaults(b)
		case "module":
			l.collectModule(b)
		default:
			l.collectResource(b)
		}
	}
	return vars
}

// collectLocals records the locals of a locals block.
func (l *hclLoader) collectLocals(b *hclsyntax.Block) {
	if len(b.Labels) != 0 {
		l.errorf(b.LabelRanges[0], "a locals block has no labels")
		return
	}
	for _, a := range sortedAttrs(b.Body.Attributes) {
		if prev := l.locals[a.Name]; prev != nil {
			d := l.errorf(a.NameRange, "local.%s is defined twice", a.Name)
			d.Related = []diag.Range{*toRange(prev.attr.NameRange)}
			continue
		}
		l.locals[a.Name] = &hclLocal{name: a.Name, attr: a}
	}
	for _, nb := range b.Body.Blocks {
		l.errorf(nb.DefRange(), "a locals block holds only attributes, not %s blocks", nb.Type)
	}
}

// collectResource records a resource block, refusing an unknown block
// type (with did-you-mean), a wrong label and a second declaration.
func (l *hclLoader) collectResource(b *hclsyntax.Block) {
	kind, ok := hclKinds[b.Type]
	if !ok {
		cands := []string{"variable", "locals", "output", "data", "moved", "removed", "import", "module", defaultsField}
		for k := range hclKinds {
			cands = append(cands, k)
		}
		d := l.errorf(b.TypeRange, "unknown block type %q", b.Type)
		if s := diag.Suggest(b.Type, cands); s != "" {
			d.Summary += fmt.Sprintf("; did you mean %q?", s)
		} else if b.Type == "project" {
			d.Summary = `project is an attribute: project = "name"`
		}
		return
	}
	if len(b.Labels) != 1 {
		l.errorf(b.DefRange(), "a %s block has one label, its name: %s \"name\" { ... }", b.Type, b.Type)
		return
	}
	addr := string(kind) + "." + b.Labels[0]
	if prev := l.resources[addr]; prev != nil {
		d := l.errorf(b.DefRange(), "%s %q is defined twice", b.Type, b.Labels[0])
		d.Related = []diag.Range{*toRange(prev.block.DefRange())}
		return
	}
	if l.reservedHCL(b) {
		return
	}
	l.lifecycleTraversals(b)
	r := &hclResource{kind: b.Type, name: l.memberName(b.Labels[0]), block: b, deferred: l.deferred.take(b)}
	l.splitRepetition(r)
	l.resources[addr] = r
	l.order = append(l.order, addr)
}

func sortedAttrs(m hclsyntax.Attributes) []*hclsyntax.Attribute {
	out := make([]*hclsyntax.Attribute, 0, len(m))
	for _, a := range m {
		out = append(out, a)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].SrcRange.Filename != out[j].SrcRange.Filename {
			return out[i].SrcRange.Filename < out[j].SrcRange.Filename
		}
		return out[i].SrcRange.Start.Byte < out[j].SrcRange.Start.Byte
	})
	return out
}

// node names a local ("local.x") or a resource ("image.base").
type node = string

// deps finds what the expressions under a local or resource refer to, and
// reports references to things that do not exist.
func (l *hclLoader) deps(exprs []hclsyntax.Expression) []node {
	return l.traversalDeps(exprRefs(exprs, nil))
}

// exprRefs appends the references of exprs, in order, to out.
func exprRefs(exprs []hclsyntax.Expression, out []hcl.Traversal) []hcl.Traversal {
	for _, e := range exprs {
		if mayRefer(e) {
			out = append(out, e.Variables()...)
		}
	}
	return out
}

// traversalDeps checks references and returns the nodes they depend on,
// each once, in order.
func (l *hclLoader) traversalDeps(refs []hcl.Traversal) []node {
	var out []node
	seen := map[node]bool{}
	for _, tr := range refs {
		if n := l.checkTraversal(tr); n != "" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// mayRefer is false for an expression made only of literals (a literal,
// a template of literals, a tuple of those), which has no variables:
// deps skips hclsyntax's walk of it.
func mayRefer(e hclsyntax.Expression) bool {
	switch e := e.(type) {
	case *hclsyntax.LiteralValueExpr:
		return false
	case *hclsyntax.TemplateWrapExpr:
		return mayRefer(e.Wrapped)
	case *hclsyntax.TemplateExpr:
		for _, p := range e.Parts {
			if mayRefer(p) {
				return true
			}
		}
		return false
	case *hclsyntax.TupleConsExpr:
		for _, x := range e.Exprs {
			if mayRefer(x) {
				return true
			}
		}
		return false
	}
	return true
}

var referenceRoots = []string{"var", "env", "local", "image", "secret", "volume", "dataset", "function", "suite", "data", "module", "path"}

// checkTraversal validates a reference (var.x, local.y, image.base) and
// returns the node it depends on, or "".
func (l *hclLoader) checkTraversal(tr hcl.Traversal) node {
	root := tr.RootName()
	switch {
	case l.iterationRef(tr):
		return ""
	case root == "var":
		l.checkVarTraversal(tr)
		return ""
	case root == "env":
		l.checkEnvTraversal(tr)
		return ""
	case root == "local":
		return l.checkLocalTraversal(tr)
	case root == "data":
		return l.checkDataTraversal(tr)
	case referable[root]:
		return l.checkResourceTraversal(tr, root)
	case root == "module":
		return l.checkModuleTraversal(tr)
	case root == "path":
		l.checkPathTraversal(tr)
		return ""
	case root == "sandbox" || root == "evaluation" || root == "container" || root == "training" || root == "scaling_group":
		l.errorf(tr.SourceRange(), "%s cannot be referred to; only images, secrets, volumes, datasets, functions and suites can", hclKinds[root].Plural())
		return ""
	}
	l.unknownRoot(tr, root)
	return ""
}

// traversalAttr is the name a reference gives after its root (x in var.x
// or var["x"]) and its range; false, with the whole reference's range,
// when it gives none.
func traversalAttr(tr hcl.Traversal) (string, hcl.Range, bool) {
	rng := tr.SourceRange()
	if len(tr) < 2 {
		return "", rng, false
	}
	switch s := tr[1].(type) {
	case hcl.TraverseAttr:
		return s.Name, s.SrcRange, true
	case hcl.TraverseIndex:
		if s.Key.Type() == cty.String {
			return s.Key.AsString(), s.SrcRange, true
		}
	}
	return "", rng, false
}

// checkVarTraversal reports a reference var.NAME that is malformed or
// names an undeclared variable.
func (l *hclLoader) checkVarTraversal(tr hcl.Traversal) {
	name, r, ok := traversalAttr(tr)
	if !ok {
		l.errorf(tr.SourceRange(), "a variable is referred to as var.NAME")
		return
	}
	if l.vars[name] == nil {
		d := l.errorf(hcl.RangeBetween(tr[0].SourceRange(), r), "reference to undeclared variable var.%s", name)
		if s := diag.Suggest(name, keys(l.vars)); s != "" {
			d.Summary += fmt.Sprintf("; did you mean var.%s?", s)
		}
	}
}

// checkLocalTraversal validates a reference local.NAME and returns the
// local it depends on, or "".
func (l *hclLoader) checkLocalTraversal(tr hcl.Traversal) node {
	name, r, ok := traversalAttr(tr)
	if !ok {
		l.errorf(tr.SourceRange(), "a local value is referred to as local.NAME")
		return ""
	}
	if l.locals[name] == nil {
		d := l.errorf(hcl.RangeBetween(tr[0].SourceRange(), r), "reference to undefined local.%s", name)
		if s := diag.Suggest(name, keys(l.locals)); s != "" {
			d.Summary += fmt.Sprintf("; did you mean local.%s?", s)
		}
		return ""
	}
	return "local." + name
}

// checkResourceTraversal validates a reference to a resource of a
// referable kind (root), such as image.base, and returns the resource it
// depends on, or "".
func (l *hclLoader) checkResourceTraversal(tr hcl.Traversal, root string) node {
	name, r, ok := traversalAttr(tr)
	if !ok {
		l.errorf(tr.SourceRange(), "a %s is referred to as %s.NAME", root, root)
		return ""
	}
	addr := root + "." + name
	if l.resources[addr] == nil && l.builtinHCL(addr) == nil {
		d := l.errorf(hcl.RangeBetween(tr[0].SourceRange(), r), "reference to undefined %s %q", root, name)
		var names []string
		for _, a := range l.order {
			if k, n, _ := strings.Cut(a, "."); k == root {
				names = append(names, n)
			}
		}
		if root == "image" {
			names = append(names, schema.BuiltinImageNames...) // issue 11
		}
		if s := suggestName(name, names); s != "" {
			d.Summary += fmt.Sprintf("; did you mean %s.%s?", root, s)
		}
		return ""
	}
	return addr
}

// unknownRoot reports a reference whose root is no name a reference
// starts with, suggesting the closest or listing them all.
func (l *hclLoader) unknownRoot(tr hcl.Traversal, root string) {
	d := l.errorf(tr[0].SourceRange(), "unknown name %q", root)
	if s := diag.Suggest(root, referenceRoots); s != "" {
		d.Summary += fmt.Sprintf("; did you mean %q?", s)
	} else {
		d.Detail = "a reference starts with one of: " + strings.Join(referenceRoots, ", ")
	}
}

// evaluate evaluates locals and resources in dependency order.
func (l *hclLoader) evaluate() {
	graph := map[node][]node{}
	var nodes []node
	for _, name := range sortedKeys(l.locals) {
		n := "local." + name
		nodes = append(nodes, n)
		graph[n] = l.deps([]hclsyntax.Expression{l.locals[name].attr.Expr})
	}
	for _, n := range l.defaultOrder {
		nodes = append(nodes, n)
		graph[n] = l.deps(bodyExprs(l.defaults[n].block.Body, nil))
	}
	for _, addr := range l.order {
		nodes = append(nodes, addr)
		r := l.resources[addr]
		graph[addr] = append(l.resourceDeps(r), l.defaultNodes(r.kind)...)
	}
	nodes = l.moduleNodes(graph, nodes)
	if l.diags.HasErrors() {
		return
	}
	// Cycles first, each reported once with its members.
	reported := map[node]bool{}
	for _, n := range nodes {
		if reported[n] {
			continue
		}
		cyc := findCycle(graph, n)
		if cyc == nil {
			continue
		}
		var members cycleMembers
		for _, m := range cyc {
			reported[m] = true
			members = append(members, cycleMember{name: m, rng: l.nodeRange(m)})
		}
		d := diag.Errorf(members[0].rng, "reference cycle: %s", strings.Join(members.names(), " -> "))
		d.Related = members.ranges()
		l.diags = append(l.diags, d)
	}
	if l.diags.HasErrors() {
		return
	}
	dropper := l.newValueDropper(graph)
	var visit func(n node)
	visit = func(n node) {
		if l.isDone(n) {
			return
		}
		for _, d := range graph[n] {
			visit(d)
		}
		l.evalNode(n, graph[n])
		l.release(n)
		dropper.evaluated(n, graph[n])
	}
	for _, n := range nodes {
		visit(n)
	}
	if afterEvaluate != nil {
		afterEvaluate(l)
	}
}

func (l *hclLoader) nodeRange(n node) *diag.Range {
	if name, ok := strings.CutPrefix(n, "local."); ok {
		return toRange(l.locals[name].attr.NameRange)
	}
	if d := l.defaults[n]; d != nil {
		return toRange(d.block.TypeRange)
	}
	if m := l.modules[n]; m != nil {
		return toRange(m.block.DefRange())
	}
	if r := l.resources[n]; r == nil {
		return nil
	}
	return toRange(l.resources[n].block.DefRange())
}

func (l *hclLoader) isDone(n node) bool {
	if name, ok := strings.CutPrefix(n, "local."); ok {
		return l.locals[name].done
	}
	if d := l.defaults[n]; d != nil {
		return d.done
	}
	if m := l.modules[n]; m != nil {
		return m.done
	}
	return l.resources[n].done
}

// evalContext holds the variables, functions and just the locals and
// resources the node refers to.
func (l *hclLoader) evalContext(deps []node) *hcl.EvalContext {
	if l.ctxRoots == nil {
		l.ctxRoots = &[2]cty.Value{envObject(l.p.env), l.pathObj()}
	}
	vars := make(map[string]cty.Value, 8)
	vars["var"], vars["env"], vars["path"] = l.varsObj, l.ctxRoots[0], l.ctxRoots[1]
	groups := map[string]map[string]cty.Value{}
	data := map[string]map[string]cty.Value{}
	for _, d := range deps {
		if l.defaults[d] != nil {
			continue // waited for, not referred to
		}
		root, name, _ := strings.Cut(d, ".")
		if groups[root] == nil {
			groups[root] = map[string]cty.Value{}
		}
		switch {
		case root == "local":
			groups[root][name] = l.locals[name].value
		case root == "data":
			// data.volume.cache: one more level (issue 10).
			k, n, _ := strings.Cut(name, ".")
			if data[k] == nil {
				data[k] = map[string]cty.Value{}
			}
			data[k][n] = l.valueOf(l.resources[d])
		case root == "module":
			groups[root][name] = l.modules[d].value
		default:
			groups[root][name] = l.valueOf(l.resources[d])
		}
	}
	for root, m := range groups {
		vars[root] = cty.ObjectVal(m)
	}
	if len(data) > 0 {
		kinds := map[string]cty.Value{}
		for k, m := range data {
			kinds[k] = cty.ObjectVal(m)
		}
		vars["data"] = cty.ObjectVal(kinds)
	}
	l.lastCtx = &hcl.EvalContext{Variables: vars, Functions: l.funcs}
	return l.lastCtx
}

func (l *hclLoader) evalNode(n node, deps []node) {
	if r := l.nodeRange(n); r != nil {
		l.p.track.setf("evaluating %s (%s)", n, r)
	}
	ectx := l.evalContext(deps)
	if name, ok := strings.CutPrefix(n, "local."); ok {
		lc := l.locals[name]
		l.dupKeys(lc.attr.Expr, ectx)
		v, hd := lc.attr.Expr.Value(ectx)
		l.add(hd)
		if v.IsKnown() && !hd.HasErrors() {
			lc.value = v
			l.p.noteSensitive(v)
		} else {
			lc.value = cty.DynamicVal
		}
		lc.done = true
		return
	}
	if d := l.defaults[n]; d != nil {
		l.evalDefault(d, deps)
		return
	}
	if m := l.modules[n]; m != nil {
		l.evalModule(m, deps)
		return
	}
	r := l.resources[n]
	if r.deferred != nil {
		if err := l.restoreBody(r); err != nil {
			l.diags = append(l.diags, diag.Errorf(toRange(r.block.DefRange()), "%v", err))
			r.done, r.value = true, cty.DynamicVal
			return
		}
	}
	coll := hclKinds[r.kind].Plural()
	sh := shapesOf(l.p.schema())[r.kind]
	label := r.block.LabelRanges[0]
	if r.dataKind != "" {
		coll, sh, label = "data."+r.dataKind.Plural(), &shape{}, r.block.LabelRanges[1]
	}
	if l.someRepeated() && !l.instanceRefs(bodyExprs(r.block.Body, nil)) {
		r.done, r.value = true, cty.DynamicVal
		return
	}
	if r.repeated() {
		l.evalInstances(r, coll, sh, label, ectx)
		return
	}
	path := append(strings.Split(coll, "."), r.name)
	l.ranges.set(path, r.block.DefRange(), label)
	n0, o0 := len(l.diags), l.omitted
	obj := l.modulePaths(r.kind, l.evalBody(r.block.Body, sh, path, ectx))
	if referable[r.kind] || r.dataKind != "" {
		obj["$id"] = cty.StringVal(l.scopedID(n))
	}
	r.value = cty.ObjectVal(obj)
	r.done = true
	l.p.noteSensitive(r.value)
	// Past an error elsewhere, a resource whose own evaluation is clean
	// and wholly known still goes to the fast check, so that CUE judges
	// only what it refuses (alsoSchemaErrors): an error in a defaults
	// block, evaluated first, sent all 10,000 resources to CUE (8 s).
	own := l.diags[n0:].HasErrors() || l.omitted > o0
	if l.col != nil && !own && (!l.diags.HasErrors() || r.value.IsWhollyKnown()) {
		l.col.add(item{coll: coll, name: r.name, val: r.value})
		r.sent = true
	}
}

// projectValue evaluates the project attribute.
func (l *hclLoader) projectValue() (any, bool) {
	if l.project == nil {
		var file string
		if len(l.p.files) > 0 {
			file = l.p.display(l.p.files[0])
		}
		l.diags = append(l.diags, diag.Errorf(&diag.Range{File: file, Start: diag.Pos{Line: 1, Col: 1}, End: diag.Pos{Line: 1, Col: 1}},
			`missing required attribute "project": add project = "name" at the top level`))
		return nil, false
	}
	ectx := l.evalContext(l.deps([]hclsyntax.Expression{l.project.Expr}))
	pv, hd := l.project.Expr.Value(ectx)
	l.add(hd)
	if hd.HasErrors() {
		return nil, false
	}
	l.ranges.set([]string{"project"}, l.project.Expr.Range(), l.project.NameRange)
	if pv.IsWhollyKnown() && !pv.IsMarked() && pv.Type() == cty.String && !pv.IsNull() {
		l.p.name = pv.AsString()
	}
	pv, _ = l.known(pv, l.project.Expr.Range())
	return ctyToGo(pv, nil, nil), true
}

// config assembles the configuration as plain data, noting which paths
// hold sensitive values, for CUE to judge: every resource, or with keep
// only those of collection coll ("sandboxes", "data.volumes") and member
// name that keep says (refused).
func (l *hclLoader) config(project any, keep func(coll, name string) bool) map[string]any {
	cfg := map[string]any{"project": project}
	l.lifecycle.configValues(cfg)
	l.ranges.sensitive = nil
	for _, addr := range l.order {
		r := l.resources[addr]
		plural := hclKinds[r.kind].Plural()
		owner := cfg
		path := []string{plural, r.name}
		coll := plural
		if r.dataKind != "" {
			coll = "data." + r.dataKind.Plural()
			data, _ := cfg["data"].(map[string]any)
			if data == nil {
				data = map[string]any{}
				cfg["data"] = data
			}
			owner, plural = data, r.dataKind.Plural()
			path = []string{"data", plural, r.name}
		}
		m, _ := owner[plural].(map[string]any)
		if m == nil {
			m = map[string]any{}
			owner[plural] = m
		}
		kept := func(name string) bool { return keep == nil || keep(coll, name) }
		if !l.putInstances(m, r, path[:len(path)-1], kept) && kept(r.name) {
			m[r.name] = ctyToGo(r.value, path, &l.ranges.sensitive)
		}
	}
	l.mergeDefaults(cfg)
	sort.Slice(l.ranges.sensitive, func(i, j int) bool {
		return pathKey(l.ranges.sensitive[i]) < pathKey(l.ranges.sensitive[j])
	})
	return cfg
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func sortedKeys[V any](m map[string]V) []string { return keys(m) }

// toRange converts an HCL range.
func toRange(r hcl.Range) *diag.Range {
	return &diag.Range{
		File:  r.Filename,
		Start: diag.Pos{Line: r.Start.Line, Col: r.Start.Column, Byte: r.Start.Byte},
		End:   diag.Pos{Line: r.End.Line, Col: r.End.Column, Byte: r.End.Byte},
	}
}

// fromHCL converts an HCL diagnostic. HCL's "Duplicate object key" of a
// for expression quotes the key, which may be made from a sensitive value
// (substr(var.token, 0, 4)): its key expression is evaluated again, and a
// sensitive key is not quoted.
func fromHCL(d *hcl.Diagnostic) *diag.Diagnostic {
	out := &diag.Diagnostic{Severity: diag.Error, Summary: d.Summary, Detail: d.Detail}
	if d.Summary == "Duplicate object key" && d.Expression != nil && d.EvalContext != nil {
		if k, _ := d.Expression.Value(d.EvalContext); k.HasMarkDeep(sensitiveMark) {
			out.Detail = "Two different items produced the same key, a sensitive value, in this 'for' expression. If duplicates are expected, use the ellipsis (...) after the value expression to enable grouping by key."
		}
	}
	if d.Severity == hcl.DiagWarning {
		out.Severity = diag.Warning
	}
	if d.Subject != nil {
		out.Subject = toRange(*d.Subject)
	}
	return out
}
