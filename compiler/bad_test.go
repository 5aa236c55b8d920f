package compiler

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	"cc.dev/cc/internal/golden"
)

// TestBadConfigs runs the corpus of bad configurations in testdata/bad.
// Each archive holds a project in CUE (cue/...) and in HCL (hcl/...) where
// the language allows, shared files, optional "symlinks" (one "link target"
// per line) and "want": per language, every diagnostic as
// file:line:col: message. Every diagnostic must carry a position.
func TestBadConfigs(t *testing.T) {
	files, err := filepath.Glob("../testdata/bad/*.txtar")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("corpus has %d configurations, want at least 20", len(files))
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			dir, want, langs := writeArchive(t, ar)
			got := badDiagnostics(t, dir, langs)
			if !bytes.Equal(got, want) || golden.Update() {
				// The archive is the golden file; only its "want" differs.
				ar.Files = setFile(ar.Files, "want", got)
				golden.Check(t, file, txtar.Format(ar))
			}
		})
	}
}

// TestIssue16CUEProbes: the two CUE probes of issue 16 (item 3,
// acceptance 2), a default of the user's and a closed definition of the
// user's, give CUE's verdict through the shipped path, without the
// cross-check: before, they compiled.
func TestIssue16CUEProbes(t *testing.T) {
	defer func(c bool) { crossCheck = c }(crossCheck)
	crossCheck = false
	for _, name := range []string{"user-default", "closed-user-definition"} {
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile("../testdata/bad/" + name + ".txtar")
			if err != nil {
				t.Fatal(err)
			}
			dir, want, langs := writeArchive(t, ar)
			if !langs["cue"] || len(want) == 0 {
				t.Fatalf("%s: want a CUE project and its diagnostics", name)
			}
			if got := badDiagnostics(t, dir, langs); !bytes.Equal(got, want) {
				t.Errorf("diagnostics:\n%s\nwant (CUE's):\n%s", got, want)
			}
		})
	}
}

// writeArchive writes a corpus archive's files into a temporary directory
// and returns it, the archive's "want" and the languages it has.
func writeArchive(t *testing.T, ar *txtar.Archive) (dir string, want []byte, langs map[string]bool) {
	t.Helper()
	dir = t.TempDir()
	var symlinks []byte
	langs = map[string]bool{}
	for _, f := range ar.Files {
		switch f.Name {
		case "want":
			want = f.Data
			continue
		case "symlinks":
			symlinks = f.Data
			continue
		}
		if lang, _, ok := strings.Cut(f.Name, "/"); ok && (lang == "cue" || lang == "hcl") {
			langs[lang] = true
		}
		p := filepath.Join(dir, f.Name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, line := range strings.Split(strings.TrimSpace(string(symlinks)), "\n") {
		if link, target, ok := strings.Cut(line, " "); ok {
			p := filepath.Join(dir, link)
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(target, p); err != nil {
				t.Fatal(err)
			}
		}
	}
	return dir, want, langs
}

// badDiagnostics compiles the project of each language in dir, which
// must fail, and returns the diagnostics as "lang: file:line:col: ...".
func badDiagnostics(t *testing.T, dir string, langs map[string]bool) []byte {
	t.Helper()
	var got bytes.Buffer
	for _, lang := range []string{"cue", "hcl"} {
		if !langs[lang] {
			continue
		}
		_, err := Compile(context.Background(), Input{Path: filepath.Join(dir, lang)})
		var cerr *Error
		if !errors.As(err, &cerr) {
			t.Fatalf("%s: Compile() error = %v, want configuration diagnostics", lang, err)
		}
		for _, d := range cerr.Diagnostics {
			if d.Subject == nil || d.Subject.Start.Line == 0 {
				t.Errorf("%s: diagnostic without a position: %s", lang, d.Error())
			}
			got.WriteString(lang + ": " + strings.ReplaceAll(d.Error(), dir+"/", "") + "\n")
		}
	}
	return got.Bytes()
}

func setFile(files []txtar.File, name string, data []byte) []txtar.File {
	for i := range files {
		if files[i].Name == name {
			files[i].Data = data
			return files
		}
	}
	return append([]txtar.File{{Name: name, Data: data}}, files...)
}
