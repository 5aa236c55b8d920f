package main

import (
	"context"

	"github.com/rogpeppe/go-internal/testscript"

	"cc.dev/cc/service"
)

// ccsdk is the testscript command that changes a project's embedded state
// outside cc (issue 10, drift): "ccsdk PROJECT patch ADDR POINTER JSON" sets
// a field, "ccsdk PROJECT terminate ADDR" stops a sandbox, as a platform
// SDK would, through the real service over its API.
func ccsdk(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 3 {
		ts.Fatalf("usage: ccsdk PROJECT patch ADDR POINTER JSON | ccsdk PROJECT terminate ADDR")
	}
	ctx := context.Background()
	c, closeFn, err := service.OpenEmbedded(ctx, ts.MkAbs(".cc/state.db"))
	ts.Check(err)
	defer closeFn()
	project := args[0]
	switch {
	case args[1] == "patch" && len(args) == 5:
		_, err = c.PatchResource(ctx, service.PatchRequest{Project: project, Address: args[2],
			Set: []service.FieldPatch{{Pointer: args[3], Value: []byte(args[4])}}})
	case args[1] == "terminate" && len(args) == 3:
		_, err = c.TerminateSandbox(ctx, project, args[2])
	default:
		ts.Fatalf("usage: ccsdk PROJECT patch ADDR POINTER JSON | ccsdk PROJECT terminate ADDR")
	}
	ts.Check(err)
}
