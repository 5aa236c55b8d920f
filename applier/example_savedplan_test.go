package applier_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
	"cc.dev/cc/service"
)

// Example_savedPlan is a CI bot's flow (issue 12, cc as a Go library):
// plan on a pull request and save the plan, then on merge apply exactly
// that plan, after checking it against the state it is applied to, as cc
// apply PLANFILE does.
func Example_savedPlan() {
	ctx := context.Background()
	res, err := compiler.Compile(ctx, compiler.Input{Path: "../examples/quickstart/main.hcl"})
	if err != nil {
		log.Fatal(err)
	}
	d := res.Desired
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
	secrets := applier.LocalSecrets{Root: d.Root, LookupEnv: func(name string) (string, bool) {
		return "sk-example-not-a-real-key", name == "OPENAI_API_KEY"
	}}
	a, err := applier.New(client, applier.WithSecrets(secrets))
	if err != nil {
		log.Fatal(err)
	}

	// On the pull request: plan and save (a configuration with sensitive
	// variables also records their MAC, keyed with applier.PlanKey).
	p, st, err := a.Plan(ctx, d, planner.Options{})
	if err != nil {
		log.Fatal(err)
	}
	name := filepath.Join(dir, "plan.json")
	file := planner.NewFile(p, d, st, planner.Config{File: "main.hcl", Lang: res.Lang})
	if err := file.Save(name); err != nil {
		log.Fatal(err)
	}

	// On merge: read it back (untrusted input, validated) and apply it
	// only to the state it was planned against, checked again under the
	// lock.
	f, err := planner.LoadFile(name)
	if err != nil {
		log.Fatal(err)
	}
	fd := f.Desired
	fd.Root = d.Root // a plan file names no directory: its reader gives it
	lk, err := a.Lock(ctx, f.Plan.Project)
	if err != nil {
		log.Fatal(err)
	}
	defer lk.Release()
	now, err := a.StateResolving(ctx, f.Plan.Project, planner.DataLookups(fd))
	if err != nil {
		log.Fatal(err)
	}
	if err := f.Check(now); err != nil {
		log.Fatal(err) // a *planner.MismatchError says what differs
	}
	r := a.Apply(ctx, lk, f.Plan, fd)
	if err := r.Err(); err != nil {
		log.Fatal(err)
	}
	fmt.Println("applied", len(r.Done), "changes")

	// The same file again: the state moved on, and the plan is refused.
	now, err = a.StateResolving(ctx, f.Plan.Project, planner.DataLookups(fd))
	if err != nil {
		log.Fatal(err)
	}
	var mismatch *planner.MismatchError
	fmt.Println("refused the second time:", errors.As(f.Check(now), &mismatch))
	// Output:
	// applied 6 changes
	// refused the second time: true
}
