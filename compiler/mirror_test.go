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

// dataCopyTypes are the Go types of the kinds a data source may be, and
// dataCopyFields the fields of a data source they hold.
var (
	dataCopyTypes = map[reflect.Type]bool{reflect.TypeOf(schema.Volume{}): true, reflect.TypeOf(schema.Dataset{}): true,
		reflect.TypeOf(schema.Function{}): true, reflect.TypeOf(schema.Secret{}): true}
	dataCopyFields = map[string]bool{"name": true, "revision": true, "version": true}
)

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
	case reflect.TypeOf(schema.SuiteRef{}):
		typ = reflect.TypeOf(schema.Suite{})
	}
	switch typ.Kind() {
	case reflect.Struct:
		// A declaration (volumes.x) is its kind's own definition; where
		// it is referred to, a data source may stand too, whose fields
		// the Go type also has (issue 10): check it at both.
		decl := len(path) == 2 && dataCopyTypes[typ]
		if seen[typ] && !decl {
			return
		}
		if !decl {
			seen[typ] = true
		}
		cueFields := compiledSchema().fieldsAt(path)
		goFields := map[string]reflect.Type{}
		// The fields by json name, embedded structs' (shared settings)
		// included, as assign sees them.
		for name, idx := range structFieldsOf(typ).byName {
			// A dataset declares its platform name too (issue 11).
			declared := typ == reflect.TypeOf(schema.Dataset{}) && name == "name"
			if name == "$id" || name == "digest" || decl && dataCopyFields[name] && !declared {
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
