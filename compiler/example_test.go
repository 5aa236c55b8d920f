package compiler_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"cc.dev/cc/compiler"
)

// ExampleCompile compiles a project on disk, the quickstart, and prints
// each resource's address, content hash and dependencies: what cc compile
// prints (issue 12, cc as a Go library).
func ExampleCompile() {
	res, err := compiler.Compile(context.Background(), compiler.Input{Path: "../examples/quickstart/main.hcl"})
	if err != nil {
		log.Fatal(err) // a *compiler.Error holds positioned diagnostics
	}
	d := res.Desired
	fmt.Printf("project %s (%s)\n", d.Project, res.Lang)
	for _, r := range d.Resources {
		line := fmt.Sprintf("  %-27s %s", r.Address, strings.TrimPrefix(r.Hash, "sha256:")[:12])
		if len(r.DependsOn) > 0 {
			line += "  <- " + strings.Join(r.DependsOn, ", ")
		}
		fmt.Println(line)
	}
	fmt.Println("not pinned in cc.lock:", res.Unlocked)
	// Output:
	// project support-bot (hcl)
	//   dataset.goldens             815124fcb7c3
	//   evaluation.support-quality  b50149066358  <- dataset.goldens, function.support-answer
	//   function.support-answer     11eb434b3589  <- image.app, secret.openai
	//   image.app                   25379814bf85
	//   sandbox.dev                 0e4728b8499b  <- image.app, secret.openai
	//   secret.openai               38598ab6099e
	// not pinned in cc.lock: [python:3.12-slim]
}

// ExampleCompile_directory compiles a project the program writes itself,
// into a directory of its own; a mistake in it is a *compiler.Error whose
// diagnostics name the file, line and column.
func ExampleCompile_directory() {
	dir, err := os.MkdirTemp("", "cc-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	write := func(src string) {
		if err := os.WriteFile(filepath.Join(dir, "main.hcl"), []byte(src), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	write(`project = "scratch"

volume "cache" {
  size = "10Gi"
}
`)
	res, err := compiler.Compile(context.Background(), compiler.Input{Path: dir})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range res.Desired.Resources {
		fmt.Println(r.Address, string(r.Spec))
	}

	write(`project = "scratch"

volume "cache" {
  size = 10
}
`)
	_, err = compiler.Compile(context.Background(), compiler.Input{Path: dir})
	var cerr *compiler.Error
	if errors.As(err, &cerr) {
		for _, d := range cerr.Diagnostics {
			at := d.Subject
			fmt.Printf("%s:%d:%d: %s\n", filepath.Base(at.File), at.Start.Line, at.Start.Col, d.Summary)
		}
	}
	// Output:
	// volume.cache {"size":"10Gi"}
	// main.hcl:4:10: size: wrong type: got an integer, want a string
}
