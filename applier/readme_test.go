package applier_test

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEEmbeddingSample is issue 12 (cc as a Go library): the code of
// the README's "Embedding cc" section is planAndApply of
// example_readme_test.go, word for word, so that it compiles and runs
// (Example_readme).
func TestREADMEEmbeddingSample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(readme), "\n## Embedding cc\n")
	if !ok {
		t.Fatal(`README.md has no "## Embedding cc" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	_, sample, ok := strings.Cut(sec, "\n```go\n")
	if !ok {
		t.Fatal(`README.md's "Embedding cc" section has no Go sample`)
	}
	sample, _, _ = strings.Cut(sample, "```\n")
	src, err := os.ReadFile("example_readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, fn, ok := strings.Cut(string(src), "\nfunc planAndApply(")
	if !ok {
		t.Fatal("example_readme_test.go has no planAndApply")
	}
	fn, _, _ = strings.Cut(fn, "\n}\n")
	if want := "func planAndApply(" + fn + "\n}\n"; sample != want {
		t.Errorf("README.md's Embedding cc sample is not example_readme_test.go's planAndApply:\n--- README\n%s--- example_readme_test.go\n%s", sample, want)
	}
}
