package compiler

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"cc.dev/cc/compiler/workload"
)

// splitBlocks is a file of several top-level blocks; each case below
// changes one of them (the first, a middle one or the last).
var splitBlocks = []string{
	"project = \"p\"\n",
	"image \"a\" {\n  from = \"python:3.12-slim\"\n  apt { packages = [\"curl\"] }\n}\n",
	"secret \"s\" {\n  from_env = \"KEY\"\n}\n",
	"sandbox \"b\" {\n  image = image.a\n  env = { A = \"x-${secret.s}-y\", \"B\" = \"}{\" }\n  command = [\"sh\", \"-c\", \"echo $${HOME} %%{x}\"]\n}\n",
	"locals {\n  m = { for k, v in { a = 1 } : k => \"${k}=${v}\" }\n  n = \"${ { x = \"}\" }[\"x\"] }\"\n}\n",
	"volume \"v\" {\n  size = \"1Gi\"\n}\n",
}

// splitVariants rewrite block i of splitBlocks: what the scan must follow
// or refuse, and syntax errors.
var splitVariants = map[string]func(string) string{
	"as is": func(s string) string { return s },
	"heredoc": func(s string) string {
		return strings.Replace(s, "{\n", "{\n  description = <<EOT\n} not a brace\nEOT\n", 1)
	},
	"indent heredoc": func(s string) string {
		return strings.Replace(s, "{\n", "{\n  description = <<-EOT\n    }\n    EOT\n", 1)
	},
	"heredoc interpolation": func(s string) string {
		return strings.Replace(s, "{\n", "{\n  description = <<EOT\n${ { a = \"}\" }[\"a\"] } { %{ if true }x%{ endif }\n  EOT\n", 1)
	},
	"heredoc multi-line interpolation": func(s string) string {
		return strings.Replace(s, "{\n", "{\n  description = <<EOT\n${join(\",\", [\n\"EOT\",\n])} }\nEOT\n", 1)
	},
	"heredoc marker after interpolation": func(s string) string {
		return strings.Replace(s, "{\n", "{\n  description = <<EOT\n${\"x\"}EOT\n}\nEOT\n", 1)
	},
	"heredoc escapes": func(s string) string {
		return strings.Replace(s, "{\n", "{\n  description = <<EOT\n$${ %%{ }\nEOT\n", 1)
	},
	"heredoc in interpolation": func(s string) string {
		return strings.Replace(s, "{\n", "{\n  description = <<EOT\n${<<INNER\nEOT\nINNER\n}\nEOT\n", 1)
	},
	"heredoc crlf": func(s string) string {
		return strings.ReplaceAll(strings.Replace(s, "{\n", "{\n  description = <<EOT\n} x\n EOT \n", 1), "\n", "\r\n")
	},
	"heredoc blanks around marker": func(s string) string {
		return strings.Replace(s, "{\n", "{\n  description = <<EOT\n}\n\t EOT\v\n", 1)
	},
	"heredoc unterminated":      func(s string) string { return strings.Replace(s, "{\n", "{\n  description = <<EOT\n}\n", 1) },
	"heredoc marker at the end": func(s string) string { return s + "x = <<EOT\nEOT" },
	"heredoc bad marker":        func(s string) string { return strings.Replace(s, "{\n", "{\n  description = <<E OT\n}\nE OT\n", 1) },
	"heredoc unicode marker":    func(s string) string { return strings.Replace(s, "{\n", "{\n  description = <<ÉOT\n}\nÉOT\n", 1) },
	"line comments":             func(s string) string { return "# a } comment \"\n// another {\n" + s + "# after }\n" },
	"block comment":             func(s string) string { return "/* spans\n}\n\"{ */\n" + s },
	"trailing":                  func(s string) string { return strings.Replace(s, "}\n", "} # end\n", 1) },
	"crlf":                      func(s string) string { return strings.ReplaceAll(s, "\n", "\r\n") },
	"graphemes": func(s string) string {
		return strings.Replace(s, "{\n", "{\n  # e\u0301t\u00e9 \U0001F1EB\U0001F1F7\n", 1)
	},
	"missing brace":  func(s string) string { return strings.Replace(s, "}\n", "\n", 1) },
	"extra brace":    func(s string) string { return s + "}\n" },
	"bad token":      func(s string) string { return strings.Replace(s, "{\n", "{\n  x = = 1\n", 1) },
	"newline string": func(s string) string { return strings.Replace(s, "{\n", "{\n  x = \"a\nb\"\n", 1) },
	"open string":    func(s string) string { return strings.Replace(s, "{\n", "{\n  x = \"a${\n", 1) },
	"open comment":   func(s string) string { return s + "/* never closed\n" },
	"duplicate":      func(s string) string { return s + "project = \"q\"\n" },
	"attribute":      func(s string) string { return "top = { a = 1 }\n" + s },
}

// mustSplit are the variants of splitVariants whose files are parsed in
// pieces: a heredoc, which holds anything up to its marker, is followed
// by the scan, so that one in a large file does not send it all to one
// parse by hclsyntax (issue 13: a heredoc cost the 10,000-resource
// project half its time and doubled its memory).
var mustSplit = map[string]bool{
	"as is": true, "heredoc": true, "indent heredoc": true, "heredoc interpolation": true,
	"heredoc multi-line interpolation": true, "heredoc marker after interpolation": true,
	"heredoc escapes": true, "heredoc crlf": true, "heredoc blanks around marker": true,
	"line comments": true, "block comment": true, "trailing": true, "crlf": true,
}

