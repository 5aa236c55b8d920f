package compiler

import (
	"fmt"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// HCL data blocks (issue 10): data "volume" "cache" { name = "build-cache" }
// is the data source data.volume.cache, evaluated as a resource is (node
// "data.volume.cache") into data: volumes: cache: in the configuration
// the schema checks.

// dataKindNames are the labels a data block may have, for messages.
func dataKindNames() []string {
	out := make([]string, len(schema.DataKinds))
	for i, k := range schema.DataKinds {
		out[i] = string(k)
	}
	return out
}

// collectData records one data block, refusing a wrong number of labels,
// an unknown kind and a duplicate.
func (l *hclLoader) collectData(b *hclsyntax.Block) {
	if len(b.Labels) != 2 {
		l.errorf(b.DefRange(), `a data block has two labels, its kind and its name: data "volume" "cache" { name = "..." }`)
		return
	}
	kind := schema.Kind(b.Labels[0])
	if !schema.DataKind(kind) {
		d := l.errorf(b.LabelRanges[0], "unknown data source kind %q", b.Labels[0])
		if s := diag.Suggest(b.Labels[0], dataKindNames()); s != "" {
			d.Summary += fmt.Sprintf("; did you mean %q?", s)
		}
		d.Detail = "a data source is one of: " + strings.Join(dataKindNames(), ", ") + " (scaling groups come with scaling_group resources)"
		return
	}
	addr := schema.DataAddress(kind, b.Labels[1])
	if prev := l.resources[addr]; prev != nil {
		d := l.errorf(b.DefRange(), "data %q %q is defined twice", b.Labels[0], b.Labels[1])
		d.Related = []diag.Range{*toRange(prev.block.DefRange())}
		return
	}
	l.resources[addr] = &hclResource{kind: "data", dataKind: kind, name: b.Labels[1], block: b}
	l.order = append(l.order, addr)
}

// checkDataTraversal validates a reference data.KIND.NAME and returns its
// node, or "".
func (l *hclLoader) checkDataTraversal(tr hcl.Traversal) node {
	var parts []string
	end := tr[0].SourceRange()
	for _, s := range tr[1:min(len(tr), 3)] {
		a, ok := s.(hcl.TraverseAttr)
		if !ok {
			break
		}
		parts, end = append(parts, a.Name), a.SrcRange
	}
	rng := hcl.RangeBetween(tr[0].SourceRange(), end)
	if len(parts) != 2 {
		l.errorf(tr.SourceRange(), "a data source is referred to as data.KIND.NAME (data.volume.cache)")
		return ""
	}
	kind := schema.Kind(parts[0])
	if !schema.DataKind(kind) {
		d := l.errorf(rng, "unknown data source kind %q", parts[0])
		if s := diag.Suggest(parts[0], dataKindNames()); s != "" {
			d.Summary += fmt.Sprintf("; did you mean data.%s?", s)
		}
		return ""
	}
	addr := schema.DataAddress(kind, parts[1])
	if l.resources[addr] == nil {
		d := l.errorf(rng, "reference to undeclared data source %s", addr)
		var names []string
		for _, a := range l.order {
			if r := l.resources[a]; r.dataKind == kind {
				names = append(names, r.name)
			}
		}
		if s := suggestName(parts[1], names); s != "" {
			d.Summary += fmt.Sprintf("; did you mean %s?", schema.DataAddress(kind, s))
		} else {
			d.Detail = fmt.Sprintf(`declare it: data %q %q { name = "..." }`, kind, parts[1])
		}
		return ""
	}
	return addr
}
