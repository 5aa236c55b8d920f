package schema

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"
)

// IsCanonical reports whether b is canonical JSON: byte for byte what
// Canonical makes of it, and so one value with no white space, object keys
// unique and sorted, and each string and number in its one form. It reads
// b once and decodes nothing (the service checks every spec it is sent,
// and decoding one into a tree to encode it again was a tenth of a
// request's checks, issue 13). False means Canonical(b) differs from b or
// fails, except that b nested deeper than encoding/json allows is refused
// here as there.
func IsCanonical(b []byte) bool {
	c := canonicalChecker{b: b}
	return c.value(0) && c.i == len(b)
}

// maxDepth is encoding/json's limit of nested arrays and objects.
const maxDepth = 10000

type canonicalChecker struct {
	b []byte
	i int
}

// next is the byte at the checker's offset, or 0 at the end.
func (c *canonicalChecker) next() byte {
	if c.i < len(c.b) {
		return c.b[c.i]
	}
	return 0
}

func (c *canonicalChecker) value(depth int) bool {
	switch ch := c.next(); {
	case ch == '{':
		return depth < maxDepth && c.object(depth+1, nil)
	case ch == '[':
		return depth < maxDepth && c.array(depth+1)
	case ch == '"':
		_, _, ok := c.str()
		return ok
	case ch == 't':
		return c.literal("true")
	case ch == 'f':
		return c.literal("false")
	case ch == 'n':
		return c.literal("null")
	case ch == '-' || '0' <= ch && ch <= '9':
		return c.number()
	}
	return false
}

func (c *canonicalChecker) literal(s string) bool {
	if !bytes.HasPrefix(c.b[c.i:], []byte(s)) {
		return false
	}
	c.i += len(s)
	return true
}

func (c *canonicalChecker) array(depth int) bool {
	c.i++ // [
	if c.next() == ']' {
		c.i++
		return true
	}
	for {
		if !c.value(depth) {
			return false
		}
		switch c.next() {
		case ',':
			c.i++
		case ']':
			c.i++
			return true
		default:
			return false
		}
	}
}

// object checks an object whose keys, decoded, are strictly increasing
// (Canonical sorts a decoded map's keys: a repeated key is one key), and
// when keep is set, each without an escape and passing keep.
func (c *canonicalChecker) object(depth int, keep func(key []byte) bool) bool {
	c.i++ // {
	if c.next() == '}' {
		c.i++
		return true
	}
	var prev []byte
	prevEscaped := false
	for i := 0; ; i++ {
		if c.next() != '"' {
			return false
		}
		key, escaped, ok := c.str()
		if !ok || i > 0 && !keyAfter(prev, prevEscaped, key, escaped) {
			return false
		}
		if keep != nil && (escaped || !keep(key)) {
			return false
		}
		prev, prevEscaped = key, escaped
		if c.next() != ':' {
			return false
		}
		c.i++
		if !c.value(depth) {
			return false
		}
		switch c.next() {
		case ',':
			c.i++
		case '}':
			c.i++
			return true
		default:
			return false
		}
	}
}

// keyAfter reports whether key sorts after prev, both as decoded.
func keyAfter(prev []byte, prevEscaped bool, key []byte, escaped bool) bool {
	if !prevEscaped && !escaped {
		return bytes.Compare(key, prev) > 0
	}
	return unquoteChecked(key) > unquoteChecked(prev)
}

// unquoteChecked decodes a string's contents that str has checked.
func unquoteChecked(raw []byte) string {
	var s string
	quoted := make([]byte, 0, len(raw)+2)
	quoted = append(append(append(quoted, '"'), raw...), '"')
	if json.Unmarshal(quoted, &s) != nil {
		panic("schema: unquoteChecked of a string str refused")
	}
	return s
}

// str checks a string as writeString writes it, and returns its contents
// (between the quotes) and whether they have an escape: valid UTF-8, no
// control character unescaped, and only the escapes \" \\ \n \r \t and
// \u00xx (lower-case hex) of another control character.
func (c *canonicalChecker) str() (raw []byte, escaped, ok bool) {
	c.i++ // "
	start := c.i
	for c.i < len(c.b) {
		switch ch := c.b[c.i]; {
		case ch == '"':
			raw = c.b[start:c.i]
			c.i++
			return raw, escaped, true
		case ch < 0x20:
			return nil, false, false
		case ch == '\\':
			n := canonicalEscape(c.b[c.i+1:])
			if n == 0 {
				return nil, false, false
			}
			escaped = true
			c.i += 1 + n
		case ch < utf8.RuneSelf:
			c.i++
		default:
			r, size := utf8.DecodeRune(c.b[c.i:])
			if r == utf8.RuneError && size == 1 {
				return nil, false, false // decoding would replace it
			}
			c.i += size
		}
	}
	return nil, false, false
}

// canonicalEscape is the length of the escape that b starts with (after
// its backslash) if writeString writes it, else 0.
func canonicalEscape(b []byte) int {
	if len(b) == 0 {
		return 0
	}
	switch b[0] {
	case '"', '\\', 'n', 'r', 't':
		return 1
	case 'u':
		if len(b) < 5 || b[1] != '0' || b[2] != '0' || (b[3] != '0' && b[3] != '1') {
			return 0
		}
		lo := b[4]
		switch {
		case '0' <= lo && lo <= '9', 'a' <= lo && lo <= 'f':
		default:
			return 0
		}
		if b[3] == '0' && (lo == '9' || lo == 'a' || lo == 'd') {
			return 0 // \t, \n and \r have their short escapes
		}
		return 5
	}
	return 0
}

// number checks a number as JSON spells it and canonicalNumber leaves it.
func (c *canonicalChecker) number() bool {
	start := c.i
	if c.next() == '-' {
		c.i++
	}
	switch ch := c.next(); {
	case ch == '0':
		c.i++
	case '1' <= ch && ch <= '9':
		c.digits()
	default:
		return false
	}
	plain := true
	if c.next() == '.' {
		c.i++
		if !c.digits() {
			return false
		}
		plain = false
	}
	if ch := c.next(); ch == 'e' || ch == 'E' {
		c.i++
		if ch := c.next(); ch == '+' || ch == '-' {
			c.i++
		}
		if !c.digits() {
			return false
		}
		plain = false
	}
	if plain {
		return string(c.b[start:c.i]) != "-0"
	}
	s := string(c.b[start:c.i])
	n, err := canonicalNumber(s)
	return err == nil && n == s
}

// digits skips a run of digits and reports whether there was one.
func (c *canonicalChecker) digits() bool {
	start := c.i
	for ch := c.next(); '0' <= ch && ch <= '9'; ch = c.next() {
		c.i++
	}
	return c.i > start
}

// canonicalKeys reports whether b is canonical JSON of an object each of
// whose keys (without escapes) passes keep, read as IsCanonical reads it;
// false when it is not such an object (the caller then decodes it).
func canonicalKeys(b []byte, keep func(key []byte) bool) bool {
	c := canonicalChecker{b: b}
	return c.next() == '{' && c.object(1, keep) && c.i == len(b)
}
