package compiler

import (
	"path"
	"path/filepath"

	"github.com/zclconf/go-cty/cty"

	"cc.dev/cc/schema"
)

// A module's local files (a copy step's src, a function's source paths, a
// Dockerfile) are written relative to the module's directory; the
// configuration has them relative to the project root, as every path is
// (issue 12: modules). Copies of other resources (an image passed in as an
// input, which carry "$id") keep their own paths.

// modulePaths rewrites the local paths of a module's resource of kind.
func (l *hclLoader) modulePaths(kind string, obj map[string]cty.Value) map[string]cty.Value {
	if l.scope == nil {
		return obj
	}
	rel, err := filepath.Rel(l.p.root, l.scope.dir)
	if err != nil {
		return obj
	}
	s := l.p.schema()
	w := pathWalk{s: s, dir: filepath.ToSlash(rel)}
	return w.object(s.Kind(schema.Kind(kind)), obj)
}

type pathWalk struct {
	s   *schema.Schema
	dir string
}

// object rewrites the paths of an object's fields, by the schema's def.
func (w pathWalk) object(def *schema.Def, obj map[string]cty.Value) map[string]cty.Value {
	if _, copied := obj["$id"]; def == nil || copied {
		return obj
	}
	for name, v := range obj {
		if f := def.Field(name); f != nil {
			obj[name] = w.field(f, v)
		}
	}
	return obj
}

// field rewrites one field's value: a path, a list of them, or a struct
// (or list of structs) holding some.
func (w pathWalk) field(f *schema.Field, v cty.Value) cty.Value {
	if v.IsMarked() || !v.IsKnown() || v.IsNull() {
		return v
	}
	if f.List && (v.Type().IsTupleType() || v.Type().IsListType()) {
		var out []cty.Value
		for it := v.ElementIterator(); it.Next(); {
			_, e := it.Element()
			out = append(out, w.one(f, e))
		}
		if len(out) == 0 {
			return v
		}
		return cty.TupleVal(out)
	}
	return w.one(f, v)
}

// one rewrites a single value of field f.
func (w pathWalk) one(f *schema.Field, v cty.Value) cty.Value {
	if v.IsMarked() || !v.IsKnown() || v.IsNull() {
		return v
	}
	switch {
	case f.Path && v.Type() == cty.String:
		return cty.StringVal(path.Join(w.dir, v.AsString()))
	case v.Type().IsObjectType():
		def := w.s.Elem(f)
		if def == nil {
			return v
		}
		return cty.ObjectVal(w.object(def, v.AsValueMap()))
	}
	return v
}
