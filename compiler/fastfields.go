package compiler

import "strings"

// The compiled schema walked by path, for did-you-mean suggestions.

// path, for did-you-mean suggestions: through collections (images.NAME),
// list elements, definitions and disjunctions (from: ref | image).
func (fs *fastSchema) fieldsAt(path []string) []string {
	if fs.err != nil {
		return nil
	}
	t := fs.defs["#Config"]
	for _, elem := range path {
		if t = fs.step(t, elem); t == nil {
			return nil
		}
	}
	seen := map[string]bool{}
	for _, a := range fs.alternatives(t) {
		for name := range a.fields {
			if !strings.HasPrefix(name, "$") {
				seen[name] = true
			}
		}
	}
	return sortedKeys(seen)
}

// unknownAt returns the length of path's shortest prefix whose last
// element the schema does not know (a field no struct on the way has), or
// 0 when the schema knows every element.
func (fs *fastSchema) unknownAt(path []string) int {
	if fs.err != nil {
		return 0
	}
	t := fs.defs["#Config"]
	for i, elem := range path {
		if t = fs.step(t, elem); t == nil {
			return i + 1
		}
	}
	return 0
}

// step is the type of one element below t: a field, a pattern's value or a
// list element.
func (fs *fastSchema) step(t *stype, elem string) *stype {
	for _, a := range fs.alternatives(t) {
		if isIndex(elem) {
			if a.kinds&kList == 0 {
				continue
			}
			if i := atoi(elem); i < len(a.prefix) {
				return a.prefix[i]
			}
			if a.elem != nil {
				return a.elem
			}
			continue
		}
		if f := a.fields[elem]; f != nil {
			return f.t
		}
		for _, p := range a.patterns {
			if _, err := fs.check(p.key, elem, nil); err == nil {
				return p.t
			}
		}
	}
	return nil
}

// alternatives resolves t and flattens its disjunction.
func (fs *fastSchema) alternatives(t *stype) []*stype {
	t = fs.resolve(t)
	if len(t.alts) == 0 {
		return []*stype{t}
	}
	var out []*stype
	for _, a := range t.alts {
		out = append(out, fs.alternatives(a)...)
	}
	return out
}
