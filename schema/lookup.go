package schema

import (
	"fmt"
	"strings"
)

// Lookup returns the field a schema path names: a definition and field
// names, dot-separated, each field of the struct the one before is
// (Elem): "#Sandbox.network.egress_mode", "#Config.scaling_groups",
// "#Image.steps.apt.packages". A path goes through definitions
// (#Sandbox.resources.gpu.count is #Resources.gpu.count) and list
// elements, not into maps.
func (s *Schema) Lookup(path string) (*Field, error) {
	name, rest, _ := strings.Cut(path, ".")
	d := s.Def(name)
	if d == nil || !strings.HasPrefix(name, "#") {
		return nil, fmt.Errorf("%s: no definition %s", path, name)
	}
	if rest == "" {
		return nil, fmt.Errorf("%s: names no field", path)
	}
	var f *Field
	for i, seg := range strings.Split(rest, ".") {
		if i > 0 {
			if d = s.Elem(f); d == nil {
				return nil, fmt.Errorf("%s: %s is not a struct", path, f.Name)
			}
		}
		if f = d.Field(seg); f == nil {
			return nil, fmt.Errorf("%s: no field %s", path, seg)
		}
	}
	return f, nil
}
