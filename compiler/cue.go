package compiler

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	cueerrors "cuelang.org/go/cue/errors"
	"cuelang.org/go/cue/load"
	"cuelang.org/go/cue/token"

	"cc.dev/cc/diag"
	"cc.dev/cc/localfs"
	"cc.dev/cc/schema"
)

// loaded is a configuration that passed the schema: its JSON with defaults
// applied, and where each part of it came from.
type loaded struct {
	json []byte
	loc  locator
	// sensitive lists config paths of values that must never be shown.
	sensitive [][]string
	// user is the user's CUE value (CUE only), to find references in.
	user cue.Value
	// cfg is the decoded configuration when the fast way produced it
	// directly; otherwise json holds it.
	cfg *schema.Config
	// defaults are the shared defaults merged into the resources (CUE:
	// to find the references they make); nil when there are none.
	defaults *sharedDefaults
	// outputs are the configuration's outputs, sorted by name (issue 12).
	outputs []schema.Output
	// direct is what the direct way made of a CUE configuration
	// (cuedirect.go), nil when CUE's way loaded it.
	direct *fastResult
}

// locator maps a config path (["sandboxes", "dev", "image"]) to source.
type locator interface {
	// at returns where the value at path is written, or the nearest
	// enclosing value that has a position.
	at(path []string) *diag.Range
	// key returns where the field name at path is written (for "unknown
	// field"), falling back to at.
	key(path []string) *diag.Range
}

// loadCUE loads a CUE package (a directory, with imports inside a cue.mod
// module when present) or one file, and unifies it with the schema.
func loadCUE(ctx context.Context, p *project) (*loaded, diag.Diagnostics) {
	inst, tr, ds := loadCUEInstance(p)
	if ds != nil {
		return nil, ds
	}
	verdict := cueGateVerdict(p, inst)
	t := directTreeOf(inst, verdict)
	if t == nil {
		return loadCUEValue(ctx, p, inst, tr, verdict)
	}
	// The direct way (issue 13): the tree keeps none of the syntax, which
	// is garbage from here on; CUE's way, when it is needed, loads the
	// files again.
	inst = nil
	runtime.GC()
	direct := directLoad(p, t)
	if direct != nil && !crossCheck {
		return direct, nil
	}
	if inst, tr, ds = loadCUEInstance(p); ds != nil {
		return nil, ds
	}
	ld, ds := loadCUEValue(ctx, p, inst, tr, cueGateVerdict(p, inst))
	if direct != nil {
		if err := crossCheckDirect(direct, ld, ds); err != nil {
			return nil, diag.Diagnostics{diag.Errorf(nil, "internal error: %v", err)}
		}
	}
	return ld, ds
}

// loadCUEValue is CUE's way: evaluate the instance, check it, and judge
// it against the schema (the export path when the gate lets it).
func loadCUEValue(ctx context.Context, p *project, inst *build.Instance, tr *cueTranslator, verdict gateVerdict) (*loaded, diag.Diagnostics) {
	cctx := cuecontext.New()
	sch, err := buildSchema(cctx, p.schema())
	if err != nil {
		return nil, diag.Diagnostics{diag.Errorf(nil, "%v", err)}
	}
	p.track.set("evaluating the CUE configuration")
	v := cctx.BuildInstance(inst)
	tr.user = v
	tr.loc = &cueLocator{p: p, v: v}
	if err := v.Err(); err != nil {
		return nil, tr.translate(err)
	}
	if ds := checkCUEFields(p, v); ds.HasErrors() {
		return nil, ds
	}
	sd, ds := cueDefaults(p, v, tr.loc)
	if ds.HasErrors() {
		return nil, ds
	}
	tr.loc = withDefaults(tr.loc, sd)
	ld, ds := judgeCUE(p, sch, verdict, v, tr, sd)
	if ds.HasErrors() {
		return ld, ds
	}
	outs, ods := cueOutputs(p, v)
	if ods.HasErrors() {
		return nil, ods
	}
	ld.outputs = outs
	return ld, ds
}

