package compiler

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/schema"
)

// TestGoTypesMirrorSchema walks the schema (compiled from the CUE files'
// syntax) from #Config alongside the Go types of package schema: every field
// of one is a field of the other.
func TestGoTypesMirrorSchema(t *testing.T) {
	seen := map[reflect.Type]bool{}
	mirror(t, nil, reflect.TypeOf(schema.Config{}), seen)
	if len(seen) < 30 {
		t.Errorf("walked %d Go types; the walk missed most of the schema", len(seen))
	}
}

func mirror(t *testing.T, path []string, typ reflect.Type, seen map[reflect.Type]bool) {
	for typ.Kind() == reflect.Pointer {
		typ = typ.Elem()
	}
	switch typ {
	case rawType, numberType:
		return
	case reflect.TypeOf(schema.ImageFrom{}):
		typ = reflect.TypeOf(schema.Image{})
	case reflect.TypeOf(schema.EnvValue{}):
		typ = reflect.TypeOf(schema.Secret{})
	}
	switch typ.Kind() {
	case reflect.Struct:
		if seen[typ] {
			return
		}
		seen[typ] = true
		cueFields := compiledSchema().fieldsAt(path)
		goFields := map[string]reflect.Type{}
		// The fields by json name, embedded structs' (shared settings)
		// included, as assign sees them.
		for name, idx := range structFieldsOf(typ).byName {
			if name == "$id" || name == "digest" {
				continue
			}
			goFields[name] = typ.FieldByIndex(idx).Type
		}
		var goNames []string
		for n := range goFields {
			goNames = append(goNames, n)
		}
		sort.Strings(goNames)
		if !cmp.Equal(cueFields, goNames) {
			t.Errorf("#Config.%s (Go %s): fields differ (-CUE +Go):\n%s", strings.Join(path, "."), typ, cmp.Diff(cueFields, goNames))
			return
		}
		for _, n := range goNames {
			mirror(t, appendPath(path, n), goFields[n], seen)
		}
	case reflect.Map:
		mirror(t, appendPath(path, "x"), typ.Elem(), seen)
	case reflect.Slice:
		mirror(t, appendPath(path, "0"), typ.Elem(), seen)
	}
}
