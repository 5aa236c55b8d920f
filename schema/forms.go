package schema

import (
	"fmt"
	"strconv"
)

// FormError is a value that has no canonical spelling (quantity.go): a
// duration too long for Go's time.Duration. Pointer is where it is in the
// spec, a JSON pointer.
type FormError struct {
	Pointer string
	Err     error
}

func (e *FormError) Error() string { return fmt.Sprintf("%s: %v", e.Pointer, e.Err) }

func (e *FormError) Unwrap() error { return e.Err }

// CanonicalSpec encodes spec, the spec of a resource of kind k, as
// Canonical does, with the value of every field the schema types #CPU,
// #Quantity or #Duration (Forms) in its canonical spelling: equal values
// give equal bytes, and so equal hashes. A value without one is a
// *FormError.
func (s *Schema) CanonicalSpec(k Kind, spec any) ([]byte, error) {
	tree, err := jsonTree(spec)
	if err != nil {
		return nil, err
	}
	if d := s.Kind(k); d != nil && s.hasForms(d) {
		if err := s.canonicalForms(d, tree, nil); err != nil {
			return nil, err
		}
	}
	return encodeTree(tree)
}

// canonicalForms rewrites, in the decoded spec v of the struct d, the
// values of the fields with a form. Where the spec holds something else
// than the schema says (a reference by hash for an inline image), it is
// left as it is.
func (s *Schema) canonicalForms(d *Def, v any, at []string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	for _, f := range d.Fields {
		val, ok := m[f.Name]
		if !ok {
			continue
		}
		p := append(at[:len(at):len(at)], f.Name)
		if f.Form != "" {
			if err := canonicalValue(f, m, val, p); err != nil {
				return err
			}
			continue
		}
		elem := s.Elem(f)
		if elem == nil || !s.hasForms(elem) {
			continue
		}
		if !f.List {
			if err := s.canonicalForms(elem, val, p); err != nil {
				return err
			}
			continue
		}
		list, _ := val.([]any)
		for i, e := range list {
			if err := s.canonicalForms(elem, e, append(p[:len(p):len(p)], strconv.Itoa(i))); err != nil {
				return err
			}
		}
	}
	return nil
}

// canonicalValue rewrites m[f.Name], val, a value (or list of values) of
// f's form.
func canonicalValue(f *Field, m map[string]any, val any, p []string) error {
	form := Forms[f.Form]
	one := func(x any, p []string) (any, error) {
		str, ok := x.(string)
		if !ok {
			return x, nil
		}
		c, err := form(str)
		if err != nil {
			return nil, &FormError{Pointer: JoinPointer(p), Err: err}
		}
		return c, nil
	}
	if !f.List {
		c, err := one(val, p)
		if err == nil {
			m[f.Name] = c
		}
		return err
	}
	list, _ := val.([]any)
	for i, x := range list {
		c, err := one(x, append(p[:len(p):len(p)], strconv.Itoa(i)))
		if err != nil {
			return err
		}
		list[i] = c
	}
	return nil
}

// hasForms reports whether a field with a form is in d or any struct
// under it.
func (s *Schema) hasForms(d *Def) bool {
	return s.formful[d]
}

// markForms records, for every struct of the schema, whether a field with
// a form is in it or under it (hasForms).
func (s *Schema) markForms() {
	s.formful = map[*Def]bool{}
	var reach func(d *Def, visiting map[*Def]bool) bool
	reach = func(d *Def, visiting map[*Def]bool) bool {
		if v, ok := s.formful[d]; ok {
			return v
		}
		if visiting[d] {
			return false // a cycle: decided where it started
		}
		visiting[d] = true
		found := false
		for _, f := range d.Fields {
			if f.Form != "" {
				found = true
			} else if e := s.Elem(f); e != nil && reach(e, visiting) {
				found = true
			}
		}
		delete(visiting, d)
		if found || len(visiting) == 0 {
			s.formful[d] = found
		}
		return found
	}
	var all func(d *Def)
	all = func(d *Def) {
		reach(d, map[*Def]bool{})
		for _, f := range d.Fields {
			if f.Inline != nil {
				all(f.Inline)
			}
		}
	}
	for _, d := range s.defs {
		all(d)
	}
}
