package planner

import (
	"bufio"
	"bytes"
	"fmt"
	"runtime"
	"testing"
)

// TestWriteChangesInOrder: issue 13. Plans of more than one run of
// changes are rendered on several cores at once (writeChanges); the text
// is exactly the one-core text, every change in its place.
func TestWriteChangesInOrder(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	}
	for _, n := range []int{changesPerChunk - 1, changesPerChunk, changesPerChunk + 1, 10*changesPerChunk + 7} {
		cs := make([]Change, n)
		for i := range cs {
			cs[i] = Change{Addr: fmt.Sprintf("volume.v-%d", i), Action: Create,
				Reasons: []Reason{{Code: ReasonNew, Message: "new in the configuration"}},
				Fields:  []FieldChange{{Path: "size", Op: "added", After: []byte(fmt.Sprintf(`"%dGi"`, i))}}}
		}
		var want bytes.Buffer
		w := bufio.NewWriter(&want)
		for i := range cs {
			w.WriteByte('\n')
			writeChange(w, &cs[i], "  ", painter(false))
		}
		w.Flush()
		var got bytes.Buffer
		w = bufio.NewWriter(&got)
		writeChanges(w, cs, painter(false))
		w.Flush()
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%d changes: the text differs from the one-core text (%d bytes, want %d)", n, got.Len(), want.Len())
		}
	}
}
