package schema

import (
	"bytes"
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Issue 13: the canonical bytes of a spec were its JSON marshalled,
// decoded into a tree and encoded again (jsonTree), a third of the
// builder's time. directTree builds the same tree from the typed value by
// reflection, as encoding/json would see it, without the text in between.
// Where it cannot be sure to see what encoding/json sees (a name two
// embedded structs share, a ",string" field, a key that is not a string,
// a pointer-only or text marshaler, an invalid number) it gives up and the
// JSON round trip decides, so the bytes are the same either way
// (TestDirectTreeMatchesJSON).

// directTree is v's decoded JSON tree (maps, slices, strings, bools,
// json.Numbers, nil) built without marshalling; false when only the JSON
// round trip may say.
func directTree(v any) (any, bool) {
	if v == nil {
		return nil, true
	}
	return treeOf(reflect.ValueOf(v))
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
	numberType        = reflect.TypeFor[json.Number]()
	standInType       = reflect.TypeFor[standIn]()
)

// standIn is a type whose MarshalJSON writes one of its fields, standIn
// (a value or a reference): its tree is that field's, without the text.
type standIn interface{ standIn() any }

func (e EnvSpec) standIn() any {
	if e.Secret != nil {
		return e.Secret
	}
	return e.Value
}

func (e EnvValue) standIn() any {
	if e.Secret != nil {
		return e.Secret
	}
	return e.Value
}

func (f ImageFrom) standIn() any {
	if f.Image != nil {
		return f.Image
	}
	return f.Ref
}

func (s SuiteRef) standIn() any {
	if s.Suite != nil {
		return s.Suite
	}
	return s.Name
}

// treeOf is the tree of rv, a value reached without taking its address.
func treeOf(rv reflect.Value) (any, bool) {
	t := rv.Type()
	if t == numberType {
		return numberTree(json.Number(rv.String()))
	}
	if t.Implements(standInType) {
		return treeOf(reflect.ValueOf(rv.Interface().(standIn).standIn()))
	}
	if t.Implements(marshalerType) {
		return marshaledTree(rv)
	}
	if reflect.PointerTo(t).Implements(marshalerType) || t.Implements(textMarshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return nil, false
	}
	switch t.Kind() {
	case reflect.Bool:
		return rv.Bool(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return json.Number(strconv.FormatInt(rv.Int(), 10)), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return json.Number(strconv.FormatUint(rv.Uint(), 10)), true
	case reflect.Float32, reflect.Float64:
		return floatTree(rv.Float(), t.Bits())
	case reflect.String:
		return validString(rv.String()), true
	case reflect.Pointer, reflect.Interface:
		if rv.IsNil() {
			return nil, true
		}
		return treeOf(rv.Elem())
	case reflect.Struct:
		return structTree(rv)
	case reflect.Map:
		return mapTree(rv)
	case reflect.Slice:
		if rv.IsNil() {
			return nil, true
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return nil, false // base64, or a byte type's own methods
		}
		return sliceTree(rv)
	}
	return nil, false // arrays, channels, functions, complex numbers
}

// marshaledTree is the tree of what rv's MarshalJSON writes, decoded as
// jsonTree does.
func marshaledTree(rv reflect.Value) (any, bool) {
	if rv.Kind() == reflect.Pointer && rv.IsNil() {
		return nil, true
	}
	raw, err := rv.Interface().(json.Marshaler).MarshalJSON()
	if err != nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil || dec.More() {
		return nil, false
	}
	return tree, true
}

// numberTree is a json.Number as encoding/json writes it: "" is 0, and
// what is not a number is an error (left to the round trip).
func numberTree(n json.Number) (any, bool) {
	if n == "" {
		return json.Number("0"), true
	}
	if !validNumber(string(n)) {
		return nil, false
	}
	return n, true
}

// validNumber reports whether s is a JSON number:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func validNumber(s string) bool {
	s = strings.TrimPrefix(s, "-")
	digits := func() int {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		d := s[:i]
		s = s[i:]
		return len(d)
	}
	switch {
	case s == "":
		return false
	case s[0] == '0':
		s = s[1:]
	case digits() == 0:
		return false
	}
	if rest, ok := strings.CutPrefix(s, "."); ok {
		if s = rest; digits() == 0 {
			return false
		}
	}
	if len(s) > 0 && (s[0] == 'e' || s[0] == 'E') {
		s = s[1:]
		if len(s) > 0 && (s[0] == '+' || s[0] == '-') {
			s = s[1:]
		}
		if digits() == 0 {
			return false
		}
	}
	return s == ""
}

// floatTree is a float as encoding/json writes it (its floatEncoder).
func floatTree(f float64, bits int) (any, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	s := strconv.FormatFloat(f, format, -1, bits)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(s); n >= 4 && s[n-4] == 'e' && s[n-3] == '-' && s[n-2] == '0' {
			s = s[:n-2] + s[n-1:]
		}
	}
	return json.Number(s), true
}