// loadCUEInstance reads the project's CUE files and loads them as one
// instance, with a translator for its errors.
func loadCUEInstance(p *project) (*build.Instance, *cueTranslator, diag.Diagnostics) {
	// Name the files rather than the package, so files without a package
	// clause load too, and only this directory's files are the project.
	var args []string
	if p.single {
		args = []string{"./" + filepath.Base(p.files[0])}
	} else {
		localfs.Touch(p.root)
		ents, err := os.ReadDir(p.root)
		if err != nil {
			return nil, nil, diag.Diagnostics{diag.Errorf(nil, "%v", err)}
		}
		for _, e := range ents {
			if !e.IsDir() && filepath.Ext(e.Name()) == ".cue" {
				args = append(args, "./"+e.Name())
			}
		}
	}
	// The project's files are read here, each a regular file under the
	// size limit, for a clear error; cue/load then reads every file it
	// needs (these, cue.mod/module.cue, imported packages) through
	// regularFS, which opens only regular files under the limit, so no
	// FIFO or device blocks it.
	for _, a := range args {
		abs := filepath.Join(p.root, a)
		b, err := p.readConfig(abs)
		if err != nil {
			return nil, nil, diag.Diagnostics{diag.Errorf(nil, "%v", err)}
		}
		p.sources[p.display(abs)] = b
	}
	p.track.set("loading the CUE files")
	insts := p.loadTagged(args, func() *load.Config {
		return &load.Config{Dir: p.root, Env: []string{}, FS: regularFS{limit: p.maxSize, root: p.root}}
	})
	inst := insts[0]
	for _, f := range inst.BuildFiles {
		p.addSource(f.Filename)
	}
	tr := &cueTranslator{p: p, lang: "cue"}
	if inst.Err != nil {
		return nil, nil, tr.translate(inst.Err)
	}
	for _, f := range inst.Files {
		p.addSource(f.Filename)
	}
	if ds := checkCUEBuiltins(p, inst); ds.HasErrors() {
		return nil, nil, ds
	}
	if ds := addBuiltinImagesCUE(p, inst); ds.HasErrors() {
		return nil, nil, ds
	}
	return inst, tr, nil
}

// onCUEUnify, set by tests, is told when judgeCUE unifies, and why the
// fast way did not do (nil under crossCheck, when it did).
var onCUEUnify func(why error)

// judgeCUE checks the user's value v against the schema sch. The fast
// way, when the gate lets it (cuegate.go): export the user's value as it
// stands (what cue export does), one resource at a time, while the
// collector's workers check and decode what is already exported. When the
// gate refuses, a value is not concrete on its own, or the fast check
// finds fault, unify with the schema and let CUE judge.
func judgeCUE(p *project, sch cue.Value, gate gateVerdict, v cue.Value, tr *cueTranslator, sd *sharedDefaults) (*loaded, diag.Diagnostics) {
	plain := gate.plain
	var fast *fastResult
	ferr := error(gatedError(gate.why))
	if plain && len(gate.validate) > 0 {
		// A comprehension incomplete in U alone yields no fields, and
		// listing its struct's fields says nothing (cuegate.go).
		p.track.set("validating the CUE configuration's comprehensions")
		for _, path := range gate.validate {
			sels := make([]cue.Selector, len(path))
			for i, s := range path {
				sels[i] = cue.Str(s)
			}
			if err := v.LookupPath(cue.MakePath(sels...)).Validate(cue.Concrete(true)); err != nil {
				plain, ferr = false, gatedError("a comprehension incomplete without the schema")
				break
			}
		}
	}
	if plain {
		if err := cueOutputsOK(sch, v); err != nil {
			plain, ferr = false, err
		}
	}
	if plain {
		p.track.set("checking the CUE configuration against the schema")
		fast, ferr = fastCUE(v, compiledSchemaOf(p.schema()), sd, gate.definitions)
		if ferr == nil && !crossCheck {
			return &loaded{cfg: fast.cfg, loc: tr.loc, user: v, defaults: sd}, nil
		}
	}
	p.track.set("unifying the CUE configuration with the schema")
	if onCUEUnify != nil {
		onCUEUnify(ferr)
	}
	uv := v
	if cueUsesDefaults(sd, v) {
		var ds diag.Diagnostics
		if uv, ds = mergedCUE(sd, v, tr.loc, tr); ds.HasErrors() {
			return nil, ds
		}
	}
	u := sch.LookupPath(cue.MakePath(cue.Def("#Config"))).Unify(uv)
	if err := u.Validate(cue.Concrete(true)); err != nil {
		if ferr == nil {
			return nil, diag.Diagnostics{diag.Errorf(nil, "internal error: the fast check accepts what CUE rejects: %v", err)}
		}
		return nil, tr.translate(err)
	}
	b, err := u.MarshalJSON()
	if err != nil {
		return nil, tr.translate(err)
	}
	if plain && crossCheck {
		if err := crossCheckFast(fast, ferr, b, func(c *schema.Config) { markAllCUERefs(c, v); markAllDefaultCUERefs(c, sd) }); err != nil {
			return nil, diag.Diagnostics{diag.Errorf(nil, "internal error: %v", err)}
		}
	}
	return &loaded{json: b, loc: tr.loc, user: v, defaults: sd}, nil
}

