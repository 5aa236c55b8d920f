package compiler

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/schema"
)

// evals11Files are the local files of testdata/evals11's project.
var evals11Files = map[string]string{
	"data/goldens.csv": "input,expected\nhi,hello\n",
	"data/more.csv":    "input,expected\nyo,hey\n",
	"src/app.py":       "def answer(x): return x\n",
}

// evals11 writes testdata/evals11's project in lang, with replace applied
// to its source, and returns its main file's path.
func evals11(t *testing.T, lang string, replace ...string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata/evals11", "main."+lang))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.NewReplacer(replace...).Replace(string(src))
	files := map[string]string{"main." + lang: text}
	for k, v := range evals11Files {
		files[k] = v
	}
	return filepath.Join(writeProject(t, files), "main."+lang)
}

// compileEvals11 compiles evals11's project and returns its canonical
// JSON.
func compileEvals11(t *testing.T, lang string, replace ...string) []byte {
	t.Helper()
	return compileJSON(t, evals11(t, lang, replace...), Input{})
}

// TestIssue11EvaluationsSameFromBothLanguages: a suite, an evaluation's
// title and suite reference, a dataset's platform name, a glob (HCL
// fileset), inline tables by row and by column, function scorers with
// named scores, an external scorer function by version id, and a judge
// with a prompt, JSON parsing, enum, list and object reply fields and
// any-JSON completion options compile to byte-identical desired states
// from CUE and HCL (issue 11: evaluations, datasets, suites).
func TestIssue11EvaluationsSameFromBothLanguages(t *testing.T) {
	c, h := compileEvals11(t, "cue"), compileEvals11(t, "hcl")
	if !bytes.Equal(c, h) {
		t.Fatalf("CUE and HCL compile differently:\n%s", cmp.Diff(string(c), string(h)))
	}
	// HCL's literal glob is fileset()'s result too.
	lit := compileEvals11(t, "hcl", `fileset(".", "data/*.csv")`, `["data/*.csv"]`)
	if !bytes.Equal(lit, h) {
		t.Fatalf("files = [\"data/*.csv\"] compiles differently from fileset():\n%s", cmp.Diff(string(h), string(lit)))
	}
	for _, want := range []string{
		`"title":"Customer Support Chatbot"`, `"suite":{"hash":`, `"ref":"suite.release"`, `"name":"support_goldens"`,
		`"path":"data/goldens.csv"`, `"path":"data/more.csv"`, `"scores":["relevance","tone"]`,
		`"external_function":{"version_id":"fn_brand_alignment_v2"}`, `"name":"judge"`, `"parse":"json"`,
		`"stop":["\n\n"]`, `"values":["pass","fail"]`, `"items":{"type":"string"}`,
	} {
		if !bytes.Contains(c, []byte(want)) {
			t.Errorf("the desired state lacks %s", want)
		}
	}
}

// TestIssue11InlineTableForms: a table by rows and the same table by
// columns are one spec (issue 11: datasets).
func TestIssue11InlineTableForms(t *testing.T) {
	d := compileOK(t, evals11(t, "cue"), Input{})
	rows, cols := d.Lookup("dataset.capitals"), d.Lookup("dataset.capitals2")
	if rows == nil || cols == nil || rows.Hash != cols.Hash || !bytes.Equal(rows.Spec, cols.Spec) {
		t.Fatalf("rows and columns of one table differ:\n%s\n%s", rows.Spec, cols.Spec)
	}
}

// TestIssue11GlobStableOrder: a glob's files are in sorted order, each
// hashed, and a new matching file changes the dataset (issue 11).
func TestIssue11GlobStableOrder(t *testing.T) {
	before := compileOK(t, evals11(t, "cue"), Input{}).Lookup("dataset.goldens")
	evals11Files["data/aa.csv"] = "input,expected\na,b\n"
	defer delete(evals11Files, "data/aa.csv")
	after := compileOK(t, evals11(t, "cue"), Input{}).Lookup("dataset.goldens")
	if before.Hash == after.Hash {
		t.Fatal("a new file matching the glob left the dataset's hash as it was")
	}
	spec := spec[schema.DatasetSpec](t, compileOK(t, evals11(t, "cue"), Input{}), "dataset.goldens")
	var paths []string
	for _, f := range spec.Files {
		paths = append(paths, f.Path)
	}
	if got := strings.Join(paths, ","); got != "data/aa.csv,data/goldens.csv,data/more.csv" {
		t.Fatalf("files %s, want them sorted", got)
	}
}
