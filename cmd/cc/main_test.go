package main

import (
	"path/filepath"
	"testing"

	"cc.dev/cc/internal/golden"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"cc": main,
	})
}

// TestScripts runs the CLI behaviour scripts in testdata/script, one
// behaviour each. $EXAMPLES is the repository's examples directory.
func TestScripts(t *testing.T) {
	examples, err := filepath.Abs("../../examples")
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       golden.Update(),
		Cmds:                scriptCmds,
		Setup: func(env *testscript.Env) error {
			env.Setenv("EXAMPLES", examples)
			env.Setenv("NO_COLOR", "1")
			return nil
		},
	})
}
