package schema

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Canonical encodes v as canonical JSON: object keys sorted, no
// insignificant whitespace, no HTML escaping, and one form for each number
// (integers without exponent or fraction, others in the shortest form that
// round-trips, as RFC 8785 does). Equal values give equal bytes.
func Canonical(v any) ([]byte, error) {
	tree, err := jsonTree(v)
	if err != nil {
		return nil, err
	}
	return encodeTree(tree)
}

// compareDirect, set by tests, sees each tree directTree built, with the
// value it was built from.
var compareDirect func(v, tree any)

// jsonTree is v as decoded JSON: maps, slices, strings, json.Numbers.
func jsonTree(v any) (any, error) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		if tree, ok := directTree(v); ok {
			if compareDirect != nil {
				compareDirect(v, tree)
			}
			return tree, nil
		}
		var err error
		raw, err = marshalNoEscape(v)
		if err != nil {
			return nil, err
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	return tree, nil
}

// encodeTree writes a decoded JSON tree as canonical JSON.
func encodeTree(tree any) ([]byte, error) {
	var b bytes.Buffer
	if err := writeCanonical(&b, tree); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// Hash is "sha256:" + the hex sha256 of b.
func Hash(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// HashOf hashes the canonical JSON of v.
func HashOf(v any) (string, []byte, error) {
	b, err := Canonical(v)
	if err != nil {
		return "", nil, err
	}
	return Hash(b), b, nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}

func writeCanonical(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case string:
		writeString(b, v)
	case json.Number:
		s, err := canonicalNumber(string(v))
		if err != nil {
			return err
		}
		b.WriteString(s)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeCanonical(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := writeCanonical(b, v[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("canonical: unexpected %T", v)
	}
	return nil
}

func writeString(b *bytes.Buffer, s string) {
	const hexdigits = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hexdigits[r>>4])
			b.WriteByte(hexdigits[r&0xf])
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}

// canonicalNumber rewrites a JSON number in its one canonical form.
func canonicalNumber(s string) (string, error) {
	if !strings.ContainsAny(s, ".eE") {
		if s == "-0" {
			return "0", nil
		}
		return s, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return "", fmt.Errorf("canonical: number %s: %w", s, err)
	}
	if f == 0 {
		return "0", nil
	}
	// ECMAScript's Number to string, as RFC 8785 uses: plain digits from
	// 1e-6 up to 1e21, else an exponent without leading zeros.
	if a := math.Abs(f); a >= 1e-6 && a < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64), nil
	}
	m, e, _ := strings.Cut(strconv.FormatFloat(f, 'e', -1, 64), "e")
	sign := e[:1]
	e = strings.TrimLeft(e[1:], "0")
	return m + "e" + sign + e, nil
}
