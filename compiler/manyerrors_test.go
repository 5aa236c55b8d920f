package compiler

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestIssue9EveryErrorItsOwnName: issue 9 item 13. A file holding 2, 5
// or 20 errors (misspelt fields holding lists, after a misspelt block)
// reports each one at its own line with its own name: before, CUE said
// unknown field "0" and "1", and HCL stopped at the misspelt block.
func TestIssue9EveryErrorItsOwnName(t *testing.T) {
	for _, n := range []int{2, 5, 20} {
		for _, lang := range []string{"cue", "hcl"} {
			t.Run(fmt.Sprintf("%s-%d", lang, n), func(t *testing.T) {
				dir := t.TempDir()
				src, want := manyErrors(lang, n)
				if err := os.WriteFile(filepath.Join(dir, "main."+lang), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
				_, err := Compile(context.Background(), Input{Path: dir})
				var cerr *Error
				if !errors.As(err, &cerr) {
					t.Fatalf("Compile() error = %v, want diagnostics", err)
				}
				var got []string
				for _, d := range cerr.Diagnostics {
					got = append(got, strings.ReplaceAll(d.Error(), dir+"/", ""))
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			})
		}
	}
}

// manyErrors writes a project in lang with n errors: a misspelt image
// step block, then misspelt fields holding lists, one sandbox each; and
// the diagnostics it must give (the step's first).
func manyErrors(lang string, n int) (string, []string) {
	file := "main." + lang
	var b strings.Builder
	var want []string
	line := func(s string) { b.WriteString(s + "\n") }
	at := func() int { return strings.Count(b.String(), "\n") + 1 }
	if lang == "cue" {
		line(`project: "demo"`)
		line(`images: app: {`)
		line(`	from: "python:3.12-slim"`)
		want = append(want, fmt.Sprintf(`%s:%d:11: unknown field "atp"; did you mean "apt"?`, file, at()))
		line(`	steps: [{atp: packages: ["git"]}]`)
		line(`}`)
		for i := 1; i < n; i++ {
			line(fmt.Sprintf(`sandboxes: s%d: {`, i))
			line(`	image: {from: "python:3.12-slim"}`)
			want = append(want, fmt.Sprintf(`%s:%d:2: unknown field "comand%c"; did you mean "command"?`, file, at(), 'a'+i))
			line(fmt.Sprintf(`	comand%c: ["sleep", "infinity"]`, 'a'+i))
			line(`}`)
		}
		return b.String(), want
	}
	line(`project = "demo"`)
	line(`image "app" {`)
	line(`  from = "python:3.12-slim"`)
	want = append(want, fmt.Sprintf(`%s:%d:3: unknown block type "atp"; did you mean "apt"?`, file, at()))
	line(`  atp { packages = ["git"] }`)
	line(`}`)
	for i := 1; i < n; i++ {
		line(fmt.Sprintf(`sandbox "s%d" {`, i))
		line(`  image { from = "python:3.12-slim" }`)
		want = append(want, fmt.Sprintf(`%s:%d:3: unknown attribute "comand%c"; did you mean "command"?`, file, at(), 'a'+i))
		line(fmt.Sprintf(`  comand%c = ["sleep", "infinity"]`, 'a'+i))
		line(`}`)
	}
	return b.String(), want
}
