package compiler

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"cuelang.org/go/cue"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// Shared defaults (issue 11: shared defaults), seed B's SandboxDefaults.
//
// A project declares defaults by kind, project-wide (CUE defaults:
// sandbox: {...}, HCL defaults { sandbox { ... } }) and as named sets
// (CUE default_sets: gpu: sandbox: {...}, HCL defaults "gpu" { sandbox {
// ... } }); a resource opts into sets with use_defaults = ["gpu"]. The
// merge is done here, in Go, on the evaluated data of both languages and
// before a resource meets its kind's schema: the project-wide defaults
// first, then each set in use_defaults order, the resource's own fields
// last. tags are merged (union, first seen first, no duplicates), env and
// annotations merged by key (the later wins), every other field replaced
// as a whole. Defaults leave nothing in the desired state but their effect.

// defaultKinds are the kinds that take shared defaults. Adding a kind is
// adding it here (its HCL block and CUE field inside defaults are its kind
// name, its fields those of its collection's schema).
var defaultKinds = []schema.Kind{schema.KindSandbox, schema.KindFunction, schema.KindContainer, schema.KindScalingGroup}

// The configuration names of the construct.
const (
	defaultsField    = "defaults"     // project-wide, by kind
	defaultSetsField = "default_sets" // named sets, by name then kind
	useDefaultsField = "use_defaults" // a resource's sets, in order
)

// defaultsNotAllowed are the fields of a kind a default may not hold: those
// that are the resource's own (its identity, its lifecycle).
var defaultsNotAllowed = map[string]bool{"$id": true, "lifecycle": true, useDefaultsField: true}

// mergeRules says how a field of a default meets the resource's: "union"
// (lists), "keys" (maps); any other field is replaced.
var mergeRules = map[string]string{"tags": "union", "env": "keys", "annotations": "keys"}

// isDefaultKind reports whether resources of collection coll take defaults,
// and their kind.
func isDefaultKind(coll string) (schema.Kind, bool) {
	for _, k := range defaultKinds {
		if k.Plural() == coll {
			return k, true
		}
	}
	return "", false
}

// isDefaultColl reports whether resources of collection coll take defaults.
func isDefaultColl(coll string) bool {
	_, ok := isDefaultKind(coll)
	return ok
}

// defaultKindNames are the names of defaultKinds, for did-you-mean.
func defaultKindNames() []string {
	var out []string
	for _, k := range defaultKinds {
		out = append(out, string(k))
	}
	return out
}

// defaultLayer is one kind's defaults from one place.
type defaultLayer struct {
	// origin is its config path: defaults.sandbox or default_sets.gpu.sandbox.
	origin []string
	tree   map[string]any
	// sensitive are the config paths of its sensitive values (HCL).
	sensitive [][]string
}

// sharedDefaults are a project's defaults, and where each merged value of
// a resource came from. Safe for the collector's workers.
type sharedDefaults struct {
	mu      sync.Mutex
	project map[schema.Kind]*defaultLayer
	sets    map[string]map[schema.Kind]*defaultLayer
	// prov maps a merged resource's config path (pathKey) to the config
	// path its value was written at, when that is elsewhere.
	prov map[string][]string
	// cueRoot is the user's CUE value (CUE only), to find references in.
	cueRoot cue.Value
}

func newSharedDefaults() *sharedDefaults {
	return &sharedDefaults{project: map[schema.Kind]*defaultLayer{}, sets: map[string]map[schema.Kind]*defaultLayer{}, prov: map[string][]string{}}
}

// declared reports whether the project declares any defaults.
func (s *sharedDefaults) declared() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.project) > 0 || len(s.sets) > 0
}

// addSet records that the set exists (it may hold no kind yet).
func (s *sharedDefaults) addSet(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sets[name] == nil {
		s.sets[name] = map[schema.Kind]*defaultLayer{}
	}
}

// add records kind k's defaults of a set ("" for project-wide).
func (s *sharedDefaults) add(set string, k schema.Kind, l *defaultLayer) {
	if set == "" {
		s.mu.Lock()
		s.project[k] = l
		s.mu.Unlock()
		return
	}
	s.addSet(set)
	s.mu.Lock()
	s.sets[set][k] = l
	s.mu.Unlock()
}

