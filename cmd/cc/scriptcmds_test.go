package main

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds are the commands testscript scripts have besides the
// built-in ones.
var scriptCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// exitcode N PROG ARGS... runs PROG as exec does and checks that it
	// exits with status N (cc plan --detailed-exitcode exits 2).
	"exitcode": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) < 2 {
			ts.Fatalf("usage: exitcode N PROG [ARGS...]")
		}
		want, err := strconv.Atoi(args[0])
		ts.Check(err)
		err = ts.Exec(args[1], args[2:]...)
		got := 0
		var ee *exec.ExitError
		switch {
		case errors.As(err, &ee):
			got = ee.ExitCode()
		case err != nil:
			ts.Fatalf("%s: %v", args[1], err)
		}
		if got != want {
			ts.Fatalf("%s exited with %d, want %d", args[1], got, want)
		}
	},
	// replace OLD NEW FILE replaces every OLD in FILE with NEW, and fails
	// when there is none.
	"replace": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 3 {
			ts.Fatalf("usage: replace OLD NEW FILE")
		}
		p := ts.MkAbs(args[2])
		b, err := os.ReadFile(p)
		ts.Check(err)
		if !strings.Contains(string(b), args[0]) {
			ts.Fatalf("%s has no %q", args[2], args[0])
		}
		ts.Check(os.WriteFile(p, []byte(strings.ReplaceAll(string(b), args[0], args[1])), 0o644))
	},
	// mkfifo PATH makes a named pipe, which nothing ever writes to.
	"mkfifo": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: mkfifo PATH")
		}
		ts.Check(syscall.Mkfifo(ts.MkAbs(args[0]), 0o644))
	},
	// ccsdk PROJECT patch ADDR POINTER JSON and ccsdk PROJECT terminate
	// ADDR change the embedded state of the project in the working
	// directory outside cc, as a platform SDK would (issue 10, drift).
	"ccsdk": ccsdk,
	// cpdir SRC DST copies a directory tree, leaving out any .cc state, so
	// a script can apply an example without touching the repository.
	"cpdir": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: cpdir SRC DST")
		}
		src, dst := ts.MkAbs(args[0]), ts.MkAbs(args[1])
		err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(src, p)
			if d.IsDir() && (d.Name() == ".cc" || strings.HasPrefix(rel, ".cc"+string(filepath.Separator))) {
				return filepath.SkipDir
			}
			target := filepath.Join(dst, rel)
			if d.IsDir() {
				return os.MkdirAll(target, 0o755)
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.WriteFile(target, b, info.Mode().Perm())
		})
		ts.Check(err)
	},
}
