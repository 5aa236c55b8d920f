package compiler

import (
	"fmt"

	"github.com/zclconf/go-cty/cty"
	"go.yaml.in/yaml/v3"
)

// yamlAliases refuses, before yamldecode builds it, a YAML document whose
// aliases expand to more than maxElements nodes (a "billion laughs": a few
// lines whose value is exponential, which go-cty-yaml would build in
// full). The document is parsed into nodes, whose aliases are not
// expanded, and its expanded size counted with each anchor's size counted
// once. A document yaml.v3 cannot parse is left to yamldecode, whose
// error is Terraform's.
func yamlAliases(args []cty.Value) error {
	if len(args) != 1 || !known(args[0]) || args[0].Type() != cty.String {
		return nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(args[0].AsString()), &doc); err != nil {
		return nil
	}
	sizes := map[*yaml.Node]int64{}
	if n := expandedSize(&doc, sizes, 0); n > maxElements {
		return &limitError{fmt.Sprintf("yamldecode(): the document's aliases expand to more than %d values, the limit on a collection", maxElements)}
	}
	return nil
}

// maxYAMLDepth bounds the nesting expandedSize follows (an alias cycle, or
// a document nested deeper than any real one, counts as too large).
const maxYAMLDepth = 10_000

// expandedSize is the number of nodes n stands for once its aliases are
// expanded, capped just past maxElements; sizes memoizes it per node.
func expandedSize(n *yaml.Node, sizes map[*yaml.Node]int64, depth int) int64 {
	if s, ok := sizes[n]; ok {
		return s
	}
	if depth > maxYAMLDepth {
		return maxElements + 1
	}
	sizes[n] = maxElements + 1 // an alias back into n, while it is counted, is a cycle
	s := int64(1)
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		s = expandedSize(n.Alias, sizes, depth+1)
	}
	for _, c := range n.Content {
		if s > maxElements {
			break
		}
		s += expandedSize(c, sizes, depth+1)
	}
	sizes[n] = min(s, maxElements+1)
	return sizes[n]
}
