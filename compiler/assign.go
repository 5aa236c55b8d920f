package compiler

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
)

// assign stores plain data (what the fast check returns: maps, slices,
// strings, bools and numbers as int64, float64 or json.Number) into a Go
// value of package schema, following json tags as encoding/json would.
// It is the json.Marshal-then-Unmarshal of that data without the text in
// between.
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
		m, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("want an object for %s, got %T", t, v)
		}
		fields := fieldsOf(t)
		for k, x := range m {
			i, ok := fields[k]
			if !ok {
				continue
			}
			if err := assign(dst.Field(i), x); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
		return nil
	case reflect.Map:
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
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			return fmt.Errorf("want a list, got %T", v)
		}
		out := reflect.MakeSlice(t, len(l), len(l))
		for i, x := range l {
			if err := assign(out.Index(i), x); err != nil {
				return fmt.Errorf("[%d]: %w", i, err)
			}
		}
		dst.Set(out)
		return nil
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
	return fmt.Errorf("cannot assign to %s", t)
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

var (
	rawType    = reflect.TypeOf(json.RawMessage(nil))
	numberType = reflect.TypeOf(json.Number(""))
)

var fieldCache sync.Map // reflect.Type → map[string]int

func fieldsOf(t reflect.Type) map[string]int {
	if m, ok := fieldCache.Load(t); ok {
		return m.(map[string]int)
	}
	m := map[string]int{}
	for i := 0; i < t.NumField(); i++ {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		if name != "" && name != "-" {
			m[name] = i
		}
	}
	fieldCache.Store(t, m)
	return m
}
