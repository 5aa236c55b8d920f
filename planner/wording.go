package planner

import (
	"fmt"
	"strings"
)

func joinNames(names []string) string {
	if len(names) > maxCauses {
		return strings.Join(names[:maxCauses], ", ") + fmt.Sprintf(" and %d more", len(names)-maxCauses)
	}
	return strings.Join(names, ", ")
}

// describeField says how a field changed, with short values.
func describeField(f FieldChange) string {
	switch {
	case f.Sensitive:
		return f.Path + " (sensitive value changed)"
	case f.Op == "added":
		return fmt.Sprintf("%s added: %s", f.Path, clipValue(string(f.After)))
	case f.Op == "removed":
		return fmt.Sprintf("%s removed (was %s)", f.Path, clipValue(string(f.Before)))
	case f.Diff != "":
		return f.Path + " changed (see the diff)"
	}
	return fmt.Sprintf("%s %s → %s", f.Path, clipValue(string(f.Before)), clipValue(string(f.After)))
}

func quote(v any) string {
	if v == nil {
		return "(none)"
	}
	return clipValue(string(encode(v)))
}

func clipValue(s string) string { return clipTo(s, maxValueLen) }

// clipTo cuts s to at most n bytes, on a rune boundary, marking the cut.
func clipTo(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 {
		cut--
	}
	return s[:cut] + "…"
}

func joinStrings(l []any) string {
	var s []string
	for _, x := range l {
		s = append(s, fmt.Sprint(x))
	}
	return strings.Join(s, " ")
}

// valueAt follows a path into a decoded value.
func valueAt(v any, p path) any {
	for _, s := range p {
		switch t := v.(type) {
		case map[string]any:
			if s.index >= 0 {
				return nil
			}
			v = t[s.key]
		case []any:
			if s.index < 0 || s.index >= len(t) {
				return nil
			}
			v = t[s.index]
		default:
			return nil
		}
	}
	return v
}

func short(h string) string {
	if len(h) > len("sha256:")+12 {
		return h[:len("sha256:")+12]
	}
	return h
}
