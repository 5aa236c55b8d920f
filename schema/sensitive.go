package schema

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// Redacted is what stands in for a sensitive value wherever a spec is
// shown, and in the spec a content hash is computed over: a resource's
// hash never depends on a sensitive value, so no hash (or prefix of one)
// can confirm a guess of it.
const Redacted = "(sensitive)"

// RedactSpec returns the canonical JSON of spec with the value at each
// JSON pointer in ptrs replaced by Redacted. A pointer that names nothing
// is skipped; "" and "/" name the whole spec.
func RedactSpec(spec []byte, ptrs []string) ([]byte, error) {
	if len(ptrs) == 0 {
		return Canonical(json.RawMessage(spec))
	}
	dec := json.NewDecoder(bytes.NewReader(spec))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	for _, p := range ptrs {
		v = ReplaceAt(v, SplitPointer(p), Redacted)
	}
	var b bytes.Buffer
	if err := writeCanonical(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// RedactedHash is the content hash of a spec with sensitive values: the
// hash of RedactSpec(spec, ptrs).
func RedactedHash(spec []byte, ptrs []string) (string, error) {
	b, err := RedactSpec(spec, ptrs)
	if err != nil {
		return "", err
	}
	return Hash(b), nil
}

// SpecHash is the content hash of a resource's canonical spec (not an
// image's): Hash over it, or, when it has sensitive values (ptrs),
// RedactedHash. The compiler hashes resources with it, and the planner
// again when lifecycle.ignore_changes takes values from the state.
func SpecHash(canon []byte, ptrs []string) (string, error) {
	if len(ptrs) == 0 {
		return Hash(canon), nil
	}
	return RedactedHash(canon, ptrs)
}

// SplitPointer splits a JSON pointer (RFC 6901) into its unescaped
// elements; "" and "/" give none.
func SplitPointer(ptr string) []string {
	if ptr == "" || ptr == "/" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(ptr, "/"), "/")
	for i, p := range parts {
		if strings.IndexByte(p, '~') >= 0 {
			parts[i] = pointerUnescape.Replace(p)
		}
	}
	return parts
}

// pointerEscape and pointerUnescape are RFC 6901's escapes of "~" and
// "/", made once: a Replacer builds its tables on first use, which cost a
// plan with 7,400 sensitive values half a second of CPU when each call
// made its own.
var (
	pointerEscape   = strings.NewReplacer("~", "~0", "/", "~1")
	pointerUnescape = strings.NewReplacer("~1", "/", "~0", "~")
)

// JoinPointer is the JSON pointer of the elements.
func JoinPointer(elems []string) string {
	if len(elems) == 0 {
		return "/"
	}
	var b strings.Builder
	for _, e := range elems {
		b.WriteByte('/')
		b.WriteString(PointerToken(e))
	}
	return b.String()
}

// PointerToken is one element of a JSON pointer, escaped: "~" as "~0"
// and "/" as "~1".
func PointerToken(e string) string {
	if strings.ContainsAny(e, "~/") {
		return pointerEscape.Replace(e)
	}
	return e
}

// ValueAt returns the decoded value at the JSON pointer in a decoded spec.
func ValueAt(v any, ptr string) (any, bool) {
	for _, p := range SplitPointer(ptr) {
		switch t := v.(type) {
		case map[string]any:
			c, ok := t[p]
			if !ok {
				return nil, false
			}
			v = c
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// SensitiveValue is the value at the JSON pointer ptr in spec as the
// bytes to fingerprint or compare: its canonical JSON. False when ptr
// names nothing.
func SensitiveValue(spec []byte, ptr string) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(spec))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return nil, false
	}
	x, ok := ValueAt(v, ptr)
	if !ok {
		return nil, false
	}
	var b bytes.Buffer
	if writeCanonical(&b, x) != nil {
		return nil, false
	}
	return b.Bytes(), true
}

// ReplaceAt puts with in place of the value at the JSON pointer elements
// parts (SplitPointer) of a decoded JSON value v, changing v, and returns
// the result; elements that name nothing leave v as it is.
func ReplaceAt(v any, parts []string, with any) any {
	if len(parts) == 0 {
		return with
	}
	switch t := v.(type) {
	case map[string]any:
		if c, ok := t[parts[0]]; ok {
			t[parts[0]] = ReplaceAt(c, parts[1:], with)
		}
	case []any:
		if i, err := strconv.Atoi(parts[0]); err == nil && i >= 0 && i < len(t) {
			t[i] = ReplaceAt(t[i], parts[1:], with)
		}
	}
	return v
}

// Redacted returns r as it may be shown: its spec with every sensitive
// value replaced by Redacted, and the path of every input that holds a
// sensitive value (a copy src from a sensitive variable) replaced too.
func (r Resource) Redacted() Resource {
	if len(r.Sensitive) == 0 {
		return r
	}
	var vals []string
	dec := json.NewDecoder(bytes.NewReader(r.Spec))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) == nil {
		for _, p := range r.Sensitive {
			if x, ok := ValueAt(v, p); ok {
				collectStrings(x, &vals)
			}
		}
	}
	if red, err := RedactSpec(r.Spec, r.Sensitive); err == nil {
		r.Spec = red
	} else {
		r.Spec = json.RawMessage(`{}`)
	}
	if len(r.Inputs) > 0 {
		ins := make([]Input, len(r.Inputs))
		for i, in := range r.Inputs {
			for _, s := range vals {
				if s != "" && strings.Contains(in.Path, s) {
					in.Path = Redacted
				}
			}
			ins[i] = in
		}
		r.Inputs = ins
	}
	return r
}

func collectStrings(v any, out *[]string) {
	switch t := v.(type) {
	case string:
		*out = append(*out, t)
	case []any:
		for _, e := range t {
			collectStrings(e, out)
		}
	case map[string]any:
		for _, e := range t {
			collectStrings(e, out)
		}
	}
}

// SensitiveAt reports whether the value at the JSON pointer ptr of a
// spec whose sensitive values are at pointers (a Resource's Sensitive) is
// sensitive or holds a sensitive value.
func SensitiveAt(pointers []string, ptr string) bool {
	for _, p := range pointers {
		if p == "/" || p == "" || p == ptr || strings.HasPrefix(p, ptr+"/") || strings.HasPrefix(ptr, p+"/") {
			return true
		}
	}
	return false
}
