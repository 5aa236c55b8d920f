package compiler

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"cuelang.org/go/cue/token"
)

// The fast check itself: plain data checked against a compiled type,
// defaults filled in.

// validate checks a whole configuration (plain data) against #Config and
// returns it with defaults filled in.
func (fs *fastSchema) validate(cfg any) (any, error) {
	if fs.err != nil {
		return nil, fs.err
	}
	return fs.check(fs.defs["#Config"], cfg, nil)
}

// fastError says why the fast check gave up. It carries no position: the
// fast check's only verdict is "CUE must look at this".
type fastError string

func (e fastError) Error() string { return string(e) }

func kindOfValue(v any) kinds {
	switch v := v.(type) {
	case string:
		return kString
	case bool:
		return kBool
	case int, int64:
		return kInt
	case float64:
		return kFloat // as cue.Context.Encode sees it
	case json.Number:
		if strings.ContainsAny(string(v), ".eE") {
			return kFloat
		}
		return kInt
	case map[string]any:
		return kStruct
	case []any:
		return kList
	case nil:
		return kNull
	}
	return 0
}

func number(v any) (float64, bool) {
	switch v := v.(type) {
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case float64:
		return v, true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}

func sameScalar(v, lit any) bool {
	if s, ok := v.(string); ok {
		return s == lit
	}
	if b, ok := v.(bool); ok {
		return b == lit
	}
	if n, ok := number(v); ok {
		l, ok := lit.(float64)
		return ok && n == l
	}
	return false
}

// check checks v against t and returns it with the defaults of its
// absent fields filled in (in place: the data is the caller's own fresh
// copy). siblings is the struct holding v, for bounds that name a sibling.
func (fs *fastSchema) check(t *stype, v any, siblings map[string]any) (any, error) {
	t = fs.resolve(t)
	if len(t.alts) > 0 {
		return fs.checkAlts(t, v, siblings)
	}
	if err := fs.checkScalar(t, v, siblings); err != nil {
		return nil, err
	}
	switch v := v.(type) {
	case map[string]any:
		return fs.checkStruct(t, v)
	case []any:
		return fs.checkList(t, v)
	}
	return v, nil
}

// refuses reports whether the closed struct t (no disjunction, no
// patterns) refuses the struct v on its keys alone, as checkStruct would:
// a field it does not have, or a required one missing. Issue 13: the
// alternatives of a disjunction of structs (an image's steps) are each
// checked on a copy, and most refuse on their keys.
func refuses(t *stype, v any) bool {
	m, ok := v.(map[string]any)
	if !ok || !t.closed || len(t.patterns) > 0 || len(t.alts) > 0 || t.any {
		return false
	}
	for k := range m {
		if t.fields[k] == nil {
			return true
		}
	}
	for name, f := range t.fields {
		if _, ok := m[name]; !ok && f.required {
			return true
		}
	}
	return false
}

// checkAlts checks v against a disjunction: exactly one alternative (or
// several giving the same value) must accept it.
func (fs *fastSchema) checkAlts(t *stype, v any, siblings map[string]any) (any, error) {
	// Only the alternatives of the value's kind can accept it; when one
	// does, it may fill defaults in place.
	k := kindOfValue(v)
	var cands []*stype
	for _, alt := range t.alts {
		if r := fs.resolve(alt); (r.kinds&k != 0 || len(r.alts) > 0) && !refuses(r, v) {
			cands = append(cands, alt)
		}
	}
	if len(cands) == 1 {
		return fs.check(cands[0], v, siblings)
	}
	var out any
	var outKey string
	n := 0
	var first error
	for _, alt := range cands {
		y, err := fs.check(alt, deepCopy(v), siblings)
		if err != nil {
			if first == nil {
				first = err
			}
			continue
		}
		key, _ := json.Marshal(y)
		if n > 0 && string(key) == outKey {
			continue
		}
		out, outKey = y, string(key)
		n++
	}
	switch n {
	case 0:
		if first == nil {
			first = fastError("no alternative")
		}
		return nil, first
	case 1:
		return out, nil
	}
	return nil, fastError("ambiguous")
}

// checkScalar checks what t says of v itself: its kind, literal, regular
// expressions and bounds.
func (fs *fastSchema) checkScalar(t *stype, v any, siblings map[string]any) error {
	k := kindOfValue(v)
	if k&t.kinds == 0 {
		return fastError("kind")
	}
	if t.hasLit && !sameScalar(v, t.lit) {
		return fastError("literal")
	}
	for _, x := range t.neq {
		if sameScalar(v, x) {
			return fastError("!=")
		}
	}
	if s, ok := v.(string); ok {
		for _, re := range t.res {
			if !re.MatchString(s) {
				return fastError("regexp")
			}
		}
		for _, re := range t.nres {
			if re.MatchString(s) {
				return fastError("regexp")
			}
		}
	}
	if len(t.bounds) == 0 {
		return nil
	}
	n, ok := number(v)
	if !ok {
		return fastError("bound on a non-number")
	}
	for _, b := range t.bounds {
		lim := b.num
		if b.sibling != "" {
			s, ok := number(siblings[b.sibling])
			if !ok {
				return fastError("bound on %s")
			}
			lim = s
		}
		if !(b.op == token.GEQ && n >= lim || b.op == token.LEQ && n <= lim || b.op == token.GTR && n > lim || b.op == token.LSS && n < lim) {
			return fastError("bound")
		}
	}
	return nil
}

func (fs *fastSchema) checkList(t *stype, v []any) (any, error) {
	if t.any {
		return v, nil
	}
	if len(v) < t.minItems || len(v) < len(t.prefix) || !t.open && len(v) > len(t.prefix) {
		return nil, fastError("length")
	}
	for i, x := range v {
		et := t.elem
		if i < len(t.prefix) {
			et = t.prefix[i]
		}
		y, err := fs.check(et, x, nil)
		if err != nil {
			return nil, err
		}
		v[i] = y
	}
	return v, nil
}

// checkStruct checks an object and fills in the defaults of its absent
// fields, in place. A declared field's type already holds the patterns
// matching its name (compileStruct); any other field takes the one
// pattern matching it, and when several match (CUE applies them all) the
// fast check leaves the value to CUE.
func (fs *fastSchema) checkStruct(t *stype, v map[string]any) (any, error) {
	// Fill defaults first: a bound may refer to a defaulted sibling.
	for name, f := range t.fields {
		if _, ok := v[name]; ok || f.optional {
			continue
		}
		if f.required {
			return nil, fastError("missing field")
		}
		d, ok := fs.defaultOf(f.t)
		if !ok {
			return nil, fastError("no value")
		}
		v[name] = d
	}
	for k, x := range v {
		if f := t.fields[k]; f != nil {
			y, err := fs.check(f.t, x, v)
			if err != nil {
				return nil, err
			}
			v[k] = y
			continue
		}
		var pat *spattern
		for i := range t.patterns {
			if _, err := fs.check(t.patterns[i].key, k, nil); err != nil {
				continue
			}
			if pat != nil {
				return nil, fastError("several patterns")
			}
			pat = &t.patterns[i]
		}
		if pat == nil {
			if t.closed {
				return nil, fastError("field not allowed")
			}
			continue
		}
		y, err := fs.check(pat.t, x, nil)
		if err != nil {
			return nil, err
		}
		v[k] = y
	}
	return v, nil
}

// deepCopy copies plain data, for trying one of several alternatives.
func deepCopy(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = deepCopy(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = deepCopy(x)
		}
		return out
	}
	return v
}