// regularFS is the host's file system as cue/load reads it, through
// which only directories and regular files of at most limit bytes open
// (schema.OpenRegular): anything else is an error, never a blocked read,
// and nothing in the root's .cc (localfs.ErrStateDir).
type regularFS struct {
	limit int64
	root  string
}

func (r regularFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	abs := "/" + name
	localfs.Touch(abs)
	// Nothing in the root's .cc, named so or through a symbolic link.
	if localfs.InStateDir(localfs.RelTo(r.root, abs)) {
		return nil, &fs.PathError{Op: "open", Path: abs, Err: localfs.ErrStateDir}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil && localfs.InStateDir(localfs.RelTo(r.root, real)) {
		return nil, &fs.PathError{Op: "open", Path: abs, Err: localfs.ErrStateDir}
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return os.Open(abs)
	}
	f, fi, err := schema.OpenRegular(abs)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: abs, Err: err}
	}
	if fi.Size() > r.limit {
		f.Close()
		return nil, &fs.PathError{Op: "open", Path: abs, Err: &schema.TooLargeError{Limit: r.limit}}
	}
	return f, nil
}

// checkCUEFields refuses, with positions, what CUE itself would let pass
// silently or word in the schema's terms: a top-level field the schema does
// not know (regular, required or optional), and a collection or resource
// written with a required (!) or optional (?) marker and defined nowhere as
// a regular field. CUE does not output such a field, so its resources would
// vanish from the project and an apply would delete them (issue 8 item 1).
// Definitions and hidden fields are the user's own and are not looked at.
func checkCUEFields(p *project, v cue.Value) diag.Diagnostics {
	var ds diag.Diagnostics
	known := compiledSchema().fieldsAt(nil)
	isKnown := map[string]bool{}
	for _, k := range known {
		isKnown[k] = true
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil // not a struct: CUE's own check words it
	}
	for it.Next() {
		sel := it.Selector()
		if !sel.IsString() {
			continue
		}
		name := sel.Unquoted()
		rng := p.rangeOfPos(it.Value().Pos())
		if !isKnown[name] {
			d := diag.Errorf(rng, "unknown field %q%s", name, markerWords(sel))
			if k := collectionFromKind(name); k != "" {
				d.Summary += fmt.Sprintf("; did you mean %q?", k)
			} else if s := diag.Suggest(name, known); s != "" {
				d.Summary += fmt.Sprintf("; did you mean %q?", s)
			} else {
				d.Detail = "allowed here: " + strings.Join(known, ", ")
			}
			ds = append(ds, d)
			continue
		}
		if d := markedField(sel, name, it.Value(), rng, name); d != nil {
			ds = append(ds, d)
			continue
		}
		if kindOfCollection(name) == "" {
			continue
		}
		rs, err := it.Value().Fields(cue.Optional(true))
		if err != nil {
			continue
		}
		for rs.Next() {
			rsel := rs.Selector()
			if !rsel.IsString() {
				continue
			}
			what := fmt.Sprintf("%s %q", kindOfCollection(name), rsel.Unquoted())
			if d := markedField(rsel, rsel.Unquoted(), rs.Value(), p.rangeOfPos(rs.Value().Pos()), what); d != nil {
				ds = append(ds, d)
			}
		}
	}
	return ds
}

// markedField refuses a field that is only required (name!:) or only
// optional (name?:) and so not part of CUE's output, when it holds
// something the user meant to define. An optional field holding only
// constraints (sandboxes?: [string]: {...}) defines nothing and is fine.
func markedField(sel cue.Selector, name string, v cue.Value, rng *diag.Range, what string) *diag.Diagnostic {
	switch sel.ConstraintType() {
	case cue.RequiredConstraint:
		d := diag.Errorf(rng, "%s is marked required (%s!:) and nothing defines it: CUE does not output such a field, so its contents would be dropped", what, name)
		d.Detail = fmt.Sprintf("write %s: without the !", name)
		return d
	case cue.OptionalConstraint:
		if !definesSomething(v) {
			return nil
		}
		d := diag.Errorf(rng, "%s is marked optional (%s?:): CUE does not output such a field, so its contents would be dropped", what, name)
		d.Detail = fmt.Sprintf("write %s: without the ?", name)
		return d
	}
	return nil
}

