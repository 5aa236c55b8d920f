package compiler

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIssue9DatasetColumns: scorer inputs are checked against the columns
// of a local dataset in each format, Parquet's read from the footer of a
// file parquet-go wrote (issue 9 item 3); the bad cases are in the
// corpus (testdata/bad/dataset-*.txtar).
func TestIssue9DatasetColumns(t *testing.T) {
	pq, err := os.ReadFile("testdata/parquet/rows.parquet") // input, expected, meta, score, flag
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, content, inputs, wantErr string
	}{
		{"csv", "g.csv", "\ufeffinput,\"expected\"\nq,a\n", `["output", "expected"]`, ""},
		{"csv header only", "g.csv", "input,expected\n", `["input", "expected"]`, ""},
		{"jsonl", "g.jsonl", "\n{\"input\": \"q\", \"expected\": [1, {\"x\": 2}]}\n{}\n", `["trace", "expected"]`, ""},
		{"parquet", "g.parquet", string(pq), `["meta", "flag"]`, ""},
		{"parquet unknown", "g.parquet", string(pq), `["output", "answer"]`,
			`main.hcl:11:46: scorer 1 (exact_match): input "answer" is not a column of dataset.g; g.parquet has the columns input, expected, meta, score, flag, and the task adds output and trace`},
		{"csv empty", "g.csv", "", `["output", "expected"]`,
			`main.hcl:7:24: dataset file g.csv is empty: a CSV dataset starts with a header line naming its columns`},
		{"jsonl not an object", "g.jsonl", "[1, 2]\n", `["output", "expected"]`,
			`main.hcl:7:24: dataset file g.jsonl has a first record that is not a JSON object: it starts with [`},
		{"csv header too long", "g.csv", strings.Repeat("a", maxCSVHeader+10) + "\n", `["output", "expected"]`,
			`main.hcl:7:24: dataset file g.csv has a header line longer than 1 MiB`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{
				"src/app.py": "def main(x): return x\n",
				tc.file:      tc.content,
				"main.hcl": `project = "demo"
function "app" {
  image { from = "python:3.12-slim" }
  source { paths = ["src"] }
  handler = "app:main"
}
dataset "g" { files = ["` + tc.file + `"] }
evaluation "e" {
  dataset = dataset.g
  task    = function.app
  scorer "exact_match" { inputs = ` + tc.inputs + ` }
}
`,
			})
			_, err := Compile(context.Background(), Input{Path: filepath.Join(dir, "main.hcl")})
			got := ""
			var cerr *Error
			if errors.As(err, &cerr) {
				got = strings.ReplaceAll(cerr.Diagnostics.Error(), dir+"/", "")
			} else if err != nil {
				t.Fatalf("Compile() error = %v", err)
			}
			if got != tc.wantErr {
				t.Errorf("Compile() diagnostics:\n%s\nwant:\n%s", got, tc.wantErr)
			}
		})
	}
}
