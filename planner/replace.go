package planner

import (
	"math/big"
	"regexp"
	"strings"

	"cc.dev/cc/schema"
)

// ReplaceFields lists, by kind, the top-level spec fields whose change
// forces the resource to be destroyed and created anew; every other change
// is made in place. FORMAT.md and the README explain each rule:
//
//   - sandbox: a sandbox is a running container. Its image, command,
//     environment, resources, mounts, snapshot, identity and profile are
//     fixed when it starts, so changing them replaces it. Tags,
//     annotations, lifetime, network policy and host-scoped credentials
//     (substituted by the network policy) change in place.
//   - volume: a volume grows in place; making it smaller replaces it, and
//     its data is lost (see volumeShrinks).
//   - evaluation: it is pinned to its dataset when created; pointing it at
//     another dataset replaces it. A new revision of the same dataset, a
//     new version of its task and scorer changes update it in place.
//   - image: an image is a value; an address that points at a new image is
//     updated. Functions and datasets are versioned: a change makes a new
//     version, or makes an old one with the same content current again.
//     Secrets change in place (source or value).
var ReplaceFields = map[schema.Kind][]string{
	schema.KindSandbox:    {"image", "command", "env", "env_from", "resources", "volume_mounts", "mounted_files", "snapshot", "identity", "profile"},
	schema.KindEvaluation: {"dataset.ref"},
	schema.KindVolume:     {"size (when it shrinks)"},
}

// forcesReplacement reports whether a change at p of a resource of kind k
// forces a replacement.
func forcesReplacement(k schema.Kind, p path, before, after any) bool {
	if len(p) == 0 {
		return false
	}
	top := p[0].key
	switch k {
	case schema.KindSandbox:
		for _, f := range ReplaceFields[k] {
			if top == f {
				return true
			}
		}
	case schema.KindEvaluation:
		return top == "dataset" && len(p) == 2 && p[1].key == "ref"
	case schema.KindVolume:
		return top == "size" && volumeShrinks(str(before), str(after))
	}
	return false
}

var quantityRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([KMGTPE]i?|k|)$`)

var units = map[string]int64{
	"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15, "E": 1e18,
	"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40, "Pi": 1 << 50, "Ei": 1 << 60,
}

// bytesOf parses a size such as "20Gi" or "500M".
func bytesOf(s string) (*big.Rat, bool) {
	m := quantityRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return nil, false
	}
	n, ok := new(big.Rat).SetString(m[1])
	if !ok {
		return nil, false
	}
	return n.Mul(n, new(big.Rat).SetInt64(units[m[2]])), true
}

// volumeShrinks reports whether a volume's size goes down, or cannot be
// compared (then replacing is the safe reading).
func volumeShrinks(before, after string) bool {
	a, okA := bytesOf(before)
	b, okB := bytesOf(after)
	if !okA || !okB {
		return before != after
	}
	return b.Cmp(a) < 0
}