// TestParallelParseMatchesOneParse checks that parsing a file in pieces
// gives exactly the body (every node and range) and the diagnostics of
// one parse: over files with heredocs, comments, templates and syntax
// errors in the first, a middle and the last block, the examples and a
// generated workload (issue 13: HCL compile at the parser's floor).
func TestParallelParseMatchesOneParse(t *testing.T) {
	defer setSplit(0, 1)()
	for name, change := range splitVariants {
		for _, at := range []int{0, 1, 3, len(splitBlocks) - 1} {
			blocks := append([]string(nil), splitBlocks...)
			blocks[at] = change(blocks[at])
			src := []byte(strings.Join(blocks, ""))
			split := sameAsOneParse(t, name, src)
			if mustSplit[name] && !split {
				t.Errorf("%s, block %d: the file was not parsed in pieces", name, at)
			}
		}
	}
	for _, f := range repoHCLFiles(t) {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sameAsOneParse(t, f, src)
	}
	src := workload.HCL(workload.Options{N: 400})
	if !sameAsOneParse(t, "workload", src) {
		t.Error("the generated workload was not parsed in pieces")
	}
}

// sameAsOneParse compares parseHCLConfig with hclsyntax.ParseConfig on
// src, and says whether src was parsed in pieces.
func sameAsOneParse(t *testing.T, name string, src []byte) bool {
	t.Helper()
	file, want := hclsyntax.ParseConfig(src, "main.hcl", hcl.InitialPos)
	got, gotDiags := parseHCLConfig(src, "main.hcl")
	if !reflect.DeepEqual(gotDiags, want) {
		t.Errorf("%s: diagnostics differ:\n got %v\nwant %v", name, gotDiags, want)
	}
	if !reflect.DeepEqual(got, file.Body) {
		t.Errorf("%s: the body differs from one parse's", name)
	}
	cuts := splitPoints(src, splitChunkSize)
	return len(cuts) > 0 && parseChunks(src, "main.hcl", cuts) != nil
}

// repoHCLFiles are the HCL files of the examples and the compiler's test
// data.
func repoHCLFiles(t *testing.T) []string {
	var out []string
	for _, root := range []string{"../examples", "testdata"} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".hcl") {
				out = append(out, p)
			}
			return err
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
	}
	if len(out) == 0 {
		t.Fatal("no HCL files found")
	}
	return out
}

// setSplit sets the sizes the parse cuts files at, and returns what puts
// them back.
func setSplit(min, chunk int) func() {
	m, c := splitMinSize, splitChunkSize
	splitMinSize, splitChunkSize = min, chunk
	return func() { splitMinSize, splitChunkSize = m, c }
}

// TestParallelParseCompilesTheSame compiles the examples, a generated
// workload and broken variants of a file with every file parsed in
// pieces and with none, and compares the desired state and diagnostics
// (issue 13: HCL compile at the parser's floor).
func TestParallelParseCompilesTheSame(t *testing.T) {
	var paths []string
	for _, f := range repoHCLFiles(t) {
		if strings.HasPrefix(f, "../examples") && filepath.Base(f) == "main.hcl" {
			paths = append(paths, f)
		}
	}
	dir := t.TempDir()
	if err := workload.Write(dir, workload.Options{N: 200}); err != nil {
		t.Fatal(err)
	}
	paths = append(paths, filepath.Join(dir, "main.hcl"))
	for _, v := range []string{"bad token", "missing brace", "duplicate", "as is"} {
		for _, at := range []int{0, 3, len(splitBlocks) - 1} {
			blocks := append([]string(nil), splitBlocks...)
			blocks[at] = splitVariants[v](blocks[at])
			d := t.TempDir()
			if err := os.WriteFile(filepath.Join(d, "main.hcl"), []byte(strings.Join(blocks, "")), 0o644); err != nil {
				t.Fatal(err)
			}
			paths = append(paths, filepath.Join(d, "main.hcl"))
		}
	}
	for _, p := range paths {
		one := compileOutcome(t, p, 1<<62, 1<<62)
		pieces := compileOutcome(t, p, 0, 1)
		if one != pieces {
			t.Errorf("%s: parsed in pieces it compiles to\n%s\nwhole to\n%s", p, pieces, one)
		}
	}
}

// compileOutcome is the desired state as JSON, or the error, of a compile
// of path with the given split sizes.
func compileOutcome(t *testing.T, path string, min, chunk int) string {
	defer setSplit(min, chunk)()
	res, err := Compile(context.Background(), Input{Path: path, Offline: false})
	if err != nil {
		return "error: " + err.Error()
	}
	b, err := json.Marshal(res.Desired)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzParallelParse checks, on any bytes, that parsing in pieces gives
// the body and diagnostics of one parse (issue 13).
func FuzzParallelParse(f *testing.F) {
	for _, change := range splitVariants {
		f.Add([]byte(strings.Join(splitBlocks[:3], "") + change(splitBlocks[3]) + splitBlocks[4]))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		defer setSplit(0, 1)()
		sameAsOneParse(t, "fuzzed", src)
	})
}
