package compiler

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// sdkItem is one declarative item of a platform SDK document and the cc
// field that expresses it.
type sdkItem struct {
	// item is the thing as the SDK names it ("NetworkOptions.egress_mode").
	item string
	// doc is the SDK document: "a" (platform-sdk-a.md) or "b"
	// (platform-sdk-b.md); section is its heading there.
	doc, section string
	// path is the cc field, as schema.Lookup reads it.
	path string
	// value, when set, is a value some example must give the field (an
	// enum member, a built-in image's base); otherwise setting it is
	// enough.
	value string
}

// TestIssue11SDKCoverage: every declarative item of both SDK documents
// (sdkItems) has a cc field in the embedded schema, and some example
// sets that field, in CUE as the example writes it (schema defaults do
// not count) and in the HCL twin's configuration. A failure lists every
// missing path at once (issue 11 acceptance 2: SDK coverage).
func TestIssue11SDKCoverage(t *testing.T) {
	s := schema.Default()
	used := examplesUse(t, s)
	var noSchema, noExample []string
	for _, it := range sdkItems {
		if it.doc != "a" && it.doc != "b" && it.doc != "issue" || it.section == "" || it.item == "" {
			t.Errorf("%+v: want an item, doc a, b or issue, and a section", it)
		}
		line := fmt.Sprintf("%-50s %s [%s, %s]", it.path+valueSuffix(it.value), it.item, docName(it.doc), it.section)
		if _, err := s.Lookup(it.path); err != nil {
			noSchema = append(noSchema, line)
		} else if !used.has(it.path, it.value) {
			noExample = append(noExample, line)
		}
	}
	if len(noSchema)+len(noExample) > 0 {
		t.Errorf("%d of %d SDK items are not covered.\nnot in schema (%d):\n  %s\nin no example (%d):\n  %s",
			len(noSchema)+len(noExample), len(sdkItems), len(noSchema), strings.Join(noSchema, "\n  "),
			len(noExample), strings.Join(noExample, "\n  "))
	}
	for _, it := range notDeclarative {
		if it.item == "" || it.why == "" || it.doc != "a" && it.doc != "b" {
			t.Errorf("not declarative %+v: want an item, a doc and a reason", it)
		}
	}
}

func docName(doc string) string {
	if doc == "issue" {
		return "issue 11"
	}
	return "sdk-" + doc
}

func valueSuffix(v string) string {
	if v == "" {
		return ""
	}
	return " = " + v
}

// fieldUse is what the examples set: schema paths (every chain of field
// names from a definition to a field) and the scalar values seen there.
type fieldUse struct {
	paths  map[string]bool
	values map[string]map[string]bool
}

func newFieldUse() *fieldUse {
	return &fieldUse{paths: map[string]bool{}, values: map[string]map[string]bool{}}
}

func (u *fieldUse) has(path, value string) bool {
	if value == "" {
		return u.paths[path]
	}
	return u.values[path][value]
}

func (u *fieldUse) add(path string, v any) {
	u.paths[path] = true
	switch v.(type) {
	case map[string]any, []any, nil:
		return
	}
	if u.values[path] == nil {
		u.values[path] = map[string]bool{}
	}
	u.values[path][fmt.Sprint(v)] = true
}

