package planner_test

import (
	"context"
	"log"
	"os"

	"cc.dev/cc/compiler"
	"cc.dev/cc/planner"
)

// ExampleDiff plans a compiled project, the quickstart, against a state,
// here the empty state of a project never applied, and renders the plan as
// cc plan does (issue 12, cc as a Go library); Options.Targets plans only
// what cc plan --target would. Diff does no I/O: applier's Plan reads the
// state from a service, compares the local secret values with the
// service's in the same call, and calls Diff.
func ExampleDiff() {
	res, err := compiler.Compile(context.Background(), compiler.Input{Path: "../examples/quickstart/main.hcl"})
	if err != nil {
		log.Fatal(err)
	}
	st := &planner.State{Project: res.Desired.Project}
	p, err := planner.Diff(res.Desired, st, planner.Options{Targets: []string{"sandbox.dev"}})
	if err != nil {
		log.Fatal(err)
	}
	if err := planner.WriteText(os.Stdout, p, planner.TextOptions{}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// Plan for project support-bot at state serial 0. Actions: + create, ~ update in place, -/+ replace, - delete.
	//
	//   + image.app  create  ../examples/quickstart/main.hcl:6:7
	//       # new in the configuration
	//       + cmd = ["src.support"]
	//       + entrypoint = ["python", "-m"]
	//       + from = "python:3.12-slim"
	//       + steps[0].apt.packages = ["git", "curl"]
	//       + steps[1].pip.packages = ["requests==2.32.3", "openai==1.51.0"]
	//       + steps[2].copy.digest = "sha256:eaff29b0b4cd…"
	//       + steps[2].copy.dst = "/app/src"
	//       + steps[2].copy.src = "src"
	//       + steps[3].env.vars.APP_HOME = "/app"
	//       + steps[3].env.vars.PYTHONUNBUFFERED = "1"
	//       + steps[4].workdir.path = "/app"
	//
	//   + sandbox.dev  create  ../examples/quickstart/main.hcl:31:9
	//       # new in the configuration
	//       + command = ["sleep", "infinity"]
	//       + env.LOG_LEVEL = "debug"
	//       + env.OPENAI_API_KEY.hash = "sha256:38598ab6099e…"
	//       + env.OPENAI_API_KEY.ref = "secret.openai"
	//       + image = "sha256:25379814bf85…"
	//       + lifetime = "2h"
	//       + resources.requests.cpu = "1"
	//       + resources.requests.memory = "2Gi"
	//
	//   + secret.openai  create  ../examples/quickstart/main.hcl:27:8
	//       # new in the configuration
	//       + from_env = "OPENAI_API_KEY"
	//
	// Left out by --target/--exclude (3): dataset.goldens, evaluation.support-quality, function.support-answer
	// Plan: 3 to create, 0 to update, 0 to replace, 0 to delete.
}