// defaultOf is the value of an absent regular field: its marked default,
// or the one value it allows (a struct: its fields' defaults).
func (fs *fastSchema) defaultOf(t *stype) (any, bool) {
	t = fs.resolve(t)
	if len(t.alts) > 0 {
		if t.defIdx < 0 {
			return nil, false
		}
		return fs.concrete(t.alts[t.defIdx])
	}
	return fs.concrete(t)
}

func (fs *fastSchema) concrete(t *stype) (any, bool) {
	t = fs.resolve(t)
	if t.hasLit {
		f, ok := t.lit.(float64)
		switch {
		case ok && t.kinds == kInt && f == math.Trunc(f):
			return int64(f), true
		case ok && t.kinds == kFloat:
			// As CUE exports it: a float stays a float (1.0, not 1).
			s := strconv.FormatFloat(f, 'g', -1, 64)
			if !strings.ContainsAny(s, ".eE") {
				s += ".0"
			}
			return json.Number(s), true
		}
		return t.lit, true
	}
	if t.kinds == kStruct {
		// A regular field of struct type is there even when not written
		// (in CUE it always is), with its own defaults.
		v, err := fs.checkStruct(t, map[string]any{})
		return v, err == nil
	}
	if t.kinds == kList && !t.open {
		out := make([]any, len(t.prefix))
		for i, e := range t.prefix {
			v, ok := fs.concrete(e)
			if !ok {
				return nil, false
			}
			out[i] = v
		}
		return out, true
	}
	return nil, false
}
