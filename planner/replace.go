package planner

import "cc.dev/cc/schema"

// ReplaceFields lists, by kind, the top-level spec fields whose change
// forces the resource to be destroyed and created anew; every other change
// is made in place. It is read from the embedded schema's @cc(replace)
// attributes (schema/*.cue, whose comments give each rule's reason), as
// forcesReplacement reads the schema a desired state was compiled with.
// FORMAT.md and the README explain the rules (a test holds them to the
// schema).
var ReplaceFields = replaceFields(schema.Default())

func replaceFields(s *schema.Schema) map[schema.Kind][]string {
	out := map[schema.Kind][]string{}
	for _, k := range schema.Kinds {
		for _, f := range s.Kind(k).Fields {
			switch f.Replace {
			case schema.ReplaceAlways:
				out[k] = append(out[k], f.Name)
			case schema.ReplaceRef:
				out[k] = append(out[k], f.Name+".ref")
			case schema.ReplaceShrink:
				out[k] = append(out[k], f.Name+" (when it shrinks)")
			}
		}
	}
	return out
}

// forcesReplacement reports whether a change at p of a resource of kind k
// forces a replacement, by the facts of the schema the desired state was
// compiled with.
func (pl *planning) forcesReplacement(k schema.Kind, p path, before, after any) bool {
	if len(p) == 0 {
		return false
	}
	// A reference that follows a move names the same resource: it is
	// renamed in place (issue 10: moves).
	if p[len(p)-1].key == "ref" && str(after) != "" && pl.renamed[str(before)] == str(after) {
		return false
	}
	s := pl.d.Schema
	if s == nil {
		s = schema.Default()
	}
	f := s.Kind(k).Field(p[0].key)
	if f == nil {
		return false
	}
	switch f.Replace {
	case schema.ReplaceAlways:
		return !respelled(s, k, p, before, after)
	case schema.ReplaceRef:
		return len(p) == 2 && p[1].key == "ref"
	case schema.ReplaceShrink:
		return volumeShrinks(str(before), str(after))
	}
	return false
}

// volumeShrinks reports whether a volume's size goes down, or cannot be
// compared (then replacing is the safe reading).
func volumeShrinks(before, after string) bool {
	a, errA := schema.ParseQuantity(before)
	b, errB := schema.ParseQuantity(after)
	if errA != nil || errB != nil {
		return before != after
	}
	return b.Cmp(a) < 0
}

// respelled reports whether before and after, at p in a spec of kind k,
// are one quantity or duration spelled two ways: a state applied before
// the compiler wrote one spelling per value (schema.Forms) holds the old
// one. Sending the new spelling is an update, never a reason to replace.
func respelled(s *schema.Schema, k schema.Kind, p path, before, after any) bool {
	b, okB := before.(string)
	a, okA := after.(string)
	if !okB || !okA {
		return false
	}
	d := s.Kind(k)
	var f *schema.Field
	for _, sg := range p {
		if sg.index >= 0 {
			continue
		}
		if f = d.Field(sg.key); f == nil {
			return false
		}
		d = s.Elem(f)
	}
	if f == nil || f.Form == "" {
		return false
	}
	form := schema.Forms[f.Form]
	cb, errB := form(b)
	ca, errA := form(a)
	return errB == nil && errA == nil && cb == ca
}
