package compiler

import (
	"regexp"
	"strings"
	"testing"

	"cc.dev/cc/schema"
)

// TestNestedFieldsClosed checks that a misspelt field inside a scorer's
// kind or an image step is a positioned "unknown" error in both
// languages. CUE's close({...}) closes only the struct it is given, not
// the structs inside it, so CUE accepted scorers: [{exact_match: {sCores:
// ["a"]}}], and the compile failed with an internal error decoding what
// CUE had validated (found by FuzzCompileHCL). Definitions close every
// struct they hold.
func TestNestedFieldsClosed(t *testing.T) {
	files := map[string]string{"src/app.py": "def main(x): return x\n", "data/g.csv": "input,expected\n"}
	for _, kind := range schema.ScorerKinds {
		if kind == "function" {
			continue // a reference, not a struct
		}
		t.Run("scorer "+kind, func(t *testing.T) {
			hcl := copyFiles(files)
			hcl["main.hcl"] = `project = "p"
function "app" {
  image { from = "python:3.12-slim" }
  source { paths = ["src"] }
  handler = "app:main"
}
dataset "g" { files = ["data/g.csv"] }
evaluation "e" {
  dataset = dataset.g
  task    = function.app
  scorer "` + kind + `" {
    bogus = ["a"]
  }
}
`
			cue := copyFiles(files)
			cue["main.cue"] = `project: "p"
functions: app: {
	image: from: "python:3.12-slim"
	source: paths: ["src"]
	handler: "app:main"
}
datasets: g: files: ["data/g.csv"]
evaluations: e: {
	dataset: datasets.g
	task:    functions.app
	scorers: [{` + kind + `: {bogus: ["a"]}}]
}
`
			unknownEverywhere(t, hcl, `main.hcl:12:5: unknown attribute "bogus"`, cue, `main.cue:11:`)
		})
	}
	for _, kind := range schema.StepKinds {
		t.Run("step "+kind, func(t *testing.T) {
			hcl := copyFiles(files)
			hcl["main.hcl"] = `project = "p"
image "base" {
  from = "python:3.12-slim"
  ` + kind + ` {
    bogus = 1
  }
}
`
			cue := copyFiles(files)
			cue["main.cue"] = `project: "p"
images: base: {
	from: "python:3.12-slim"
	steps: [{` + kind + `: {bogus: 1}}]
}
`
			unknownEverywhere(t, hcl, `main.hcl:5:5: unknown attribute "bogus"`, cue, `main.cue:4:`)
		})
	}
}

// unknownEverywhere compiles the HCL and the CUE project, which must fail
// with an unknown "bogus" where the patterns say, and with no internal
// error.
func unknownEverywhere(t *testing.T, hcl map[string]string, hclAt string, cue map[string]string, cueAt string) {
	t.Helper()
	for _, c := range []struct {
		files map[string]string
		want  *regexp.Regexp
	}{
		{hcl, regexp.MustCompile(regexp.QuoteMeta(hclAt))},
		{cue, regexp.MustCompile(regexp.QuoteMeta(cueAt) + `\d+: unknown field "bogus"`)},
	} {
		got := compileErr(t, writeProject(t, c.files))
		if strings.Contains(got, "internal error") || !c.want.MatchString(got) {
			t.Errorf("errors:\n%swant %s", got, c.want)
		}
	}
}
