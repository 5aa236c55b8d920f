package schema

import (
	"encoding/json"
	"fmt"
	"reflect"
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
	var m map[string]json.RawMessage
	if json.Unmarshal(spec, &m) != nil {
		return spec, nil // the strict decode words it
	}
	known := jsonFields(reflect.TypeOf(v).Elem())
	cut := false
	for name, raw := range m {
		f := d.Field(name)
		if known[name] || f == nil || name == "$id" || name == "lifecycle" {
			continue
		}
		if err := checkSchemaOnly(f, raw); err != nil {
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

// checkSchemaOnly checks a schema-only field's value: not null, and in its
// canonical form when its type has one.
func checkSchemaOnly(f *Field, raw json.RawMessage) error {
	var val any
	if err := json.Unmarshal(raw, &val); err != nil || val == nil {
		return fmt.Errorf("field %s: want a value", f.Name)
	}
	if f.Form == "" || f.List {
		return nil
	}
	if _, ok := val.(string); !ok {
		return fmt.Errorf("field %s: want a string", f.Name)
	}
	m := map[string]any{f.Name: val}
	if err := canonicalValue(f, m, val, nil); err != nil {
		return fmt.Errorf("field %s: %w", f.Name, err)
	}
	if m[f.Name] != val {
		return fmt.Errorf("field %s: %v is not in its canonical form", f.Name, val)
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
