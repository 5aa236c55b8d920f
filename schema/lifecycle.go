package schema

import (
	"fmt"
	"sort"
	"strings"

	"cc.dev/cc/diag"
)

// Lifecycle is how cc treats a resource beyond its spec (#Lifecycle): in
// a configuration, and in the Desired state, where it is in no spec and
// no hash.
type Lifecycle struct {
	// PreventDestroy: no plan may delete or replace the resource.
	PreventDestroy bool `json:"prevent_destroy,omitempty"`
	// IgnoreChanges are field paths ("tags", "env.LOG_LEVEL") the plan
	// leaves as the service has them; sorted, each once, in a Desired.
	IgnoreChanges []string `json:"ignore_changes,omitempty"`
	// CreateBeforeDestroy: a replacement starts before the old resource
	// stops (for the kinds whose schema allows it).
	CreateBeforeDestroy bool `json:"create_before_destroy,omitempty"`

	// Range is, in a Desired, where prevent_destroy is declared (or the
	// lifecycle, when it is not); Paths where each of IgnoreChanges is.
	Range *diag.Range            `json:"-"`
	Paths map[string]*diag.Range `json:"-"`
	// Declared is Range as "file:line:col" with the file relative to the
	// project root ("main.hcl:12:5"): what the service keeps with a
	// protected resource, the same wherever cc runs.
	Declared string `json:"-"`
}

// IsZero reports whether l says nothing (nil, or every field unset).
func (l *Lifecycle) IsZero() bool {
	return l == nil || (!l.PreventDestroy && len(l.IgnoreChanges) == 0 && !l.CreateBeforeDestroy)
}

// Protected reports whether the resource may not be deleted or replaced.
func (l *Lifecycle) Protected() bool { return l != nil && l.PreventDestroy }

// Normalized is l with IgnoreChanges sorted and each once, nil when l says
// nothing: the form a Desired holds, the same from CUE and HCL.
func (l *Lifecycle) Normalized() *Lifecycle {
	if l.IsZero() {
		return nil
	}
	out := *l
	if len(l.IgnoreChanges) > 0 {
		paths := append([]string(nil), l.IgnoreChanges...)
		sort.Strings(paths)
		j := 0
		for i := range paths {
			if i == 0 || paths[i] != paths[j-1] {
				paths[j] = paths[i]
				j++
			}
		}
		out.IgnoreChanges = paths[:j]
	}
	return &out
}

// Position is where the lifecycle's prevent_destroy is declared
// (Declared, else Range), or "" when it has no position: what the service
// keeps with a protected resource so that a later plan can cite it.
func (l *Lifecycle) Position() string {
	switch {
	case l == nil:
		return ""
	case l.Declared != "":
		return l.Declared
	case l.Range != nil && !l.Range.IsZero():
		return l.Range.String()
	}
	return ""
}

// CreateBeforeDestroy reports whether the schema lets resources of kind k
// be replaced by starting the new one before the old one stops: the
// kind's lifecycle field says @cc(create_before_destroy).
func (s *Schema) CreateBeforeDestroy(k Kind) bool {
	f := s.Kind(k).Field("lifecycle")
	return f != nil && f.CreateBeforeDestroy
}

// CreateBeforeDestroyKinds lists the kinds that allow
// create_before_destroy, in Kinds order.
func (s *Schema) CreateBeforeDestroyKinds() []Kind {
	var out []Kind
	for _, k := range Kinds {
		if s.CreateBeforeDestroy(k) {
			out = append(out, k)
		}
	}
	return out
}

// FieldPathProblem says what is wrong with path as a field path of kind k
// (lifecycle.ignore_changes): "" when it names a field of the kind's
// schema, or a key of a map field ("env.LOG_LEVEL"); otherwise why not,
// with a did-you-mean when a field's name is close.
func (s *Schema) FieldPathProblem(k Kind, path string) string {
	d := s.Kind(k)
	segs := strings.Split(path, ".")
	for i, seg := range segs {
		at := strings.Join(segs[:i], ".")
		if isMap(d) {
			if i != len(segs)-1 {
				return fmt.Sprintf("%s.%s is a key of a map: nothing can follow it", at, seg)
			}
			return ""
		}
		if d == nil {
			return fmt.Sprintf("%s has no fields", at)
		}
		f := d.Field(seg)
		if f == nil || seg == "lifecycle" || strings.HasPrefix(seg, "$") {
			return s.unknownPathField(d, at, seg, k)
		}
		if f.List && i != len(segs)-1 {
			return fmt.Sprintf("%s is a list: ignore it whole, not a part of it", strings.Join(segs[:i+1], "."))
		}
		d = s.Elem(f)
	}
	return ""
}

// isMap reports whether a struct has only a pattern ({[string]: T}).
func isMap(d *Def) bool { return d != nil && len(d.Fields) == 0 }

// unknownPathField says that the struct d at path at (of kind k) has no
// field seg, suggesting a close name, or the path of a field seg one
// struct further down (resources.cpu: resources.requests.cpu).
func (s *Schema) unknownPathField(d *Def, at, seg string, k Kind) string {
	var names []string
	deeper := ""
	for _, f := range d.Fields {
		if f.Name == "lifecycle" || strings.HasPrefix(f.Name, "$") {
			continue
		}
		names = append(names, f.Name)
		if e := s.Elem(f); deeper == "" && !f.List && e.Field(seg) != nil {
			deeper = strings.TrimPrefix(at+"."+f.Name+"."+seg, ".")
		}
	}
	where := "a " + string(k)
	if at != "" {
		where = at
	}
	msg := fmt.Sprintf("%s has no field %q", where, seg)
	if deeper != "" {
		msg += fmt.Sprintf("; did you mean %q?", deeper)
	} else if sug := diag.Suggest(seg, names); sug != "" {
		msg += fmt.Sprintf("; did you mean %q?", strings.TrimPrefix(at+"."+sug, "."))
	}
	return msg
}
