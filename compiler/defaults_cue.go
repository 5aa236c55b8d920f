package compiler

import (
	"bytes"
	"encoding/json"
	"strings"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// The CUE side of shared defaults (issue 11: shared defaults): defaults and
// default_sets are read from the user's value as data, and the merge is
// done on exported data (defaults.go), never by unification, so that a
// resource overriding a default's env key or adding a tag is no conflict.

// cueDefaults reads the project's defaults from the user's value v and
// checks their fields.
func cueDefaults(p *project, v cue.Value, loc locator) (*sharedDefaults, diag.Diagnostics) {
	sd := newSharedDefaults()
	sd.cueRoot = v
	var ds diag.Diagnostics
	if dv := v.LookupPath(cue.MakePath(cue.Str(defaultsField))); dv.Exists() {
		ds = append(ds, cueDefaultKinds(p, sd, "", dv, []string{defaultsField}, loc)...)
	}
	sv := v.LookupPath(cue.MakePath(cue.Str(defaultSetsField)))
	if !sv.Exists() {
		return sd, ds
	}
	it, err := sv.Fields()
	if err != nil {
		return sd, append(ds, diag.Errorf(loc.at([]string{defaultSetsField}), "default_sets holds named sets: default_sets: gpu: sandbox: {...}"))
	}
	for it.Next() {
		if !it.Selector().IsString() {
			continue
		}
		name := it.Selector().Unquoted()
		if d := checkSetName(name, loc.key([]string{defaultSetsField, name})); d != nil {
			ds = append(ds, d)
			continue
		}
		sd.addSet(name)
		ds = append(ds, cueDefaultKinds(p, sd, name, it.Value(), []string{defaultSetsField, name}, loc)...)
	}
	return sd, ds
}

// cueDefaultKinds reads one set's defaults by kind (set "" is the
// project-wide one, at path at).
func cueDefaultKinds(p *project, sd *sharedDefaults, set string, v cue.Value, at []string, loc locator) diag.Diagnostics {
	it, err := v.Fields()
	if err != nil {
		return diag.Diagnostics{diag.Errorf(loc.at(at), "defaults are by kind: %s: sandbox: {...}", at[len(at)-1])}
	}
	var ds diag.Diagnostics
	for it.Next() {
		if !it.Selector().IsString() {
			continue
		}
		name := it.Selector().Unquoted()
		origin := appendPath(at, name)
		if d := checkKindName(name, loc.key(origin)); d != nil {
			ds = append(ds, d)
			continue
		}
		tree, err := exportTree(it.Value())
		if err != nil {
			ds = append(ds, diag.Errorf(loc.at(origin), "%s: a default must be concrete on its own: %v", pathString(origin), err))
			continue
		}
		m, ok := tree.(map[string]any)
		if !ok {
			ds = append(ds, diag.Errorf(loc.at(origin), "%s: a default is a struct of the kind's fields", pathString(origin)))
			continue
		}
		l := &defaultLayer{origin: origin, tree: m}
		ds = append(ds, checkLayer(compiledSchemaOf(p.schema()), schema.Kind(name), l, loc)...)
		sd.add(set, schema.Kind(name), l)
	}
	return ds
}

// exportTree exports a CUE value as plain data, numbers as json.Number.
func exportTree(v cue.Value) (any, error) {
	b, err := v.MarshalJSON()
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	err = dec.Decode(&tree)
	return tree, err
}

// pathString writes a config path with dots.
func pathString(path []string) string {
	var b bytes.Buffer
	for i, e := range path {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(e)
	}
	return b.String()
}

// cueUsesDefaults reports whether v needs the merge: it declares defaults
// or one of its resources names sets.
func cueUsesDefaults(sd *sharedDefaults, v cue.Value) bool {
	if sd.declared() {
		return true
	}
	for _, k := range defaultKinds {
		it, err := v.LookupPath(cue.MakePath(cue.Str(k.Plural()))).Fields()
		if err != nil {
			continue
		}
		for it.Next() {
			if it.Value().LookupPath(cue.MakePath(cue.Str(useDefaultsField))).Exists() {
				return true
			}
		}
	}
	return false
}

// mergedCUE is the user's value v with the defaults merged in, as data
// encoded for unification with #Config: what a configuration with
// defaults means.
func mergedCUE(sd *sharedDefaults, v cue.Value, loc locator, tr *cueTranslator) (cue.Value, diag.Diagnostics) {
	tree, err := exportTree(v)
	if err != nil {
		return cue.Value{}, tr.translate(err)
	}
	cctx := cuecontext.New() // values of two contexts may be unified
	m, ok := tree.(map[string]any)
	if !ok {
		return cctx.Encode(tree), nil
	}
	ds := applyAllDefaults(sd, m, loc, nil, cueRefOf(v, nil))
	if ds.HasErrors() {
		return cue.Value{}, ds
	}
	return cctx.Encode(numbersOf(m)), nil
}

// applyAllDefaults merges the defaults into every resource of cfg (plain
// data) that takes them and drops the defaults themselves. sens, when not
// nil, gets the sensitive paths the merged values carry.
func applyAllDefaults(sd *sharedDefaults, cfg map[string]any, loc locator, sens *[][]string, ref refOf) diag.Diagnostics {
	delete(cfg, defaultsField)
	delete(cfg, defaultSetsField)
	if sd.declared() {
		for _, c := range sortedKeys(cfg) {
			cfg[c] = sd.mergeCopies(cfg[c], []string{c}, ref)
		}
	}
	var ds diag.Diagnostics
	for _, k := range defaultKinds {
		rs, _ := cfg[k.Plural()].(map[string]any)
		for _, name := range sortedKeys(rs) {
			r, ok := rs[name].(map[string]any)
			if !ok {
				continue
			}
			out, moved, rds := sd.apply(k, []string{k.Plural(), name}, r, loc)
			ds = append(ds, rds...)
			rs[name] = out
			if sens != nil {
				*sens = append(*sens, moved...)
			}
		}
	}
	return ds
}

// numbersOf turns json.Number into int64 or float64, for cue's Encode.
func numbersOf(v any) any {
	switch v := v.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case map[string]any:
		for k, x := range v {
			v[k] = numbersOf(x)
		}
	case []any:
		for i, x := range v {
			v[i] = numbersOf(x)
		}
	}
	return v
}

