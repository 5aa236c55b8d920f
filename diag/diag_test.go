package diag

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestSuggest(t *testing.T) {
	cands := []string{"command", "cmd", "image", "resources", "exposed_ports"}
	for given, want := range map[string]string{
		"comand":        "command",
		"imgae":         "image", // transposition
		"resource":      "resources",
		"exposed_port":  "exposed_ports",
		"zzzzzzz":       "",
		"command":       "", // not a misspelling
		"network_rules": "",
	} {
		if got := Suggest(given, cands); got != want {
			t.Errorf("Suggest(%q) = %q, want %q", given, got, want)
		}
	}
}

func TestWriteText(t *testing.T) {
	src := "project = \"demo\"\nsandbox \"dev\" {\n\tcomand = [\"x\"]\n}\n"
	d := Errorf(&Range{File: "main.hcl", Start: Pos{Line: 3, Col: 2, Byte: 33}, End: Pos{Line: 3, Col: 8, Byte: 39}},
		"unknown attribute %q; did you mean %q?", "comand", "command")
	d.Related = []Range{{File: "other.hcl", Start: Pos{Line: 1, Col: 1}}}
	var b bytes.Buffer
	if err := WriteText(&b, Diagnostics{d}, func(string) []byte { return []byte(src) }); err != nil {
		t.Fatal(err)
	}
	want := "error: main.hcl:3:2: unknown attribute \"comand\"; did you mean \"command\"?\n" +
		"\n  3 |     comand = [\"x\"]\n" +
		"    |     ^^^^^^\n" +
		"  (see also other.hcl:1:1)\n"
	if got := b.String(); got != want {
		t.Errorf("WriteText() =\n%q\nwant\n%q", got, want)
	}
}

func TestSortDedupes(t *testing.T) {
	a := Errorf(&Range{File: "b.cue", Start: Pos{Line: 2, Byte: 10}}, "x")
	b := Errorf(&Range{File: "a.cue", Start: Pos{Line: 9, Byte: 90}}, "y")
	c := Errorf(&Range{File: "b.cue", Start: Pos{Line: 2, Byte: 10}}, "x")
	got := Diagnostics{a, b, c}.Sort()
	if len(got) != 2 || got[0] != b || got[1] != a {
		t.Errorf("Sort() = %v, want a.cue first and the duplicate dropped", got)
	}
	if !got.HasErrors() || got.Err() == nil || (Diagnostics{}).Err() != nil {
		t.Error("HasErrors/Err")
	}
}

func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	d := Errorf(&Range{File: "m.cue", Start: Pos{Line: 1, Col: 2, Byte: 1}, End: Pos{Line: 1, Col: 4, Byte: 3}}, "bad")
	if err := WriteJSON(&b, Diagnostics{d}); err != nil {
		t.Fatal(err)
	}
	var got struct {
		Diagnostics []struct {
			Severity string `json:"severity"`
			Summary  string `json:"summary"`
			Range    struct {
				Filename string `json:"filename"`
				Start    struct{ Line, Column int }
			} `json:"range"`
		} `json:"diagnostics"`
	}
	if err := json.Unmarshal(b.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	g := got.Diagnostics[0]
	if g.Severity != "error" || g.Summary != "bad" || g.Range.Filename != "m.cue" || g.Range.Start.Line != 1 || g.Range.Start.Column != 2 {
		t.Errorf("WriteJSON() = %s", b.Bytes())
	}
}
