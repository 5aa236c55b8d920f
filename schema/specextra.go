package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// withoutSchemaOnly is spec without its top-level fields that the embedded
// schema declares for kind k and the spec's Go type (v, a pointer) lacks:
// those ride in a config's Extra into the spec (issue 16), and the
// service takes them (issue 11: a sandbox's ports, a function's tags).
// Each is checked for its form where it has one (a #Duration); "$id" and
// lifecycle, in no spec, are not taken. Anything else the type lacks is
// left for the strict decode to refuse.
func withoutSchemaOnly(k Kind, spec []byte, v any) ([]byte, error) {
	d := Default().Kind(k)
	if d == nil {
		return spec, nil
	}
	known := jsonFields(reflect.TypeOf(v).Elem())
	// A spec the service is sent is canonical and has no schema-only
	// field most often: its keys are read without decoding it (issue 13).
	if canonicalKeys(spec, func(name []byte) bool {
		return known[string(name)] || string(name) == "$id" || string(name) == "lifecycle" || d.Field(string(name)) == nil
	}) {
		return spec, nil
	}
	return cutSchemaOnly(d, spec, known)
}

// cutSchemaOnly is withoutSchemaOnly of a spec decoded: d is the schema's
// kind and known the fields of the spec's Go type.
func cutSchemaOnly(d *Def, spec []byte, known map[string]bool) ([]byte, error) {
	var m map[string]json.RawMessage
	if json.Unmarshal(spec, &m) != nil {
		return spec, nil // the strict decode words it
	}
	cut := false
	for _, name := range slices.Sorted(maps.Keys(m)) { // the first wrong field, in order, is named
		f := d.Field(name)
		if known[name] || f == nil || name == "$id" || name == "lifecycle" {
			continue
		}
		if err := checkSchemaOnly(f, m[name]); err != nil {
			return nil, err
		}
		delete(m, name)
		cut = true
	}
	if !cut {
		return spec, nil
	}
	return json.Marshal(m)
}

// checkSchemaOnly checks a schema-only field's value by the schema's
// shape of it: not null; a list where the field is one; an object of the
// struct's fields (recursively) where it is a struct, of scalars where it
// is a map ([string]: string); a scalar elsewhere, in its canonical form
// when its type has one. The constraints of values (ranges, patterns,
// enums) are the compiler's: what the service takes is what a compiled
// spec has the shape of.
func checkSchemaOnly(f *Field, raw json.RawMessage) error {
	var val any
	if err := json.Unmarshal(raw, &val); err != nil || val == nil {
		return fmt.Errorf("field %s: want a value", f.Name)
	}
	return checkShape(Default(), f, val, f.Name)
}

func checkShape(s *Schema, f *Field, val any, at string) error {
	if f.List {
		list, ok := val.([]any)
		if !ok {
			return fmt.Errorf("field %s: want a list", at)
		}
		for i, x := range list {
			if err := checkElem(s, f, x, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		return nil
	}
	return checkElem(s, f, val, at)
}

// checkElem checks one value (a list's element) of field f.
func checkElem(s *Schema, f *Field, val any, at string) error {
	d := s.Elem(f)
	obj, isObj := val.(map[string]any)
	_, isList := val.([]any)
	switch {
	case d != nil && !isObj:
		return fmt.Errorf("field %s: want an object", at)
	case d != nil:
		for _, k := range slices.Sorted(maps.Keys(obj)) { // the first wrong field, in order, is named
			x := obj[k]
			sub := d.Field(k)
			if len(d.Fields) == 0 { // a map: [string]: scalar
				sub = &Field{Name: k}
			}
			if sub == nil {
				return fmt.Errorf("field %s: unknown field %q", at, k)
			}
			if err := checkShape(s, sub, x, at+"."+k); err != nil {
				return err
			}
		}
		return nil
	case isObj || isList || val == nil:
		return fmt.Errorf("field %s: want a scalar", at)
	}
	str, isStr := val.(string)
	if f.Form == "" {
		return nil
	}
	if !isStr {
		return fmt.Errorf("field %s: want a string", at)
	}
	c, err := Forms[f.Form](str)
	if err != nil {
		return fmt.Errorf("field %s: %w", at, err)
	}
	if c != str {
		return fmt.Errorf("field %s: %q is not in its canonical form %q", at, str, c)
	}
	return nil
}

var jsonFieldsCache sync.Map // reflect.Type → map[string]bool

// jsonFields are the JSON names of a struct type's fields, those of
// embedded structs included.
func jsonFields(t reflect.Type) map[string]bool {
	if c, ok := jsonFieldsCache.Load(t); ok {
		return c.(map[string]bool)
	}
	out := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			for n := range jsonFields(sf.Type) {
				out[n] = true
			}
			continue
		}
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if name == "" {
			name = sf.Name
		}
		out[name] = true
	}
	jsonFieldsCache.Store(t, out)
	return out
}
