package compiler

import (
	"bytes"
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"cc.dev/cc/schema"
)

// sensitiveIn returns JSON pointers into the canonical spec canon of the
// resource (or image) of kind declared at path for the sensitive values
// under path. A value reached through a reference (an image by hash, a
// secret, volume, dataset or function by Ref) is the referred resource's,
// not this one's: the spec holds the reference, not the value. A position
// the spec does not have as such (a list the compiler sorts, a path it
// rewrites) gives its nearest enclosing one, so nothing derived from a
// sensitive value is ever left unmarked.
// sensitiveUnder are the configuration's sensitive paths under path, in
// their order. They are indexed once by their first elements (a
// resource's path is two or three long: sandboxes.box, data.volumes.v),
// so that a project with a sensitive value in each of 10,000 resources
// does not compare every path with every resource (issue 13: 12 s).
func (b *builder) sensitiveUnder(path []string) [][]string {
	const indexed = 4
	if len(path) > indexed {
		var out [][]string
		for _, sp := range b.ld.sensitive {
			if len(sp) >= len(path) && pathKey(sp[:len(path)]) == pathKey(path) {
				out = append(out, sp)
			}
		}
		return out
	}
	b.sensOnce.Do(func() {
		b.sens = map[string][][]string{}
		for _, sp := range b.ld.sensitive {
			for n := 0; n <= min(indexed, len(sp)); n++ {
				k := strconv.Itoa(n) + "\x00" + pathKey(sp[:n])
				b.sens[k] = append(b.sens[k], sp)
			}
		}
	})
	return b.sens[strconv.Itoa(len(path))+"\x00"+pathKey(path)]
}

func (b *builder) sensitiveIn(kind schema.Kind, path []string, canon []byte) []string {
	var v any
	seen := map[string]bool{}
	var out []string
	for _, sp := range b.sensitiveUnder(path) {
		rel, ok := specPath(kind, sp[len(path):])
		if !ok {
			continue
		}
		if v == nil {
			v = decodeSpec(canon)
		}
		for len(rel) > 0 {
			if _, ok := schema.ValueAt(v, schema.JoinPointer(rel)); ok {
				break
			}
			rel = rel[:len(rel)-1]
		}
		ptr := schema.JoinPointer(rel)
		if !seen[ptr] {
			seen[ptr] = true
			out = append(out, ptr)
		}
	}
	sort.Strings(out)
	// A pointer inside another one adds nothing.
	kept := out[:0]
	for _, p := range out {
		if n := len(kept); n > 0 && (kept[n-1] == "/" || strings.HasPrefix(p, kept[n-1]+"/")) {
			continue
		}
		kept = append(kept, p)
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// specPath maps a config path under a resource of kind to the path of the
// same value in its spec; false when the spec holds a reference there.
func specPath(kind schema.Kind, rel []string) ([]string, bool) {
	if len(rel) == 0 {
		return rel, true
	}
	at := func(i int, s string) bool { return len(rel) > i && rel[i] == s }
	switch kind {
	case schema.KindImage:
		switch {
		case at(0, "from") && len(rel) > 1:
			return nil, false // an image of its own, hashed in
		case at(0, "from_dockerfile"):
			return []string{"from_dockerfile", "path"}, true
		}
	case schema.KindSandbox, schema.KindFunction, schema.KindContainer, schema.KindTraining, schema.KindScalingGroup:
		switch {
		case at(0, "image"), at(0, "env_from"), at(0, "dataset_mounts") && at(2, "dataset"):
			return nil, false
		case at(0, "env") && len(rel) > 2:
			return nil, false // a secret reference
		case at(0, "credentials") && at(2, "secret"), at(0, "volume_mounts") && at(2, "volume"):
			return nil, false
		case at(0, "s3_mount") && at(1, "credentials"):
			return nil, false // a secret reference (issue 11)
		}
	case schema.KindEvaluation:
		switch {
		case at(0, "dataset"), at(0, "task"), at(0, "suite"):
			return nil, false
		case at(0, "scorers") && (at(2, "function") || at(2, "llm_judge") && at(3, "api_key")):
			return nil, false
		}
	case schema.KindDataset:
		if at(0, "files") && len(rel) == 2 {
			return append(rel, "path"), true
		}
		if at(0, "columns") && len(rel) == 3 {
			return []string{"rows", rel[2], rel[1]}, true // columns compile to rows (issue 11)
		}
	case schema.KindSecret:
		if (at(0, "from_env_file") || at(0, "from_integration")) && at(1, "keys") {
			return rel[:2], true // sorted: the whole list
		}
	}
	return rel, true
}

func decodeSpec(b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return map[string]any{}
	}
	return v
}
