package schema

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestIssue16FactsOfDefault: the embedded schema's @cc attributes read as
// the facts the code relied on when it held them itself (issue 16 item 1).
func TestIssue16FactsOfDefault(t *testing.T) {
	s := Default()
	if len(s.Files()) != len(FileNames) {
		t.Fatalf("Default has %d files, want %d", len(s.Files()), len(FileNames))
	}
	for i, f := range s.Files() {
		if f.Name != FileNames[i] {
			t.Errorf("file %d is %s, want %s", i, f.Name, FileNames[i])
		}
	}
	for _, tc := range []struct {
		def, field string
		replace    Replace
		block      BlockMode
		blockName  string
		typ        string
	}{
		{"#Sandbox", "image", ReplaceAlways, BlockSingle, "image", "#Image"},
		{"#Sandbox", "env", ReplaceAlways, BlockNone, "", ""},
		{"#Sandbox", "credentials", ReplaceNever, BlockList, "credential", "#Credential"},
		{"#Sandbox", "tags", ReplaceNever, BlockNone, "", ""},
		{"#Volume", "size", ReplaceShrink, BlockNone, "", ""},
		{"#Evaluation", "dataset", ReplaceRef, BlockNone, "", "#Dataset"},
		{"#Evaluation", "scorers", ReplaceNever, BlockLabelled, "scorer", "#Scorer"},
		{"#Image", "from", ReplaceNever, BlockSingle, "from", "#Image"},
		{"#Image", "steps", ReplaceNever, BlockStep, "steps", "#Step"},
		{"#Scorer", "llm_judge", ReplaceNever, BlockSingle, "llm_judge", "#LLMJudge"},
		{"#Scorer", "function", ReplaceNever, BlockNone, "", "#Function"},
	} {
		f := s.Def(tc.def).Field(tc.field)
		if f == nil {
			t.Errorf("%s.%s: no such field", tc.def, tc.field)
			continue
		}
		if f.Replace != tc.replace || f.Block != tc.block || f.BlockName != tc.blockName || f.Type != tc.typ {
			t.Errorf("%s.%s = replace %q block %d %q type %q, want %q %d %q %q", tc.def, tc.field,
				f.Replace, f.Block, f.BlockName, f.Type, tc.replace, tc.block, tc.blockName, tc.typ)
		}
	}
	for _, k := range Kinds {
		if s.Kind(k) == nil {
			t.Errorf("no definition for kind %s", k)
		}
	}
	if f := s.Def("#Secret").Field("from_store"); f == nil || f.Inline == nil || f.Inline.Field("field") == nil {
		t.Errorf("#Secret.from_store's inline struct was not read: %+v", f)
	}
}

// TestIssue16FactsRefused: a @cc attribute the code would not understand
// is an error when the schema loads, not a fact silently ignored.
func TestIssue16FactsRefused(t *testing.T) {
	for src, want := range map[string]string{
		"#A: {x?: int @cc(replace=sometimes)}":            "replace=sometimes",
		"#A: {x?: int @cc(frobnicate)}":                   `unknown @cc fact "frobnicate"`,
		"#A: {x?: int @cc(block)}":                        "not a struct",
		"#A: {x?: {y?: int} @cc(block, step)}":            "need a list",
		"#A: {x?: [string]: int @cc(replace)}":            "pattern constraint",
		"#A: {x?: [...{y?: int}] @cc(step)}":              "go with block",
		"#A: {x?: [...{y?: int}] @cc(block=y, labelled)}": "",
	} {
		_, err := Load(fstest.MapFS{"a.cue": {Data: []byte("package schema\n" + src + "\n")}})
		if want == "" {
			if err != nil {
				t.Errorf("%s: %v", src, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want one containing %q", src, err, want)
		}
	}
}