// examplesUse compiles every example in both languages and returns the
// paths some example sets in CUE (its own value, before the schema's
// defaults) that its HCL configuration has too, and the values of its
// images' compiled specs (built-in images are there).
func examplesUse(t *testing.T, s *schema.Schema) *fieldUse {
	t.Helper()
	dirs, err := filepath.Glob("../examples/*/main.cue")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("examples: %v %v", dirs, err)
	}
	used := newFieldUse()
	for _, f := range dirs {
		dir := filepath.Dir(f)
		written, hcl := newFieldUse(), newFieldUse()
		walkConfig(s, exampleConfig(t, dir, "cue", true), written)
		walkConfig(s, exampleConfig(t, dir, "hcl", false), hcl)
		for p := range written.paths {
			if hcl.paths[p] {
				used.paths[p] = true
			}
		}
		for p, vs := range written.values {
			for v := range vs {
				if hcl.values[p][v] {
					used.add(p, v)
				}
			}
		}
		for _, lang := range []string{"cue", "hcl"} {
			res, err := Compile(context.Background(), Input{Path: filepath.Join(dir, "main."+lang)})
			if err != nil {
				t.Fatalf("%s/main.%s: %v", dir, lang, err)
			}
			for _, r := range res.Desired.Resources {
				if r.Kind == schema.KindImage {
					walkDef(s, s.Def("#Image"), []string{"#Image"}, decodeJSON(t, r.Spec), used)
				}
			}
		}
	}
	return used
}

// exampleConfig loads an example's configuration as JSON data: in CUE
// what the files say (written: the user's value, without the schema's
// defaults), in HCL the evaluated configuration.
func exampleConfig(t *testing.T, dir, lang string, written bool) any {
	t.Helper()
	p, err := locate(filepath.Join(dir, "main."+lang), DefaultMaxConfigSize)
	if err != nil {
		t.Fatal(err)
	}
	var ld *loaded
	var ds diag.Diagnostics
	if lang == "cue" {
		ld, ds = loadCUE(context.Background(), p)
	} else {
		ld, ds = loadHCL(context.Background(), p, nil, nil)
	}
	if ld == nil {
		t.Fatalf("%s/main.%s does not load: %v", dir, lang, ds)
	}
	b := ld.json
	if written {
		if w, err := ld.user.MarshalJSON(); err == nil {
			b = w
		} else {
			t.Logf("%s/main.%s: its own value does not export (%v): its schema defaults count as set", dir, lang, err)
		}
	} else if b == nil {
		if b, err = json.Marshal(ld.cfg); err != nil {
			t.Fatal(err)
		}
	}
	cfg := decodeJSON(t, b)
	if !written {
		addDefaults(cfg, ld.defaults)
	}
	return cfg
}

// addDefaults puts the shared defaults back into an evaluated
// configuration, which has them merged into its resources: the walk sees
// the defaults and default_sets the project declared.
func addDefaults(cfg any, sd *sharedDefaults) {
	top, ok := cfg.(map[string]any)
	if !ok || sd == nil || !sd.declared() {
		return
	}
	if len(sd.project) > 0 {
		d := map[string]any{}
		for k, l := range sd.project {
			d[string(k)] = l.tree
		}
		top["defaults"] = d
	}
	if len(sd.sets) > 0 {
		sets := map[string]any{}
		for name, kinds := range sd.sets {
			d := map[string]any{}
			for k, l := range kinds {
				d[string(k)] = l.tree
			}
			sets[name] = d
		}
		top["default_sets"] = sets
	}
}