// definesSomething reports whether v is more than constraints: a concrete
// value, or a struct with a regular field.
func definesSomething(v cue.Value) bool {
	if v.Kind() != cue.StructKind {
		return v.IsConcrete()
	}
	it, err := v.Fields()
	return err == nil && it.Next()
}

// markerWords describes a field's required or optional marker.
func markerWords(sel cue.Selector) string {
	switch sel.ConstraintType() {
	case cue.RequiredConstraint:
		return " (written as required, with !)"
	case cue.OptionalConstraint:
		return " (written as optional, with ?)"
	}
	return ""
}

// fastCUE exports the user's value resource by resource into a collector;
// with definitions, it then asks whether the closed structs take the
// fields the check added (cueclosed.go).
func fastCUE(v cue.Value, fs *fastSchema, sd *sharedDefaults, definitions bool) (*fastResult, error) {
	c := newCollector(fs)
	c.defaults = sd
	c.closedCheck = definitions
	var lc schema.Config // its lifecycle declarations only
	err := func() error {
		it, err := v.Fields()
		if err != nil {
			return exportError{err}
		}
		for it.Next() {
			if !it.Selector().IsString() {
				continue
			}
			name := it.Selector().Unquoted()
			if name == "project" {
				var p string
				if err := it.Value().Decode(&p); err != nil {
					return exportError{err}
				}
				c.setProject(p)
				continue
			}
			if name == "data" {
				// Data sources are collections one level down (issue 10).
				if err := addCUEData(c, it.Value()); err != nil {
					return err
				}
				continue
			}
			if definitions && (lifecycleFields[name] || name == defaultsField || name == defaultSetsField) {
				// Decoded or merged as data, not checked field by field
				// against what a closed struct takes.
				return gatedError("definitions with " + name)
			}
			if lifecycleFields[name] {
				if err := decodeLifecycle(&lc, name, it.Value()); err != nil {
					return exportError{err}
				}
				continue
			}
			if name == "outputs" {
				// Issue 12: outputs hold any value, each checked against
				// #Output by CUE before (cueOutputsOK); here decoded.
				var outs map[string]*schema.ConfigOutput
				if err := it.Value().Decode(&outs); err != nil {
					return exportError{err}
				}
				c.mu.Lock()
				c.cfg.Outputs = outs
				c.mu.Unlock()
				continue
			}
			if name == defaultsField || name == defaultSetsField {
				continue // read by cueDefaults
			}
			if err := addCUECollection(c, name, it.Value()); err != nil {
				return err
			}
		}
		return nil
	}()
	res, werr := c.wait() // CUE has no sensitive values
	if err != nil {
		return nil, err
	}
	if werr != nil {
		return nil, werr
	}
	if f := refusedAddition(c.added); f != "" {
		return nil, gatedError("the schema adds " + f + " to a closed struct")
	}
	if res.cfg.Project == "" {
		return nil, errors.New("no project")
	}
	res.cfg.Moved, res.cfg.Removed, res.cfg.Imports = lc.Moved, lc.Removed, lc.Imports
	return res, nil
}

// addCUECollection adds the resources of one collection to c.
func addCUECollection(c *collector, coll string, v cue.Value) error {
	rs, err := v.Fields()
	if err != nil {
		return exportError{err}
	}
	for rs.Next() {
		if c.failed() {
			return nil
		}
		if rs.Selector().IsString() {
			c.add(item{coll: coll, name: rs.Selector().Unquoted(), cv: rs.Value()})
		}
	}
	return nil
}

// addCUEData adds the data sources of data: volumes, datasets, ... to c
// as the collections "data.volumes", ...
func addCUEData(c *collector, v cue.Value) error {
	ks, err := v.Fields()
	if err != nil {
		return exportError{err}
	}
	for ks.Next() {
		if ks.Selector().IsString() {
			if err := addCUECollection(c, "data."+ks.Selector().Unquoted(), ks.Value()); err != nil {
				return err
			}
		}
	}
	return nil
}

