package applier_test

import (
	"bytes"
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

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

	// 3. Plan against the service's state, read in one call. Secret
	// values are read as cc reads them, from the environment and env files
	// (here the quickstart's OPENAI_API_KEY from a map instead).
	secrets := applier.LocalSecrets{Root: d.Root, LookupEnv: func(name string) (string, bool) {
		v, ok := map[string]string{"OPENAI_API_KEY": "sk-example-not-a-real-key"}[name]
		return v, ok
	}}
	a, err := applier.New(client, applier.WithSecrets(secrets))
	if err != nil {
		log.Fatal(err)
	}
	p, _, err := a.Plan(ctx, d, planner.Options{})
	if err != nil {
		log.Fatal(err)
	}

	// 4. Render it: WriteText for a terminal, WriteJSON for a program,
	// WriteMarkdown for a pull-request comment (here only its head: the
	// summary and the table of counts; a section per change follows).
	var md bytes.Buffer
	if err := planner.WriteMarkdown(&md, p, planner.MarkdownOptions{}); err != nil {
		log.Fatal(err)
	}
	head, _, _ := strings.Cut(md.String(), "<details>")
	fmt.Print(head)

	// 5. Apply it under the project's lock; plan again under the lock if
	// another apply came in between.
	lk, err := a.Lock(ctx, d.Project)
	if err != nil {
		log.Fatal(err) // a *applier.LockedError names who holds it
	}
	if lk.Serial() != p.Serial {
		if p, _, err = a.Plan(ctx, d, planner.Options{}); err != nil {
			log.Fatal(err)
		}
	}
	if err := applier.MissingSecretValues(p, d, secrets); err != nil {
		log.Fatal(err)
	}
	r := a.Apply(ctx, lk, p, d)
	if err := lk.Release(); err != nil {
		log.Fatal(err)
	}
	if err := r.Err(); err != nil {
		log.Fatal(err) // each *applier.Error names its resource
	}
	created, updated, replaced, deleted, newVersions, _ := r.Counts()
	fmt.Printf("Applied: %d created, %d updated, %d replaced, %d deleted; %d new versions.\n", created, updated, replaced, deleted, newVersions)

	// 6. Plan again: nothing left to do, for one read of the state.
	p, _, err = a.Plan(ctx, d, planner.Options{})
	if err != nil {
		log.Fatal(err)
	}
	if err := planner.WriteText(os.Stdout, p, planner.TextOptions{}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// ### cc plan: `support-bot`
	//
	// **Plan: 6 to create, 0 to update, 0 to replace, 0 to delete; 2 new versions.** Planned against state serial 0; 0 resources unchanged.
	//
	// | kind | delete | replace | update | create |
	// |---|---:|---:|---:|---:|
	// | image | 0 | 0 | 0 | 1 |
	// | secret | 0 | 0 | 0 | 1 |
	// | dataset | 0 | 0 | 0 | 1 |
	// | function | 0 | 0 | 0 | 1 |
	// | sandbox | 0 | 0 | 0 | 1 |
	// | evaluation | 0 | 0 | 0 | 1 |
	//
	// Applied: 6 created, 0 updated, 0 replaced, 0 deleted; 2 new versions.
	// No changes. Project support-bot at state serial 7 matches the configuration (6 resources).
}