func decodeJSON(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// walkConfig records the paths a configuration sets: #Config's fields,
// and each resource's from its kind's definition.
func walkConfig(s *schema.Schema, cfg any, u *fieldUse) {
	top, _ := cfg.(map[string]any)
	kinds := map[string]*schema.Def{}
	for _, k := range schema.Kinds {
		kinds[k.Plural()] = kindDef(s, k)
	}
	for _, key := range sortedKeysOf(top) {
		d, isKind := kinds[key]
		if !isKind {
			walkDef(s, s.Def("#Config"), []string{"#Config"}, map[string]any{key: top[key]}, u)
			continue
		}
		u.add("#Config."+key, top[key])
		coll, _ := top[key].(map[string]any)
		for _, name := range sortedKeysOf(coll) {
			if d != nil {
				walkDef(s, d, []string{d.Name}, coll[name], u)
			}
		}
	}
}

// kindDef is a kind's definition: #Sandbox for sandbox, #ScalingGroup
// for scaling_group.
func kindDef(s *schema.Schema, k schema.Kind) *schema.Def {
	if d := s.Kind(k); d != nil {
		return d
	}
	var b strings.Builder
	for _, w := range strings.Split(string(k), "_") {
		if w != "" {
			b.WriteString(strings.ToUpper(w[:1]) + w[1:])
		}
	}
	return s.Def("#" + b.String())
}

// walkDef records the fields of v, a value of d, under each prefix: the
// chains of field names that lead to v, from each definition on the way.
func walkDef(s *schema.Schema, d *schema.Def, prefixes []string, v any, u *fieldUse) {
	switch v := v.(type) {
	case []any:
		for _, el := range v {
			walkDef(s, d, prefixes, el, u)
		}
		return
	case map[string]any:
		for _, key := range sortedKeysOf(v) {
			f := d.Field(key)
			if f == nil {
				continue
			}
			var next []string
			for _, p := range prefixes {
				next = append(next, p+"."+key)
				u.add(p+"."+key, v[key])
			}
			for _, el := range scalarsOf(v[key]) {
				for _, p := range next {
					u.add(p, el)
				}
			}
			elem := s.Elem(f)
			if elem == nil {
				continue
			}
			if f.Inline == nil && f.Type != "" {
				next = append(next, f.Type)
			}
			walkDef(s, elem, next, v[key], u)
		}
	}
}

// scalarsOf returns the scalar elements of a list.
func scalarsOf(v any) []any {
	l, _ := v.([]any)
	var out []any
	for _, el := range l {
		switch el.(type) {
		case map[string]any, []any, nil:
		default:
			out = append(out, el)
		}
	}
	return out
}

func sortedKeysOf(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestIssue11CoverageWalk: the coverage walk names a field by every chain
// from a definition to it, keeps list elements' values, goes into no map,
// and takes from CUE only what an example writes, not the schema's
// defaults (issue 11: SDK coverage).
func TestIssue11CoverageWalk(t *testing.T) {
	s := schema.Default()
	u := newFieldUse()
	walkConfig(s, map[string]any{
		"project": "p",
		"sandboxes": map[string]any{"dev": map[string]any{
			"image":     map[string]any{"from": "x", "steps": []any{map[string]any{"apt": map[string]any{"packages": []any{"git"}}}}},
			"resources": map[string]any{"gpu": map[string]any{"count": 1}},
			"env":       map[string]any{"tags": "not a field"},
		}},
	}, u)
	for _, p := range []string{"#Config.project", "#Config.sandboxes", "#Sandbox.image.from", "#Image.from",
		"#Sandbox.image.steps.apt.packages", "#Image.steps.apt.packages", "#Step.apt.packages",
		"#Sandbox.resources.gpu.count", "#Resources.gpu.count", "#Sandbox.env"} {
		if !u.has(p, "") {
			t.Errorf("walk misses %s", p)
		}
	}
	if !u.has("#Step.apt.packages", "git") || u.has("#Step.apt.packages", "curl") || !u.has("#Image.from", "x") {
		t.Errorf("walk values = %v", u.values)
	}
	if u.has("#Sandbox.env.tags", "") || u.has("#Sandbox.tags", "") {
		t.Errorf("walk went into the env map: %v", u.paths)
	}
	cue, hcl := newFieldUse(), newFieldUse()
	walkConfig(s, exampleConfig(t, "../examples/quickstart", "cue", true), cue)
	walkConfig(s, exampleConfig(t, "../examples/quickstart", "hcl", false), hcl)
	const def = "#Scorer.exact_match.trim" // quickstart leaves it to the schema's default
	if cue.has(def, "") || !hcl.has(def, "") || !cue.has("#Scorer.exact_match.case_insensitive", "true") {
		t.Errorf("CUE's own value: %s set %v (want false), HCL's configuration: %v (want true)", def, cue.has(def, ""), hcl.has(def, ""))
	}
}
