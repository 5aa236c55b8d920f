package schema

import (
	"regexp"
	"strings"
	"testing"
)

// TestSchemaWithoutClose checks that no schema file calls CUE's close().
// In CUE v0.17 close({...}) closes only the struct it is given, not the
// structs inside it, while a definition closes every struct it holds:
// #Scorer: close({exact_match?: {...}}) let exact_match: {sCores: ...}
// through, and the compile failed with an internal error (9212132;
// compiler's TestNestedFieldsClosed checks the effect).
func TestSchemaWithoutClose(t *testing.T) {
	call := regexp.MustCompile(`\bclose\(`)
	for _, name := range FileNames {
		b, err := Files.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if call.MatchString(code) {
				t.Errorf("%s:%d: %s: write a definition's structs plainly; close() leaves the structs inside open", name, i+1, strings.TrimSpace(line))
			}
		}
	}
}
