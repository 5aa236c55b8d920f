package compiler

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestIssue16ContextIgnoreFile: a from_dockerfile context's own
// .dockerignore and the root's .ccignore both leave files out of the
// context's hash; a copied directory's own .ccignore leaves files out of
// the copy's. Editing a file one of them leaves out changes no hash;
// editing one they keep changes the image's. Issue 16 item 4 (before, the
// context's own ignore file was not read, so the hash covered files the
// build never sent).
func TestIssue16ContextIgnoreFile(t *testing.T) {
	pin := "@sha256:" + strings.Repeat("a", 64)
	files := map[string]string{
		"main.cue": "package p\nproject: \"p\"\nimages: tool: from_dockerfile: \"tool/Dockerfile\"\n" +
			"images: app: {from: \"busybox:1.36" + pin + "\", steps: [{copy: {src: \"src\", dst: \"/app\"}}]}\n",
		".ccignore":          "**/*.env\n",
		"tool/.dockerignore": "ignored.txt\nbuild\n",
		"tool/Dockerfile":    "FROM busybox:1.36" + pin + "\nCOPY . /ctx\n",
		"tool/kept.txt":      "kept\n",
		"tool/ignored.txt":   "ignored\n",
		"tool/build/out.o":   "o\n",
		"tool/secret.env":    "TOKEN=1\n",
		"src/.ccignore":      "*.log\n",
		"src/app.py":         "print(1)\n",
		"src/debug.log":      "log\n",
	}
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"tool/ignored.txt", nil},
		{"tool/build/out.o", nil},
		{"tool/secret.env", nil},
		{"src/debug.log", nil},
		{"tool/kept.txt", []string{"image.tool"}},
		{"src/app.py", []string{"image.app"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			dir := writeProject(t, files)
			before := hashes(t, filepath.Join(dir, "main.cue"))
			if err := os.WriteFile(filepath.Join(dir, tc.file), []byte("edited\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			after := hashes(t, filepath.Join(dir, "main.cue"))
			if got := changed(before, after); !cmp.Equal(got, tc.want) {
				t.Errorf("editing %s changed %v, want %v", tc.file, got, tc.want)
			}
		})
	}
}
