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
			dir := t.TempDir()
			var want, symlinks []byte
			langs := map[string]bool{}
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
			if !bytes.Equal(got.Bytes(), want) || golden.Update() {
				// The archive is the golden file; only its "want" differs.
				ar.Files = setFile(ar.Files, "want", got.Bytes())
				golden.Check(t, file, txtar.Format(ar))
			}
		})
	}
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
