package diag

import (
	"testing"
)

// TestValidateDocument: issue 12: validate --json. The document counts
// errors and warnings, is valid with warnings only, renames files, and
// gives a snippet (whole lines, byte offsets into them, no values) only
// for a file whose source it has.
func TestValidateDocument(t *testing.T) {
	src := []byte("project = \"demo\"\nsandbox \"dev\" {\n  comand = [\n    \"x\"]\n}\n")
	at := &Range{File: "p/main.hcl", Start: Pos{Line: 3, Col: 3, Byte: 35}, End: Pos{Line: 4, Col: 9, Byte: 54}}
	ds := Diagnostics{
		Errorf(at, "unknown attribute"),
		{Severity: Warning, Summary: "a warning", Subject: &Range{File: "gone.hcl", Start: Pos{Line: 1, Col: 1}}},
		Errorf(nil, "no position"),
	}
	doc := NewValidateDocument(ds, func(f string) []byte {
		if f == "p/main.hcl" {
			return src
		}
		return nil
	}, func(string, []byte, int) string { return `sandbox "dev"` }, func(f string) string { return f[len("p/"):] })
	if doc.Valid || doc.ErrorCount != 2 || doc.WarningCount != 1 || doc.FormatVersion != "1.0" {
		t.Fatalf("document = %+v", doc)
	}
	d := doc.Diagnostics[0]
	if d.Range.File != "main.hcl" || d.Snippet == nil {
		t.Fatalf("first diagnostic = %+v", d)
	}
	s := d.Snippet
	if s.Code != "  comand = [\n    \"x\"]" || s.StartLine != 3 || s.HighlightStartOffset != 2 || s.HighlightEndOffset != 21 || len(s.Values) != 0 || *s.Context != `sandbox "dev"` {
		t.Errorf("snippet = %+v", *s)
	}
	if doc.Diagnostics[1].Snippet != nil || doc.Diagnostics[2].Range != nil {
		t.Errorf("a diagnostic without source or position: %+v, %+v", doc.Diagnostics[1], doc.Diagnostics[2])
	}
	if ok := NewValidateDocument(ds[1:2], nil, nil, nil); !ok.Valid || len(ok.Diagnostics) != 1 {
		t.Errorf("warnings only: %+v, want valid", ok)
	}
}
