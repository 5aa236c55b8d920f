package applier_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/service"
)

// Example is the flow of a program that embeds cc (issue 12, cc as a Go
// library): compile a project, plan it against the state an embedded
// service keeps, render the plan as Markdown, apply it under the project's
// lock, and plan again to find nothing left to do.
func Example() {
	ctx := context.Background()
	// The quickstart's secret takes its value from the environment.
	os.Setenv("OPENAI_API_KEY", "sk-example-not-a-real-key")

	// 1. Compile: configuration to the desired state.
	res, err := compiler.Compile(ctx, compiler.Input{Path: "../examples/quickstart/main.hcl"})
	if err != nil {
		log.Fatal(err) // a *compiler.Error holds positioned diagnostics
	}
	d := res.Desired

	// 2. Open a service: here the embedded one, on a database of its own
	// (service.OpenProject opens the one cc itself uses, in the project's
	// .cc directory; service.Dial a remote one).
	dir, err := os.MkdirTemp("", "cc-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	client, closeService, err := service.OpenEmbedded(ctx, filepath.Join(dir, "state.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer closeService()

	// 3. Plan against the service's state, read in one call.
	a, err := applier.New(client, applier.WithSecrets(applier.LocalSecrets{Root: d.Root}))
	if err != nil {
		log.Fatal(err)
	}
	p, _, err := a.Plan(ctx, d, planner.Options{})
	if err != nil {
		log.Fatal(err)
	}

	// 4. Render it: WriteText for a terminal, WriteJSON for a program,
	// WriteMarkdown for a pull-request comment.
	if err := planner.WriteMarkdown(os.Stdout, p, planner.MarkdownOptions{}); err != nil {
		log.Fatal(err)
	}

	// 5. Apply it under the project's lock.
	lk, err := a.Lock(ctx, d.Project)
	if err != nil {
		log.Fatal(err)
	}
	r := a.Apply(ctx, lk, p, d)
	if err := lk.Release(); err != nil {
		log.Fatal(err)
	}
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	created, updated, replaced, deleted, _, _ := r.Counts()
	fmt.Printf("applied: %d created, %d updated, %d replaced, %d deleted\n", created, updated, replaced, deleted)

	// 6. Plan again: nothing left to do.
	p, _, err = a.Plan(ctx, d, planner.Options{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("changed:", p.Changed())
	// Output:
}
