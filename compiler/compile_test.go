package compiler

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/internal/golden"
	"cc.dev/cc/schema"
)

// compileJSON compiles path and returns its canonical JSON.
func compileJSON(t *testing.T, path string, in Input) []byte {
	t.Helper()
	in.Path = path
	res, err := Compile(context.Background(), in)
	if err != nil {
		t.Fatalf("Compile(%s) error = %v", path, err)
	}
	b, err := res.Desired.MarshalCanonical()
	if err != nil {
		t.Fatal(err)
	}
	if c, err := schema.Canonical(res.Desired); err != nil || !bytes.Equal(b, c) {
		t.Fatalf("MarshalCanonical differs from Canonical (%v)", err)
	}
	return b
}

// TestExamples compiles every example in both languages: the two must give
// byte-identical desired states, equal to the golden file.
func TestExamples(t *testing.T) {
	dirs, err := filepath.Glob("../examples/*")
	if err != nil || len(dirs) < 2 {
		t.Fatalf("examples: %v %v", dirs, err)
	}
	for _, dir := range dirs {
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			c := compileJSON(t, filepath.Join(dir, "main.cue"), Input{})
			h := compileJSON(t, filepath.Join(dir, "main.hcl"), Input{})
			if !bytes.Equal(c, h) {
				t.Fatalf("CUE and HCL compile differently:\n%s", cmp.Diff(string(c), string(h)))
			}
			golden.Check(t, filepath.Join("../testdata/compile", name+".json"), append(c, '\n'))
		})
	}
}

// copyTree copies a directory, keeping the executable bit.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, _ := d.Info()
		return os.WriteFile(target, b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSameBytesEverywhere compiles one example from its place, from copies
// at other paths (one reached through a symbolic link), by directory and by
// file, and with a different umask on the copies' files: every run prints
// the same bytes.
func TestSameBytesEverywhere(t *testing.T) {
	want := compileJSON(t, "../examples/multi-service/main.hcl", Input{})
	for i, lang := range []string{"main.hcl", "main.cue"} {
		base := t.TempDir()
		dst := filepath.Join(base, "elsewhere", "deeper")
		copyTree(t, "../examples/multi-service", dst)
		if i == 1 {
			// Group-writable files, as another umask would make them.
			filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() {
					os.Chmod(p, 0o664)
				}
				return nil
			})
		}
		link := filepath.Join(base, "link")
		if err := os.Symlink(dst, link); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{filepath.Join(dst, lang), filepath.Join(link, lang)} {
			if got := compileJSON(t, p, Input{}); !bytes.Equal(got, want) {
				t.Errorf("compile %s differs from the original:\n%s", p, cmp.Diff(string(want), string(got)))
			}
		}
		if err := os.Remove(filepath.Join(dst, map[string]string{"main.hcl": "main.cue", "main.cue": "main.hcl"}[lang])); err != nil {
			t.Fatal(err)
		}
		if got := compileJSON(t, dst, Input{}); !bytes.Equal(got, want) {
			t.Errorf("compile of directory %s differs", dst)
		}
	}
}

