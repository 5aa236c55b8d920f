package compiler

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBuiltinImageHashesMatchCompile: issue 11, built-in images meet
// import. The hashes BuiltinImageHashes gives are those a project that
// uses the built-ins compiles to, with and without a cc.lock pinning
// their base, so generated configuration names an imported sandbox's
// built-in image by reference.
func TestBuiltinImageHashesMatchCompile(t *testing.T) {
	for _, lock := range []string{"", `{"version": 1, "bases": {"python:3.14-slim-trixie": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"}}`} {
		dir := t.TempDir()
		src := "project = \"p\"\nimage \"app\" { from = image.debian_slim }\nsandbox \"s\" {}\nsandbox \"a\" { image = image.app }\n"
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		if lock != "" {
			if err := os.WriteFile(filepath.Join(dir, "cc.lock"), []byte(lock), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, err := Compile(context.Background(), Input{Path: dir})
		if err != nil {
			t.Fatal(err)
		}
		got, err := BuiltinImageHashes(dir)
		if err != nil {
			t.Fatal(err)
		}
		for addr, want := range map[string]string{"image.sandbox": "image.sandbox", "image.debian-slim": "image.debian_slim"} {
			r := res.Desired.Lookup(addr)
			if r == nil {
				t.Fatalf("lock %q: no %s in the desired state", lock, addr)
			}
			if got[r.Hash] != want {
				t.Errorf("lock %q: BuiltinImageHashes[%s] = %q, want %q (all: %v)", lock, r.Hash, got[r.Hash], want, got)
			}
		}
	}
}

// TestGenerateBuiltinByItsName: issue 11. Generated configuration refers
// to the built-in debian_slim by its name (image.debian_slim, images.
// debian_slim), not its resource name image.debian-slim, which HCL reads
// as a subtraction and CUE does not know.
func TestGenerateBuiltinByItsName(t *testing.T) {
	h := "sha256:" + "ab" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"
	for lang, want := range map[string]string{"hcl": "image = image.debian_slim", "cue": "image: images.debian_slim"} {
		out, err := Generate(GenerateInput{Lang: lang, Images: map[string]string{h: "image.debian-slim"},
			Resources: []GenerateResource{{Address: "sandbox.s", Spec: []byte(`{"image":"` + h + `"}`)}}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), want) {
			t.Errorf("%s: generated\n%s\nwant %q", lang, out, want)
		}
	}
}