// validString is s as decoding its JSON gives it back: each byte of an
// invalid UTF-8 sequence is U+FFFD.
func validString(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return string([]rune(s))
}

func sliceTree(rv reflect.Value) (any, bool) {
	out := make([]any, rv.Len())
	for i := range out {
		e, ok := treeOf(rv.Index(i))
		if !ok {
			return nil, false
		}
		out[i] = e
	}
	return out, true
}

// mapTree is a map with string keys; another key type, or a key that is
// not valid UTF-8 (two could become one), is left to the round trip.
func mapTree(rv reflect.Value) (any, bool) {
	if rv.IsNil() {
		return nil, true
	}
	if rv.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	out := make(map[string]any, rv.Len())
	it := rv.MapRange()
	for it.Next() {
		k := it.Key().String()
		if !utf8.ValidString(k) {
			return nil, false
		}
		e, ok := treeOf(it.Value())
		if !ok {
			return nil, false
		}
		out[k] = e
	}
	return out, true
}

func structTree(rv reflect.Value) (any, bool) {
	fields, ok := fieldsOf(rv.Type())
	if !ok {
		return nil, false
	}
	out := make(map[string]any, len(fields))
	for i := range fields {
		f := &fields[i]
		fv, ok := fieldByIndex(rv, f.index)
		if !ok || f.omitEmpty && isEmptyValue(fv) {
			continue
		}
		e, ok := treeOf(fv)
		if !ok {
			return nil, false
		}
		out[f.name] = e
	}
	return out, true
}

// fieldByIndex is the field at index, false through a nil embedded
// pointer (encoding/json leaves the field out then).
func fieldByIndex(rv reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && rv.Kind() == reflect.Pointer {
			if rv.IsNil() {
				return reflect.Value{}, false
			}
			rv = rv.Elem()
		}
		rv = rv.Field(x)
	}
	return rv, true
}

// isEmptyValue is encoding/json's test for omitempty.
func isEmptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

// treeField is a field encoding/json writes: its JSON name and where it
// is (through embedded structs).
type treeField struct {
	name      string
	index     []int
	omitEmpty bool
}

// treeFields caches fieldsOf by type: a []treeField, or nil when the type
// is left to the round trip.
var treeFields sync.Map

// fieldsOf is the fields of the struct type t, false when its names are
// not plain enough to be sure of (see the top of this file).
func fieldsOf(t reflect.Type) ([]treeField, bool) {
	if c, ok := treeFields.Load(t); ok {
		fs := c.([]treeField)
		return fs, fs != nil
	}
	fs, ok := collectFields(t, nil, map[reflect.Type]bool{})
	if ok {
		seen := map[string]bool{}
		for _, f := range fs {
			if seen[f.name] {
				ok = false // dominance rules: the round trip decides
				break
			}
			seen[f.name] = true
		}
	}
	if !ok {
		fs = nil
	} else if fs == nil {
		fs = []treeField{}
	}
	treeFields.Store(t, fs)
	return fs, ok
}

// collectFields lists t's fields as encoding/json's typeFields does,
// descending into untagged embedded structs.
func collectFields(t reflect.Type, at []int, visiting map[reflect.Type]bool) ([]treeField, bool) {
	if visiting[t] {
		return nil, false
	}
	visiting[t] = true
	defer delete(visiting, t)
	var out []treeField
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		ft := sf.Type
		if sf.Anonymous {
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if !sf.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !validTagName(name) {
			name = ""
		}
		omit, ok := tagOptions(opts)
		if !ok {
			return nil, false
		}
		index := append(at[:len(at):len(at)], i)
		if name == "" && sf.Anonymous && ft.Kind() == reflect.Struct {
			if ft.Implements(marshalerType) || reflect.PointerTo(ft).Implements(marshalerType) {
				return nil, false // an embedded marshaler: leave it to encoding/json
			}
			sub, ok := collectFields(ft, index, visiting)
			if !ok {
				return nil, false
			}
			out = append(out, sub...)
			continue
		}
		if name == "" {
			name = sf.Name
		}
		out = append(out, treeField{name: name, index: index, omitEmpty: omit})
	}
	return out, true
}

// tagOptions reads a json tag's options: omitempty, or false for one
// this file does not follow (string, omitzero).
func tagOptions(opts string) (omitEmpty, ok bool) {
	for opts != "" {
		var o string
		o, opts, _ = strings.Cut(opts, ",")
		switch o {
		case "omitempty":
			omitEmpty = true
		case "":
		default:
			return false, false
		}
	}
	return omitEmpty, true
}

// validTagName is encoding/json's isValidTag.
func validTagName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}
