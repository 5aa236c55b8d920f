package compiler

import (
	"fmt"
	"strings"

	"cc.dev/cc/schema"
)

// resolve finds the declared resource of kind k at a reference position:
// by the reference's ID, or failing that by equal content. It returns ""
// (after reporting why) when there is none.
func (b *builder) resolve(k schema.Kind, id string, v any, path []string, declared func(string) bool) string {
	if name, ok := strings.CutPrefix(id, string(k)+"."); ok {
		if !declared(name) {
			b.errorf(path, "reference to undefined %s %q", k, name)
			return ""
		}
		return name
	}
	b.mu.Lock()
	if b.content == nil {
		b.content = newContentIndex(b.cfg) // only when some value is not written as a reference
	}
	names := b.content.lookup(k, v)
	b.mu.Unlock()
	switch len(names) {
	case 1:
		return names[0]
	case 0:
		plural := k.Plural()
		d := b.errorf(path, "a %s here must be a declared %s of this project", k, k)
		d.Detail = fmt.Sprintf("declare it and refer to it as %s.NAME (CUE) or %s.NAME (HCL)", plural, k)
	default:
		b.errorf(path, "this %s equals %s.%s and %s.%s; refer to one of them directly", k, k, names[0], k, names[1])
	}
	return ""
}
