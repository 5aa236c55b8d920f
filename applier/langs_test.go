package applier_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/compiler"
	"cc.dev/cc/schema"
)

// language is one of the two configuration languages. The issue 10
// acceptance tests run in both (issue 10: parity): a project is written in
// one of them by the generators below, which give the same resources and
// declarations in each.
type language struct {
	name string // "hcl" or "cue"
	file string // the project's one file
}

var languages = []language{{"hcl", "main.hcl"}, {"cue", "main.cue"}}

// inLanguages runs f as a subtest in each language.
func inLanguages(t *testing.T, f func(t *testing.T, l language)) {
	for _, l := range languages {
		t.Run(l.name, func(t *testing.T) { f(t, l) })
	}
}

// compileIn writes src as the project's file of language l in dir and
// compiles it.
func compileIn(t *testing.T, l language, dir, src string) *schema.Desired {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, l.file), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{Path: filepath.Join(dir, l.file)})
	if err != nil {
		t.Fatal(err)
	}
	return res.Desired
}

// moved declares the moves from pairs[0] to pairs[1], pairs[2] to
// pairs[3] and so on.
func (l language) moved(pairs ...string) string {
	var b strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if l.name == "hcl" {
			b.WriteString("moved {\n  from = " + pairs[i] + "\n  to   = " + pairs[i+1] + "\n}\n")
			continue
		}
		if i == 0 {
			b.WriteString("moved: [\n")
		}
		b.WriteString("\t{from: \"" + pairs[i] + "\", to: \"" + pairs[i+1] + "\"},\n")
		if i+3 >= len(pairs) {
			b.WriteString("]\n")
		}
	}
	return b.String()
}

// removed declares that the project forgets addr.
func (l language) removed(addr string) string {
	if l.name == "hcl" {
		return "removed { from = " + addr + " }\n"
	}
	return "removed: [\"" + addr + "\"]\n"
}

// imported declares the import of the unowned resource id to addr.
func (l language) imported(addr, id string) string {
	if l.name == "hcl" {
		return "import {\n  to = " + addr + "\n  id = \"" + id + "\"\n}\n"
	}
	return "imports: [{to: \"" + addr + "\", id: \"" + id + "\"}]\n"
}

// project starts a project's file.
func (l language) project(name string) string {
	if l.name == "hcl" {
		return "project = \"" + name + "\"\n"
	}
	return "project: \"" + name + "\"\n"
}

// volume declares a volume of size 1Gi.
func (l language) volume(name string) string {
	if l.name == "hcl" {
		return "volume \"" + name + "\" { size = \"1Gi\" }\n"
	}
	return "volumes: " + name + ": size: \"1Gi\"\n"
}