// cueOutputsOK checks the configuration's outputs as #Config & U would,
// each unified with #Output and its name with #OutputName: an output's
// value is any value, which the fast check does not judge, and the schema
// adds nothing to it (every #Output field but value is optional). nil
// when they pass or there are none; otherwise CUE judges the whole
// configuration, and words the error.
func cueOutputsOK(sch, v cue.Value) error {
	ov := v.LookupPath(cue.MakePath(cue.Str("outputs")))
	if !ov.Exists() {
		return nil
	}
	it, err := ov.Fields()
	if err != nil {
		return gatedError("outputs: " + err.Error())
	}
	def := sch.LookupPath(cue.MakePath(cue.Def("#Output")))
	names := sch.LookupPath(cue.MakePath(cue.Def("#OutputName")))
	enc := cuecontext.New() // for the names; values of two contexts unify
	for it.Next() {
		name := it.Selector().Unquoted()
		if !it.Selector().IsString() || names.Unify(enc.Encode(name)).Err() != nil {
			return gatedError("an output's name: " + name)
		}
		if err := def.Unify(it.Value()).Validate(cue.Concrete(true)); err != nil {
			return gatedError("output " + name + ": " + err.Error())
		}
	}
	return nil
}

// sameJSON reports how two JSON documents differ, or nil when they are the
// same value.
func sameJSON(a, b []byte) error {
	ca, err := schema.Canonical(json.RawMessage(a))
	if err != nil {
		return err
	}
	cb, err := schema.Canonical(json.RawMessage(b))
	if err != nil {
		return err
	}
	if !bytes.Equal(ca, cb) {
		return fmt.Errorf("fast check gives\n%s\nCUE gives\n%s", ca, cb)
	}
	return nil
}

// addSource records a configuration file's text under its display name.
func (p *project) addSource(abs string) {
	if abs == "" || abs == "-" {
		return
	}
	name := p.display(abs)
	if _, ok := p.sources[name]; ok {
		return
	}
	localfs.Touch(abs)
	if b, err := schema.ReadRegular(abs, p.maxSize); err == nil {
		p.sources[name] = b
	}
}

// cueLocator finds config paths in the user's CUE value.
type cueLocator struct {
	p *project
	v cue.Value
}

func (l *cueLocator) at(path []string) *diag.Range {
	for n := len(path); n >= 0; n-- {
		sels := make([]cue.Selector, 0, n)
		for _, e := range path[:n] {
			if isIndex(e) {
				sels = append(sels, cue.Index(atoi(e)))
			} else {
				sels = append(sels, cue.Str(e))
			}
		}
		if r := l.p.rangeOfPos(l.v.LookupPath(cue.MakePath(sels...)).Pos()); r != nil {
			return r
		}
	}
	return nil
}

func (l *cueLocator) key(path []string) *diag.Range { return l.at(path) }

// rangeOfPos converts a CUE position in a user file to a range; positions
// in the schema or nowhere give nil.
func (p *project) rangeOfPos(pos token.Pos) *diag.Range {
	if !pos.IsValid() || pos.Filename() == "" || strings.HasPrefix(pos.Filename(), schemaFile) {
		return nil
	}
	file := p.display(pos.Filename())
	start := diag.Pos{Line: pos.Line(), Col: pos.Column(), Byte: pos.Offset()}
	end := start
	// Extend to the end of the token at pos, for the snippet marker.
	if src := p.sources[file]; src != nil && start.Byte < len(src) {
		n := tokenLen(src[start.Byte:])
		end.Col += len([]rune(string(src[start.Byte : start.Byte+n])))
		end.Byte += n
	}
	return &diag.Range{File: file, Start: start, End: end}
}

// tokenLen is the length of the identifier, string or number at the start
// of b, or 1.
func tokenLen(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	if b[0] == '"' {
		for i := 1; i < len(b); i++ {
			if b[i] == '\\' {
				i++
				continue
			}
			if b[i] == '"' || b[i] == '\n' {
				return i + 1
			}
		}
		return len(b)
	}
	i := 0
	for i < len(b) && (isIdentByte(b[i]) || b[i] == '.' && i > 0 && i+1 < len(b) && b[i+1] >= '0' && b[i+1] <= '9') {
		i++
	}
	return max(i, 1)
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || c == '#' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}

// cuePositions returns the user-file positions among an error's inputs.
func (p *project) cuePositions(e cueerrors.Error) []*diag.Range {
	var out []*diag.Range
	seen := map[string]bool{}
	add := func(pos token.Pos) {
		if r := p.rangeOfPos(pos); r != nil && !seen[r.String()] {
			seen[r.String()] = true
			out = append(out, r)
		}
	}
	add(e.Position())
	for _, pos := range cueerrors.Positions(e) {
		add(pos)
	}
	return out
}
