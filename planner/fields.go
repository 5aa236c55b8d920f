package planner

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"cc.dev/cc/schema"
)

// Sentinel replaces every sensitive value in the specs a plan shows.
const Sentinel = "(sensitive)"

// seg is one step of a path into a spec: a key or an index.
type seg struct {
	key   string
	index int // -1 for a key
}

type path []seg

func (p path) with(s seg) path {
	out := make(path, len(p), len(p)+1)
	copy(out, p)
	return append(out, s)
}

// String is the path as people read it: steps[2].pip.packages,
// env.LOG_LEVEL, annotations["team.name"].
func (p path) String() string {
	var b strings.Builder
	for i, s := range p {
		switch {
		case s.index >= 0:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case identLike(s.key):
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(s.key)
		default:
			b.WriteString("[" + strconv.Quote(s.key) + "]")
		}
	}
	return b.String()
}

// pointer is the path as a JSON pointer (RFC 6901), as Resource.Sensitive
// lists them.
func (p path) pointer() string {
	var b strings.Builder
	for _, s := range p {
		b.WriteByte('/')
		if s.index >= 0 {
			b.WriteString(strconv.Itoa(s.index))
		} else {
			b.WriteString(schema.PointerToken(s.key))
		}
	}
	return b.String()
}

func identLike(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		switch {
		case r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
		case i > 0 && (r == '-' || r >= '0' && r <= '9'):
		default:
			return false
		}
	}
	return true
}

// decode parses JSON keeping numbers as written. Bad JSON decodes to nil.
func decode(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil
	}
	return v
}

// encode renders a decoded value as compact JSON, keys sorted.
func encode(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return json.RawMessage("null")
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// sensitivity answers whether a path holds, or is inside, a sensitive
// value.
type sensitivity []string

func newSensitivity(lists ...[]string) sensitivity {
	var s sensitivity
	for _, l := range lists {
		s = append(s, l...)
	}
	sort.Strings(s)
	return s
}

// at reports whether the value at ptr is sensitive or holds a sensitive
// value.
func (s sensitivity) at(ptr string) bool { return schema.SensitiveAt(s, ptr) }

// redact returns spec with every sensitive value replaced by Sentinel.
func redact(spec json.RawMessage, sens []string) json.RawMessage {
	if len(sens) == 0 || len(spec) == 0 {
		return spec
	}
	v := decode(spec)
	for _, ptr := range sens {
		v = redactAt(v, schema.SplitPointer(ptr))
	}
	return encode(v)
}

func redactAt(v any, parts []string) any {
	if len(parts) == 0 {
		return Sentinel
	}
	switch t := v.(type) {
	case map[string]any:
		if c, ok := t[parts[0]]; ok {
			t[parts[0]] = redactAt(c, parts[1:])
		}
	case []any:
		if i, err := strconv.Atoi(parts[0]); err == nil && i >= 0 && i < len(t) {
			t[i] = redactAt(t[i], parts[1:])
		}
	}
	return v
}

// fieldDiffer compares two decoded specs field by field.
type fieldDiffer struct {
	sens sensitivity
	out  []FieldChange
	// paths are the paths of out, for the reasons, unless noPaths.
	paths   []path
	noPaths bool
}

func isScalar(v any) bool {
	switch v.(type) {
	case map[string]any, []any:
		return false
	}
	return true
}

// leafList reports whether v is a list of scalars, compared and shown as
// one value.
func leafList(v any) bool {
	l, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range l {
		if !isScalar(e) {
			return false
		}
	}
	return true
}

func (d *fieldDiffer) diff(p path, a, b any, hasA, hasB bool) {
	switch {
	case !hasA && !hasB:
		return
	case !hasA:
		d.added(p, b)
		return
	case !hasB:
		d.emit(p, "removed", a, nil)
		return
	}
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if okA && okB {
		for _, k := range keysOfBoth(ma, mb) {
			va, ia := ma[k]
			vb, ib := mb[k]
			d.diff(p.with(seg{key: k, index: -1}), va, vb, ia, ib)
		}
		return
	}
	la, okA := a.([]any)
	lb, okB := b.([]any)
	if okA && okB && !(leafList(a) && leafList(b)) {
		for i := 0; i < max(len(la), len(lb)); i++ {
			var va, vb any
			if i < len(la) {
				va = la[i]
			}
			if i < len(lb) {
				vb = lb[i]
			}
			d.diff(p.with(seg{index: i}), va, vb, i < len(la), i < len(lb))
		}
		return
	}
	if !jsonEqual(a, b) {
		d.emit(p, "changed", a, b)
	}
}

// added lists every leaf of a new value.
func (d *fieldDiffer) added(p path, v any) {
	switch t := v.(type) {
	case map[string]any:
		if len(t) == 0 {
			d.emit(p, "added", nil, v)
			return
		}
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			d.added(p.with(seg{key: k, index: -1}), t[k])
		}
	case []any:
		if leafList(v) {
			d.emit(p, "added", nil, v)
			return
		}
		for i, e := range t {
			d.added(p.with(seg{index: i}), e)
		}
	default:
		d.emit(p, "added", nil, v)
	}
}

func (d *fieldDiffer) emit(p path, op string, a, b any) {
	fc := FieldChange{Path: p.String(), Op: op}
	if len(d.sens) > 0 && d.sens.at(p.pointer()) {
		fc.Sensitive = true
	} else {
		if op != "added" {
			fc.Before = encode(a)
		}
		if op != "removed" {
			fc.After = encode(b)
		}
		sa, okA := a.(string)
		sb, okB := b.(string)
		if op == "changed" && okA && okB && (strings.Contains(sa, "\n") || strings.Contains(sb, "\n") || len(sa) > 200 || len(sb) > 200) {
			fc.Diff = lineDiff(sa, sb)
		}
	}
	d.out = append(d.out, fc)
	if !d.noPaths {
		d.paths = append(d.paths, p)
	}
}

func jsonEqual(a, b any) bool {
	return bytes.Equal(encode(a), encode(b))
}

// get follows a path into a decoded value.
func get(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

// Redact returns a spec with the values at the sensitive JSON pointers
// replaced by Sentinel, for showing a spec from the state.
func Redact(spec json.RawMessage, sensitive []string) json.RawMessage {
	return redact(spec, sensitive)
}
