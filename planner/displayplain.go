package planner

import (
	"encoding/json"
	"strings"
)

// Most values a plan shows are written by writeValue(decode(raw)) as raw
// itself: a number, true, false, null, or a string of printable ASCII
// with no escapes; a list of those only gains a space after each comma.
// displayPlain gives that text without decoding and encoding again (a
// plan of 10,000 creates shows 100,000 values); anything else (an object,
// a nested list, an escape, white space, bad JSON) is left to the decoder.
// FuzzDisplayPlain holds it to the decoder's result.

// displayPlain is writeValue(decode(raw)) when raw is plain (see above).
func displayPlain(raw string) (string, bool) {
	if plainScalar(raw) {
		return raw, true
	}
	if len(raw) < 2 || raw[0] != '[' || raw[len(raw)-1] != ']' {
		return "", false
	}
	in := raw[1 : len(raw)-1]
	if in == "" {
		return raw, true
	}
	var b strings.Builder
	b.Grow(len(raw) + len(raw)/4)
	b.WriteByte('[')
	for first := true; ; first = false {
		elem, rest, more := nextPlain(in)
		if !plainScalar(elem) {
			return "", false
		}
		if !first {
			b.WriteString(", ")
		}
		b.WriteString(elem)
		if !more {
			break
		}
		in = rest
	}
	b.WriteByte(']')
	return b.String(), true
}

// nextPlain splits a list's inside at the comma after its first element
// (a string's commas are its own: it has no escapes if it is plain).
func nextPlain(in string) (elem, rest string, more bool) {
	i := 0
	if in != "" && in[0] == '"' {
		if j := strings.IndexByte(in[1:], '"'); j >= 0 {
			i = j + 2
		}
	}
	j := strings.IndexByte(in[i:], ',')
	if j < 0 {
		return in, "", false
	}
	return in[:i+j], in[i+j+1:], true
}

// plainScalar reports whether s is a JSON number, true, false, null, or
// a string of printable ASCII without escapes, and nothing else.
func plainScalar(s string) bool {
	switch {
	case s == "true" || s == "false" || s == "null":
		return true
	case len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"':
		for i := 1; i < len(s)-1; i++ {
			if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
				return false
			}
		}
		return true
	}
	return jsonNumber(s)
}

// jsonNumber reports whether s is exactly a JSON number: it starts as
// one and is valid JSON with no white space around it.
func jsonNumber(s string) bool {
	return s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') && strings.TrimSpace(s) == s && json.Valid([]byte(s))
}
