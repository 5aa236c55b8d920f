package applier_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"strings"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/service"
)

// planAndApply is the README's "Embedding cc" sample, word for word
// (TestREADMEEmbeddingSample checks it).
//
// planAndApply compiles the project at path, plans it against the embedded
// state cc keeps in the project's .cc directory, writes the plan to w as
// Markdown and applies it.
func planAndApply(ctx context.Context, path string, w io.Writer) error {
	res, err := compiler.Compile(ctx, compiler.Input{Path: path})
	if err != nil {
		return err // a *compiler.Error holds positioned diagnostics
	}
	d := res.Desired
	client, closeService, err := service.OpenProject(ctx, d.Root) // or service.Dial
	if err != nil {
		return err
	}
	defer closeService()
	a, err := applier.New(client, applier.WithSecrets(applier.LocalSecrets{Root: d.Root}))
	if err != nil {
		return err
	}
	p, _, err := a.Plan(ctx, d, planner.Options{})
	if err != nil || !p.Changed() {
		return err
	}
	if err := planner.WriteMarkdown(w, p, planner.MarkdownOptions{}); err != nil {
		return err
	}
	lk, err := a.Lock(ctx, d.Project)
	if err != nil {
		return err
	}
	defer lk.Release()
	if lk.Serial() != p.Serial { // another apply came in between: plan again
		if p, _, err = a.Plan(ctx, d, planner.Options{}); err != nil {
			return err
		}
	}
	return a.Apply(ctx, lk, p, d).Err()
}

// Example_readme runs the README's sample twice on a project it writes:
// the first run plans and applies, the second finds nothing to do.
func Example_readme() {
	dir, err := os.MkdirTemp("", "cc-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	src := "project = \"scratch\"\n\nvolume \"cache\" {\n  size = \"10Gi\"\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
		log.Fatal(err)
	}
	for range 2 {
		var md bytes.Buffer
		if err := planAndApply(context.Background(), dir, &md); err != nil {
			log.Fatal(err)
		}
		title, _, _ := strings.Cut(md.String(), "\n")
		fmt.Printf("%q\n", title)
	}
	// Output:
	// "### cc plan: `scratch`"
	// ""
}
