package compiler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"cc.dev/cc/schema"
)

// assign stores plain data (what the fast check returns: maps, slices,
// strings, bools and numbers as int64, float64 or json.Number) into a Go
// value of package schema, following json tags as encoding/json would
// (fields of embedded structs are the outer struct's). It is the
// json.Marshal-then-Unmarshal of that data without the text in between,
// but for one thing: a field the Go type does not have is kept in the
// struct's Extra (schema.Extra) rather than dropped, and is an error in a
// struct without one.
func assign(dst reflect.Value, v any) error {
	if v == nil {
		return nil
	}
	t := dst.Type()
	switch t {
	case rawType:
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		dst.SetBytes(b)
		return nil
	case numberType:
		return assignNumber(dst, v)
	case imageType:
		if s, ok := v.(string); ok {
			// issue 11: image shorthands: a registry reference where an
			// image is taken is an image with only that base.
			dst.Set(reflect.ValueOf(schema.Image{From: &schema.ImageFrom{Ref: s}}))
			return nil
		}
	}
	if dst.CanAddr() {
		if u, ok := dst.Addr().Interface().(json.Unmarshaler); ok {
			// ImageFrom and EnvValue: a string or an object.
			if s, ok := v.(string); ok {
				b, _ := json.Marshal(s)
				return u.UnmarshalJSON(b)
			}
			return assignUnion(dst, v)
		}
	}
	switch t.Kind() {
	case reflect.Pointer:
		if dst.IsNil() {
			dst.Set(reflect.New(t.Elem()))
		}
		return assign(dst.Elem(), v)
	case reflect.Struct:
		return assignStruct(dst, v)
	case reflect.Map:
		return assignMap(dst, v)
	case reflect.Slice:
		return assignSlice(dst, v)
	}
	return assignScalar(dst, v)
}

func assignNumber(dst reflect.Value, v any) error {
	switch n := v.(type) {
	case json.Number:
		dst.SetString(string(n))
	case int64:
		dst.SetString(strconv.FormatInt(n, 10))
	case float64:
		dst.SetString(strconv.FormatFloat(n, 'g', -1, 64))
	default:
		return fmt.Errorf("want a number, got %T", v)
	}
	return nil
}

func assignStruct(dst reflect.Value, v any) error {
	t := dst.Type()
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object for %s, got %T", t, v)
	}
	sf := structFieldsOf(t)
	for k, x := range m {
		idx, ok := sf.byName[k]
		if !ok {
			if sf.extra == nil {
				return fmt.Errorf("%s: the schema's field has no Go field in %s, which has no Extra", k, t)
			}
			extra := dst.FieldByIndex(sf.extra)
			if extra.IsNil() {
				extra.Set(reflect.MakeMap(extra.Type()))
			}
			extra.SetMapIndex(reflect.ValueOf(k), reflect.ValueOf(x))
			continue
		}
		if err := assign(dst.FieldByIndex(idx), x); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
	}
	return nil
}

func assignMap(dst reflect.Value, v any) error {
	t := dst.Type()
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("want an object, got %T", v)
	}
	out := reflect.MakeMapWithSize(t, len(m))
	for k, x := range m {
		e := reflect.New(t.Elem()).Elem()
		if err := assign(e, x); err != nil {
			return fmt.Errorf("%s: %w", k, err)
		}
		out.SetMapIndex(reflect.ValueOf(k), e)
	}
	dst.Set(out)
	return nil
}

func assignSlice(dst reflect.Value, v any) error {
	l, ok := v.([]any)
	if !ok {
		return fmt.Errorf("want a list, got %T", v)
	}
	out := reflect.MakeSlice(dst.Type(), len(l), len(l))
	for i, x := range l {
		if err := assign(out.Index(i), x); err != nil {
			return fmt.Errorf("[%d]: %w", i, err)
		}
	}
	dst.Set(out)
	return nil
}

func assignScalar(dst reflect.Value, v any) error {
	switch dst.Kind() {
	case reflect.String:
		s, ok := v.(string)
		if !ok {
			return fmt.Errorf("want a string, got %T", v)
		}
		dst.SetString(s)
		return nil
	case reflect.Bool:
		b, ok := v.(bool)
		if !ok {
			return fmt.Errorf("want a bool, got %T", v)
		}
		dst.SetBool(b)
		return nil
	case reflect.Int, reflect.Int64:
		switch n := v.(type) {
		case int64:
			dst.SetInt(n)
		case json.Number:
			i, err := n.Int64()
			if err != nil {
				return err
			}
			dst.SetInt(i)
		default:
			return fmt.Errorf("want an integer, got %T", v)
		}
		return nil
	}
	return fmt.Errorf("cannot assign to %s", dst.Type())
}

// assignUnion fills a string-or-object type (ImageFrom, EnvValue) from an
// object: its one pointer field takes it.
func assignUnion(dst reflect.Value, v any) error {
	t := dst.Type()
	for i := 0; i < t.NumField(); i++ {
		if t.Field(i).Type.Kind() == reflect.Pointer {
			return assign(dst.Field(i), v)
		}
	}
	return fmt.Errorf("cannot assign an object to %s", t)
}

// decodeConfig decodes a validated configuration's JSON (CUE's export) the
// way the fast path decodes its data, through assign, so a field without a
// Go field is kept in Extra there too.
func decodeConfig(b []byte, cfg *schema.Config) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return err
	}
	return assign(reflect.ValueOf(cfg).Elem(), tree)
}

var (
	rawType    = reflect.TypeOf(json.RawMessage(nil))
	numberType = reflect.TypeOf(json.Number(""))
	extraType  = reflect.TypeOf(schema.Extra(nil))
	imageType  = reflect.TypeOf(schema.Image{})
)

// structFields are a struct type's fields by json name, as index paths
// (through embedded structs), and the index of its Extra.
type structFields struct {
	byName map[string][]int
	extra  []int
}

var fieldCache sync.Map // reflect.Type → *structFields

// fieldsOf gives a struct's own fields by json name (schema.Config's
// collections).
func fieldsOf(t reflect.Type) map[string]int {
	if m, ok := ownFieldCache.Load(t); ok {
		return m.(map[string]int)
	}
	out := map[string]int{}
	for name, idx := range structFieldsOf(t).byName {
		if len(idx) == 1 {
			out[name] = idx[0]
		}
	}
	ownFieldCache.Store(t, out)
	return out
}

var ownFieldCache sync.Map // reflect.Type → map[string]int

func structFieldsOf(t reflect.Type) *structFields {
	if m, ok := fieldCache.Load(t); ok {
		return m.(*structFields)
	}
	sf := &structFields{byName: map[string][]int{}}
	sf.add(t, nil)
	fieldCache.Store(t, sf)
	return sf
}

func (sf *structFields) add(t reflect.Type, at []int) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		idx := append(append([]int(nil), at...), i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			sf.add(f.Type, idx)
			continue
		}
		if f.Type == extraType && len(at) == 0 {
			sf.extra = idx
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "" && name != "-" {
			sf.byName[name] = idx
		}
	}
}
