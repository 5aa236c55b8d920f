package compiler

import (
	"bytes"
	"fmt"
	"strings"

	"cc.dev/cc/schema"
)

// writeHCLResource writes a generated resource as an HCL block. An
// instance (worker["a"], worker[0]) cannot be a block's label: it is
// written as a block of its own that declares just it, for_each =
// toset(["a"]) or count = 1, to merge into the repeated block by hand; an
// index other than 0 is refused, as no count declares it alone (issue 12:
// reuse).
func writeHCLResource(b *bytes.Buffer, k schema.Kind, member string, body map[string]any) error {
	key := schema.InstanceKey(member)
	if key == "" {
		writeHCLBlock(b, k, member, body)
		return nil
	}
	name := strings.TrimSuffix(member, key)
	out := make(map[string]any, len(body)+1)
	for f, v := range body {
		out[f] = v
	}
	switch {
	case key == "[0]":
		out["count"] = 1
	case strings.HasPrefix(key, `["`):
		out["for_each"] = ref(`toset([` + key[1:len(key)-1] + `])`)
	default:
		return fmt.Errorf("generate configuration: %s: an instance of a count other than [0] cannot be declared alone: declare it by hand", schema.Address(k, member))
	}
	fmt.Fprintf(b, "# %s: merge into the block %s, which declares its other instances.\n", schema.Address(k, member), schema.Address(k, name))
	writeHCLBlock(b, k, name, out)
	return nil
}
