package planner

import (
	"strings"
	"testing"
)

// displaySlow is display's way for every value: decode, then write.
func displaySlow(raw string) string {
	var b strings.Builder
	writeValue(&b, decode([]byte(raw)))
	return b.String()
}

var displayCases = []string{
	``, `0`, `-0`, `1`, `-12`, `01`, `1.5`, `1.`, `.5`, `1e5`, `1E+5`, `1e-05`, `1e`, `-`, `1.5e400`, `123456789012345678901234567890`,
	`true`, `false`, `null`, `nul`, `True`, ` 1`, `1 `, `1 2`, `"a" "b"`,
	`""`, `"a"`, `"info"`, `"handler:handle"`, `"a,b"`, `"a\"b"`, `"a\\b"`, `"\u00e9"`, `"é"`, `"<&>"`, "\"a\tb\"", `"a`, `a"`, `"`, `"~"`, "\"\x7f\"",
	`"sha256:26c979d02f16aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"`,
	`[]`, `[ ]`, `[1]`, `[1,2]`, `[1, 2]`, `["src/svc0"]`, `["a,b","c"]`, `["a","b,",""]`, `[,]`, `[1,]`, `[,1]`, `[[1]]`, `[{"a":1}]`, `["a"`, `[`, `]`, `["a\"",1]`, `["a",01]`, `[true,null,false,-1.5e3]`,
	`{}`, `{"b":1,"a":2}`, `{"a":[1,2]}`,
}

// TestDisplayPlainMatchesDecoder: issue 13: display's shortcut for plain
// values writes what decoding and writing again writes, and takes the
// values it is for.
func TestDisplayPlainMatchesDecoder(t *testing.T) {
	taken := 0
	for _, raw := range displayCases {
		v, ok := displayPlain(raw)
		if !ok {
			continue
		}
		taken++
		if want := displaySlow(raw); v != want {
			t.Errorf("displayPlain(%q) = %q, the decoder writes %q", raw, v, want)
		}
	}
	for _, raw := range []string{`0`, `1e5`, `"info"`, `"a,b"`, `["src/svc0"]`, `["a,b","c"]`, `[true,null,false,-1.5e3]`, `[]`} {
		if _, ok := displayPlain(raw); !ok {
			t.Errorf("displayPlain(%q) is not taken", raw)
		}
	}
	if taken < 20 {
		t.Errorf("only %d cases taken", taken)
	}
}

// FuzzDisplayPlain: whatever it takes, displayPlain writes as the decoder
// does.
func FuzzDisplayPlain(f *testing.F) {
	for _, raw := range displayCases {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if v, ok := displayPlain(raw); ok {
			if want := displaySlow(raw); v != want {
				t.Fatalf("displayPlain(%q) = %q, the decoder writes %q", raw, v, want)
			}
		}
	})
}
