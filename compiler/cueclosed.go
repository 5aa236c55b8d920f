package compiler

import (
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
)

// Closed structs on the fast path (cuegate.go): a configuration with
// definitions gives, U alone, concrete values some of whose structs are
// closed (every struct of a definition without "..."), and CUE refuses a
// field the schema would add to one. So the collector notes, for each
// resource, the fields its check added (the schema's defaults, the
// shared defaults) to the exported value, and fastCUE, once the workers
// are done, asks CUE whether the struct each went into takes it
// (cue.Value.Allows); where one does not, the fast way gives up and CUE
// judges, and words the error. Asking only about what was added keeps
// the walk off every field, and the questions on the one goroutine that
// evaluates.

// addition is a field the fast check added to a CUE resource: the struct
// it went into (its path below the resource, list indexes as numbers)
// and its name.
type addition struct {
	coll, res string    // the resource's collection and name
	cv        cue.Value // the resource
	path      []string
	name      string
}

// additions lists the fields out (a resource's checked tree) has that
// before (its export, as it was) lacks, outermost first: an added
// struct's own fields are not listed.
func additions(it item, before, out any) []addition {
	var adds []addition
	var walk func(b, o any, path []string)
	walk = func(b, o any, path []string) {
		switch o := o.(type) {
		case map[string]any:
			bm, _ := b.(map[string]any)
			names := make([]string, 0, len(o))
			for k := range o {
				names = append(names, k)
			}
			sort.Strings(names)
			for _, k := range names {
				bk, had := bm[k]
				if !had {
					adds = append(adds, addition{coll: it.coll, res: it.name, cv: it.cv, path: append([]string(nil), path...), name: k})
					continue
				}
				walk(bk, o[k], append(path, k))
			}
		case []any:
			bl, _ := b.([]any)
			for i, x := range o {
				var bx any
				if i < len(bl) {
					bx = bl[i]
				}
				walk(bx, x, append(path, strconv.Itoa(i)))
			}
		}
	}
	walk(before, out, nil)
	return adds
}

// refusedAddition names the first addition whose struct, in the user's
// value, does not take it, or is "" when every one is taken.
func refusedAddition(adds []addition) string {
	for _, a := range adds {
		x := a.cv
		for _, p := range a.path {
			if i, err := strconv.Atoi(p); err == nil && x.IncompleteKind() == cue.ListKind {
				x = x.LookupPath(cue.MakePath(cue.Index(i)))
			} else {
				x = x.LookupPath(cue.MakePath(cue.Str(p)))
			}
		}
		if !x.Exists() || !x.Allows(cue.Str(a.name)) {
			return strings.Join(append(append([]string{a.coll, a.res}, a.path...), a.name), ".")
		}
	}
	return ""
}
