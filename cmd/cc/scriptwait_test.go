package main

import (
	"os"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// issue 12: environments. waitfile PATH waits (up to 20s) until PATH
// exists: a cc server started in the background (exec cc server ... &)
// listens once its unix socket is there.
func init() {
	scriptCmds["waitfile"] = func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: waitfile PATH")
		}
		path := ts.MkAbs(args[0])
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(path); err == nil {
				return
			}
		}
		ts.Fatalf("waitfile %s: not there after 20s", args[0])
	}
}
