package compiler

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestIssue9ProjectOneLanguage: issue 9 item 15. A project is a directory
// in one language. A stray file of the other language is an error naming
// the files of both (before, "name the one to use"); naming one file of a
// multi-file project is refused, naming its siblings (before, it compiled
// alone, and a plan of it deleted the siblings' resources). One file per
// language (as in examples/) and a -var-file beside the file still work.
func TestIssue9ProjectOneLanguage(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"a.hcl":     "project = \"demo\"\nvolume \"cache\" {\n  size = \"10Gi\"\n}\n",
		"b.hcl":     "volume \"data\" {\n  size = \"20Gi\"\n}\n",
		"stray.cue": "package demo\n",
	})
	for _, tc := range []struct {
		name string
		in   Input
		want []string // the diagnostic, and the related files
	}{
		{"mixed directory", Input{Path: dir}, []string{
			"stray.cue:1:1: " + dir + " holds both CUE files (stray.cue) and HCL files (a.hcl, b.hcl): a project is a directory in one language",
			"a.hcl:1:1", "b.hcl:1:1"}},
		{"one file of two", Input{Path: filepath.Join(dir, "a.hcl")}, []string{
			"a.hcl:1:1: " + dir + "/a.hcl is one of the 2 HCL files of the project in " + dir + ", with b.hcl: compiled alone, it leaves out their resources, and a plan of it would delete them",
			"b.hcl:1:1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Compile(context.Background(), tc.in)
			var cerr *Error
			if !errors.As(err, &cerr) || len(cerr.Diagnostics) != 1 {
				t.Fatalf("Compile() error = %v, want one diagnostic", err)
			}
			d := cerr.Diagnostics[0]
			if got := d.Error(); !strings.HasPrefix(got, dir+"/"+tc.want[0]) {
				t.Errorf("diagnostic = %q, want %q", got, tc.want[0])
			}
			var related []string
			for _, r := range d.Related {
				related = append(related, strings.TrimPrefix(r.String(), dir+"/"))
			}
			if got, want := strings.Join(related, " "), strings.Join(tc.want[1:], " "); got != want {
				t.Errorf("related = %q, want %q", got, want)
			}
		})
	}

	// The named file is the whole project in its language: the other
	// language's file is not part of it, nor is a -var-file beside it.
	one := writeProject(t, map[string]string{
		"main.hcl": "project = \"demo\"\nvariable \"size\" {\n  type = string\n}\nvolume \"cache\" {\n  size = var.size\n}\n",
		"main.cue": "package demo\n\nproject: \"demo\"\n",
		"dev.hcl":  "size = \"10Gi\"\n",
	})
	if _, err := Compile(context.Background(), Input{Path: filepath.Join(one, "main.hcl"), VarFiles: []string{filepath.Join(one, "dev.hcl")}}); err != nil {
		t.Errorf("Compile(main.hcl, -var-file dev.hcl beside it) error = %v", err)
	}
	if _, err := Compile(context.Background(), Input{Path: filepath.Join(one, "main.cue")}); err != nil {
		t.Errorf("Compile(main.cue beside .hcl files) error = %v", err)
	}
	if _, err := Compile(context.Background(), Input{Path: filepath.Join(one, "main.hcl")}); err == nil || !strings.Contains(err.Error(), "with dev.hcl") {
		t.Errorf("Compile(main.hcl, dev.hcl not given as -var-file) error = %v, want one naming dev.hcl", err)
	}
}