// markDefaultCUERefs stamps the references a resource's values from
// defaults make, looking where they are written (CUE only).
func markDefaultCUERefs(coll, name string, r any, sd *sharedDefaults) {
	markDefaultSites(resourceRefSites(nil, coll, name, r), sd)
}

// markAllDefaultCUERefs is markDefaultCUERefs for a whole configuration.
func markAllDefaultCUERefs(cfg *schema.Config, sd *sharedDefaults) {
	markDefaultSites(refSites(cfg), sd)
}

func markDefaultSites(sites []refSite, sd *sharedDefaults) {
	if sd == nil {
		return
	}
	root := sd.cueRoot
	if !root.Exists() {
		return
	}
	for _, site := range sites {
		if *site.id != "" {
			continue
		}
		if o := sd.origin(site.path); pathKey(o) != pathKey(site.path) {
			*site.id = cueReference(root, o, site.kind)
		}
	}
}

// cueRefOf knows CUE's copies by the reference they are written as, in
// root (at the config path, less the prefix strip: a resource's own value
// is looked into with paths inside it).
func cueRefOf(root cue.Value, strip []string) refOf {
	return func(path []string, _ map[string]any) (schema.Kind, string, bool) {
		for _, k := range defaultKinds {
			if addr := cueReference(root, path[len(strip):], k); addr != "" {
				kind, name, _ := strings.Cut(addr, ".")
				return schema.Kind(kind), name, true
			}
		}
		return "", "", false
	}
}
