package compiler

import (
	"reflect"
	"sort"
	"strings"
	"testing"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/cuecontext"
	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/schema"
)

// TestGoTypesMirrorSchema walks the CUE schema from #Config alongside the Go
// types of package schema: every field of one is a field of the other.
func TestGoTypesMirrorSchema(t *testing.T) {
	sch, err := buildSchema(cuecontext.New())
	if err != nil {
		t.Fatal(err)
	}
	root := sch.LookupPath(cue.MakePath(cue.Def("#Config")))
	seen := map[reflect.Type]bool{}
	mirror(t, root, reflect.TypeOf(schema.Config{}), "#Config", seen)
	if len(seen) < 30 {
		t.Errorf("walked %d Go types; the walk missed most of the schema", len(seen))
	}
}

func mirror(t *testing.T, v cue.Value, typ reflect.Type, path string, seen map[reflect.Type]bool) {
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
		cueFields := structFields(v)
		goFields := map[string]reflect.Type{}
		for i := 0; i < typ.NumField(); i++ {
			f := typ.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" || name == "$id" || name == "digest" {
				continue
			}
			goFields[name] = f.Type
		}
		var goNames []string
		for n := range goFields {
			goNames = append(goNames, n)
		}
		sort.Strings(goNames)
		if !cmp.Equal(cueFields, goNames) {
			t.Errorf("%s (Go %s): fields differ (-CUE +Go):\n%s", path, typ, cmp.Diff(cueFields, goNames))
			return
		}
		for _, n := range goNames {
			mirror(t, lookupSchema(v, n), goFields[n], path+"."+n, seen)
		}
	case reflect.Map:
		mirror(t, lookupSchema(v, "x"), typ.Elem(), path+".*", seen)
	case reflect.Slice:
		mirror(t, lookupSchema(v, "0"), typ.Elem(), path+"[]", seen)
	}
}