// origin maps a config path to where its value was written: into the
// default it came from, else the path itself.
func (s *sharedDefaults) origin(path []string) []string {
	if s == nil {
		return path
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for n := len(path); n >= 3; n-- {
		if o, ok := s.prov[pathKey(path[:n])]; ok {
			return append(append([]string(nil), o...), path[n:]...)
		}
	}
	return path
}

// defaultsLocator positions a merged resource's values where they are
// written: a value from a default in the default.
type defaultsLocator struct {
	inner locator
	sd    *sharedDefaults
}

func (l *defaultsLocator) at(path []string) *diag.Range  { return l.inner.at(l.sd.origin(path)) }
func (l *defaultsLocator) key(path []string) *diag.Range { return l.inner.key(l.sd.origin(path)) }

// withDefaults wraps loc to position values from defaults.
func withDefaults(loc locator, sd *sharedDefaults) locator {
	if sd == nil {
		return loc
	}
	return &defaultsLocator{inner: loc, sd: sd}
}

// checkLayer refuses what a default of kind k may not hold: a field its
// kind's schema does not have (with did-you-mean), or one of the
// resource's own.
func checkLayer(fs *fastSchema, k schema.Kind, l *defaultLayer, loc locator) diag.Diagnostics {
	known := fs.fieldsAt([]string{k.Plural(), "x"})
	isKnown := map[string]bool{}
	for _, f := range known {
		isKnown[f] = true
	}
	var ds diag.Diagnostics
	for _, name := range sortedKeys(l.tree) {
		at := loc.key(appendPath(l.origin, name))
		if defaultsNotAllowed[name] {
			ds = append(ds, diag.Errorf(at, "a default cannot hold %s: it is the resource's own", name))
			continue
		}
		if isKnown[name] {
			continue
		}
		d := diag.Errorf(at, "unknown field %q in %s defaults", name, k)
		if sg := diag.Suggest(name, known); sg != "" {
			d.Summary += fmt.Sprintf("; did you mean %q?", sg)
		} else {
			d.Detail = "allowed here: " + strings.Join(known, ", ")
		}
		ds = append(ds, d)
	}
	return ds
}

// checkKindName refuses a kind inside defaults that takes none.
func checkKindName(name string, at *diag.Range) *diag.Diagnostic {
	for _, k := range defaultKinds {
		if string(k) == name {
			return nil
		}
	}
	d := diag.Errorf(at, "%q takes no defaults", name)
	if sg := diag.Suggest(name, defaultKindNames()); sg != "" {
		d.Summary += fmt.Sprintf("; did you mean %q?", sg)
	} else {
		d.Detail = "defaults are by kind: " + strings.Join(defaultKindNames(), ", ")
	}
	return d
}

// checkSetName refuses a default set's name that is not a resource name's
// form.
func checkSetName(name string, at *diag.Range) *diag.Diagnostic {
	if schema.ValidName(name) {
		return nil
	}
	return diag.Errorf(at, "default set name %q: lowercase letters, digits and \"-\", starting with a letter, at most 63", name)
}

// apply merges into the tree of resource path (collection, name) the
// defaults it takes and returns the merged tree, without use_defaults,
// and the sensitive paths its values from defaults have. A resource that
// takes none is returned as it is.
func (s *sharedDefaults) apply(k schema.Kind, path []string, tree map[string]any, loc locator) (map[string]any, [][]string, diag.Diagnostics) {
	layers, ds := s.layersOf(k, path, tree, loc)
	own := make(map[string]any, len(tree))
	for f, v := range tree {
		if f != useDefaultsField {
			own[f] = v
		}
	}
	if len(layers) == 0 || ds.HasErrors() {
		return own, nil, ds
	}
	out := map[string]any{}
	prov := map[string][]string{}
	for _, l := range layers {
		// A copy: the collector's workers fill each resource in place, at
		// once, so no value of a layer may be in two resources.
		mergeLayer(out, deepCopy(l.tree).(map[string]any), l.origin, prov)
	}
	mergeLayer(out, own, path, prov)
	var sens [][]string
	s.mu.Lock()
	defer s.mu.Unlock()
	for rel, o := range prov {
		full := append(append([]string(nil), path...), strings.Split(rel, "\x00")...)
		if pathKey(o) != pathKey(full) {
			s.prov[pathKey(full)] = o
		}
		for _, l := range layers {
			sens = append(sens, movedSensitive(l.sensitive, o, full)...)
		}
	}
	sort.Slice(sens, func(i, j int) bool { return pathKey(sens[i]) < pathKey(sens[j]) })
	return out, sens, nil
}

// movedSensitive are the sensitive paths under from, moved under to.
func movedSensitive(sens [][]string, from, to []string) [][]string {
	var out [][]string
	for _, p := range sens {
		if len(p) >= len(from) && pathKey(p[:len(from)]) == pathKey(from) {
			out = append(out, append(append([]string(nil), to...), p[len(from):]...))
		}
	}
	return out
}

// layersOf are the defaults a resource takes, in order: the project-wide
// ones of its kind, then its use_defaults sets.
func (s *sharedDefaults) layersOf(k schema.Kind, path []string, tree map[string]any, loc locator) ([]*defaultLayer, diag.Diagnostics) {
	s.mu.Lock()
	var layers []*defaultLayer
	if l := s.project[k]; l != nil {
		layers = append(layers, l)
	}
	sets := make(map[string]map[schema.Kind]*defaultLayer, len(s.sets))
	for n, m := range s.sets {
		sets[n] = m
	}
	s.mu.Unlock()
	raw, ok := tree[useDefaultsField]
	if !ok {
		return layers, nil
	}
	at := appendPath(path, useDefaultsField)
	names, ok := raw.([]any)
	if !ok {
		return nil, diag.Diagnostics{diag.Errorf(loc.at(at), "use_defaults is a list of default set names")}
	}
	var ds diag.Diagnostics
	for i, n := range names {
		rng := loc.at(appendPath(at, strconv.Itoa(i)))
		name, ok := n.(string)
		set, found := sets[name]
		switch {
		case !ok:
			ds = append(ds, diag.Errorf(rng, "use_defaults is a list of default set names"))
		case !found:
			d := diag.Errorf(rng, "no default set %q", name)
			if sg := diag.Suggest(name, sortedKeys(sets)); sg != "" {
				d.Summary += fmt.Sprintf("; did you mean %q?", sg)
			} else if len(sets) == 0 {
				d.Detail = "the project declares no default sets"
			} else {
				d.Detail = "the project's default sets: " + strings.Join(sortedKeys(sets), ", ")
			}
			ds = append(ds, d)
		case set[k] == nil:
			ds = append(ds, diag.Errorf(rng, "default set %q holds no %s defaults", name, k))
		default:
			layers = append(layers, set[k])
		}
	}
	return layers, ds
}

// mergeLayer merges one layer's fields into out by mergeRules, recording
// in prov (by path relative to the resource) where each came from.
func mergeLayer(out, layer map[string]any, origin []string, prov map[string][]string) {
	for _, f := range sortedKeys(layer) {
		v := layer[f]
		switch rule := mergeRules[f]; {
		case rule == "union" && isList(v) && (out[f] == nil || isList(out[f])):
			have, _ := out[f].([]any)
			out[f] = unionInto(have, v.([]any), f, origin, prov)
		case rule == "keys" && isMap(v) && (out[f] == nil || isMap(out[f])):
			have, _ := out[f].(map[string]any)
			m := make(map[string]any, len(have))
			for k, x := range have {
				m[k] = x
			}
			for k, x := range v.(map[string]any) {
				m[k] = x
				prov[pathKey([]string{f, k})] = appendPath(origin, f, k)
			}
			out[f] = m
		default:
			forgetUnder(prov, f)
			out[f] = v
			prov[f] = appendPath(origin, f)
		}
	}
}

func isList(v any) bool { _, ok := v.([]any); return ok }
func isMap(v any) bool  { _, ok := v.(map[string]any); return ok }

// unionInto appends to have the elements of add it lacks.
func unionInto(have, add []any, f string, origin []string, prov map[string][]string) []any {
	out := append([]any(nil), have...)
	for i, x := range add {
		dup := false
		for _, y := range out {
			if reflect.DeepEqual(x, y) {
				dup = true
				break
			}
		}
		if !dup {
			prov[pathKey([]string{f, strconv.Itoa(len(out))})] = appendPath(origin, f, strconv.Itoa(i))
			out = append(out, x)
		}
	}
	return out
}

// forgetUnder drops what prov says about field f and below.
func forgetUnder(prov map[string][]string, f string) {
	for k := range prov {
		if k == f || strings.HasPrefix(k, f+"\x00") {
			delete(prov, k)
		}
	}
}

// refOf tells whether the value at a config path is a copy of another
// resource (a reference: function.x as an evaluation's task) and of which:
// its kind and name.
type refOf func(path []string, node map[string]any) (schema.Kind, string, bool)

// hclRefOf knows HCL's copies by the "$id" the evaluator stamps on them.
func hclRefOf(_ []string, node map[string]any) (schema.Kind, string, bool) {
	id, _ := node["$id"].(string)
	k, name, ok := strings.Cut(id, ".")
	return schema.Kind(k), name, ok
}

// mergeCopies merges the defaults into the copies of resources that take
// them found under tree (at path, not itself a copy), so that a reference
// to a function from defaults is that function, as its own declaration is.
func (s *sharedDefaults) mergeCopies(tree any, path []string, ref refOf) any {
	return s.mergeCopiesAt(tree, ownPath(path), ref)
}

// ownPath is a copy of path with room to grow: a walk appends each
// level's name to it in place (issue 13: a path per value was most of the
// walk's allocations), so what keeps a path copies it.
func ownPath(path []string) []string {
	out := make([]string, len(path), len(path)+16)
	copy(out, path)
	return out
}

// mergeCopiesAt is mergeCopies on a path of its own (ownPath). Which
// entry comes first does not matter: each is merged on its own.
func (s *sharedDefaults) mergeCopiesAt(tree any, path []string, ref refOf) any {
	switch t := tree.(type) {
	case map[string]any:
		for f, x := range t {
			t[f] = s.mergeCopy(x, append(path, f), ref)
		}
	case []any:
		for i, x := range t {
			t[i] = s.mergeCopy(x, append(path, strconv.Itoa(i)), ref)
		}
	}
	return tree
}

// mergeCopy is mergeCopies for a value that may be a copy; path is its
// own (ownPath) and not kept.
func (s *sharedDefaults) mergeCopy(v any, path []string, ref refOf) any {
	if m, ok := v.(map[string]any); ok && len(path) > 2 {
		if k, name, ok := ref(path, m); ok && isDefaultColl(k.Plural()) {
			out, _, _ := s.apply(k, []string{k.Plural(), name}, m, nowhere{})
			return out
		}
	}
	return s.mergeCopiesAt(v, path, ref)
}