func hashes(t *testing.T, path string) map[string]string {
	t.Helper()
	res, err := Compile(context.Background(), Input{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, r := range res.Desired.Resources {
		out[r.Address] = r.Hash
	}
	return out
}

func changed(a, b map[string]string) []string {
	var out []string
	for k, v := range a {
		if b[k] != v {
			out = append(out, k)
		}
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// TestOneByteChange changes one byte of one file and checks exactly which
// hashes change: the images that copy it, what is built on or uses them,
// and functions whose source holds it; nothing else.
func TestOneByteChange(t *testing.T) {
	for _, tc := range []struct {
		example, file string
		want          []string
	}{
		// worker/ is copied into image.worker and is function ingest's source.
		{"multi-service", "worker/jobs.py", []string{"function.ingest", "image.worker", "sandbox.dev"}},
		// shared/ is copied into the base image, which api and worker are built on.
		{"multi-service", "shared/util.py", []string{
			"function.ingest", "function.rank", "function.summarize",
			"image.api", "image.base", "image.worker", "sandbox.dev"}},
		// A file excluded by .ccignore changes nothing.
		{"multi-service", "api/__pycache__/server.cpython-312.pyc", nil},
		// A test file excluded from function sources still changes the image that copies it.
		{"multi-service", "worker/jobs_test.py", []string{"image.worker", "sandbox.dev", "function.ingest"}},
		// The evaluation pins the function's version, so it changes too.
		{"quickstart", "src/support.py", []string{
			"evaluation.support-quality", "function.support-answer", "image.app", "sandbox.dev"}},
		{"quickstart", "data/goldens.csv", []string{"dataset.goldens", "evaluation.support-quality"}},
	} {
		for _, lang := range []string{"main.cue", "main.hcl"} {
			t.Run(tc.example+"/"+tc.file+"/"+lang, func(t *testing.T) {
				dir := t.TempDir()
				copyTree(t, filepath.Join("../examples", tc.example), dir)
				file := filepath.Join(dir, tc.file)
				os.MkdirAll(filepath.Dir(file), 0o755)
				if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
					os.WriteFile(file, []byte("x"), 0o644)
				}
				before := hashes(t, filepath.Join(dir, lang))
				b, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				// The last byte: in a dataset, a row's, not the header's,
				// which names the columns the scorers read.
				b[len(b)-1] ^= 1
				if err := os.WriteFile(file, b, 0o644); err != nil {
					t.Fatal(err)
				}
				after := hashes(t, filepath.Join(dir, lang))
				want := append([]string(nil), tc.want...)
				sort.Strings(want)
				if got := changed(before, after); !cmp.Equal(got, want) {
					t.Errorf("changed hashes = %v, want %v", got, want)
				}
			})
		}
	}
}

// writeProject writes files (name → content) into a new directory.
func writeProject(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func compileOK(t *testing.T, path string, in Input) *schema.Desired {
	t.Helper()
	in.Path = path
	res, err := Compile(context.Background(), in)
	if err != nil {
		t.Fatalf("Compile(%s) error = %v", path, err)
	}
	return res.Desired
}

// TestIdenticalImagesCollapse checks that an inline image equal to a named
// one, and two named images with the same content, are one image.
func TestIdenticalImagesCollapse(t *testing.T) {
	for name, src := range map[string]string{
		"main.cue": `
project: "demo"
images: a: {from: "python:3.12-slim", steps: [{pip: packages: ["x"]}]}
images: b: {from: "python:3.12-slim", steps: [{pip: packages: ["x"]}]}
sandboxes: s: image: {from: "python:3.12-slim", steps: [{pip: packages: ["x"]}]}
sandboxes: t: image: {from: "python:3.12-slim"}
`,
		"main.hcl": `
project = "demo"
image "a" {
  from = "python:3.12-slim"
  pip { packages = ["x"] }
}
image "b" {
  from = "python:3.12-slim"
  pip { packages = ["x"] }
}
sandbox "s" {
  image {
    from = "python:3.12-slim"
    pip { packages = ["x"] }
  }
}
sandbox "t" {
  image { from = "python:3.12-slim" }
}
`} {
		t.Run(name, func(t *testing.T) {
			d := compileOK(t, filepath.Join(writeProject(t, map[string]string{name: src}), name), Input{})
			var images []string
			for _, r := range d.Resources {
				if r.Kind == schema.KindImage {
					images = append(images, r.Address+" "+strings.Join(r.Aliases, ","))
				}
			}
			sort.Slice(images, func(i, j int) bool { return strings.HasPrefix(images[i], "image.a ") })
			if len(images) != 2 || images[0] != "image.a b" {
				t.Fatalf("images = %q, want image.a (alias b) and one anonymous image", images)
			}
			s := d.Lookup("sandbox.s")
			if s == nil || len(s.DependsOn) != 1 || s.DependsOn[0] != "image.a" {
				t.Errorf("sandbox.s depends on %v, want [image.a]", s.DependsOn)
			}
		})
	}
}
