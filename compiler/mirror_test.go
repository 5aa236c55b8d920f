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
		if len(path) == 0 {
			// Shared defaults (issue 11) are merged into the resources
			// as data before decoding (defaults.go): no Go type holds them.
			cueFields = withoutDefaults(cueFields)
		}
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
		if _, extra := typ.FieldByName("Extra"); extra {
			// A type with an Extra keeps the schema's fields it has no
			// Go field for there (issue 16; issue 11 adds such plain
			// fields): every Go field is the schema's, not the reverse.
			cueFields = withOnly(cueFields, goNames)
		}
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

// withOnly is the names of all that are in some, the rest of some after
// them, so a missing Go field still shows.
func withOnly(all, some []string) []string {
	in := map[string]bool{}
	for _, n := range all {
		in[n] = true
	}
	var out, rest []string
	for _, n := range some {
		if in[n] {
			out = append(out, n)
		} else {
			rest = append(rest, n)
		}
	}
	return append(out, rest...)
}

// withoutDefaults drops the shared defaults' fields from #Config's.
func withoutDefaults(fields []string) []string {
	var out []string
	for _, f := range fields {
		if f != defaultsField && f != defaultSetsField {
			out = append(out, f)
		}
	}
	return out
}
