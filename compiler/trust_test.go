package compiler

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"cc.dev/cc/diag"
)

// compileDiags compiles the project at path and returns its diagnostics as
// "file:line:col: summary" lines, file names relative to dir.
func compileDiags(t *testing.T, dir, path string, in Input) []string {
	t.Helper()
	in.Path = path
	_, err := Compile(context.Background(), in)
	var cerr *Error
	if !errors.As(err, &cerr) {
		t.Fatalf("Compile(%s) error = %v, want configuration diagnostics", path, err)
	}
	var out []string
	for _, d := range cerr.Diagnostics {
		if d.Subject == nil || d.Subject.Start.Line == 0 {
			t.Errorf("diagnostic without a position: %s", d.Error())
		}
		out = append(out, strings.ReplaceAll(d.Error(), dir+"/", ""))
	}
	return out
}

// TestItem1MarkedTopLevelFieldsRefused: issue 8 item 1. A collection
// written as required (sandboxes!:) or optional (sandboxes?:) is not part
// of CUE's output; it used to compile to zero resources. Unknown top-level
// fields, with or without a marker, were silently accepted. Each is now an
// error at the field.
func TestItem1MarkedTopLevelFieldsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"required sandboxes", "sandboxes!: dev: image: from: \"python:3.12\"\n",
			`main.cue:2:1: sandboxes is marked required (sandboxes!:) and nothing defines it`},
		{"required volumes", "volumes!: data: size: \"1Gi\"\n",
			`main.cue:2:1: volumes is marked required (volumes!:)`},
		{"required images", "images!: app: from: \"python:3.12\"\n",
			`main.cue:2:1: images is marked required (images!:)`},
		{"required secrets", "secrets!: k: from_env: \"K\"\n",
			`main.cue:2:1: secrets is marked required (secrets!:)`},
		{"optional sandboxes", "sandboxes?: dev: image: from: \"python:3.12\"\n",
			`main.cue:2:1: sandboxes is marked optional (sandboxes?:)`},
		{"required entry", "volumes: data!: size: \"1Gi\"\n",
			`main.cue:2:10: volume "data" is marked required (data!:)`},
		{"optional entry", "volumes: data?: size: \"1Gi\"\n",
			`main.cue:2:10: volume "data" is marked optional (data?:)`},
		{"unknown required", "foo!: 1\n", `main.cue:2:1: unknown field "foo" (written as required, with !)`},
		{"unknown optional", "foo?: 1\n", `main.cue:2:1: unknown field "foo" (written as optional, with ?)`},
		{"unknown regular", "foo: 1\n", `main.cue:2:1: unknown field "foo"`},
		{"misspelt", "sandboxs: dev: image: from: \"python:3.12\"\n", `main.cue:2:1: unknown field "sandboxs"; did you mean "sandboxes"?`},
		{"misspelt required", "volums!: {}\n", `main.cue:2:1: unknown field "volums" (written as required, with !); did you mean "volumes"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.cue": "project: \"p\"\n" + tc.src})
			got := compileDiags(t, dir, filepath.Join(dir, "main.cue"), Input{})
			if len(got) == 0 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("diagnostics = %q, want one containing %q", got, tc.want)
			}
		})
	}
}

// TestItem1MarkersThatDefineNothingAreFine: a marker next to a regular
// field, an optional pattern constraint, definitions and hidden fields are
// ordinary CUE and still compile (issue 8 item 1).
func TestItem1MarkersThatDefineNothingAreFine(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.cue": `project: "p"
volumes!: {...}
volumes: data: size: "1Gi"
sandboxes?: [string]: lifetime: *"2h" | string
#Base: {from: "python:3.12"}
_hidden: 1
`})
	d := compileOK(t, filepath.Join(dir, "main.cue"), Input{})
	if d.Lookup("volume.data") == nil {
		t.Fatalf("volume.data missing from %v", d.Resources)
	}
}

// TestItem1UnknownHCLTopLevel: issue 8 item 1, HCL side: unknown
// top-level attributes and block types are positioned errors.
func TestItem1UnknownHCLTopLevel(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"attribute", "foo = 1\n", `main.hcl:2:1: unknown attribute "foo"`},
		{"block", "sandboxs \"dev\" {\n}\n", `main.hcl:2:1: unknown block type "sandboxs"; did you mean "sandbox"?`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\n" + tc.src})
			got := compileDiags(t, dir, filepath.Join(dir, "main.hcl"), Input{})
			if len(got) == 0 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("diagnostics = %q, want one containing %q", got, tc.want)
			}
		})
	}
}

// compileBounded compiles like Compile but fails the test, rather than
// hanging it, when compilation does not end within 2 minutes: what these
// tests guard against is a read that blocks for ever. (20 s was too near
// the 6 s the million-element variable file takes on an idle machine: on
// a loaded one the guard fired on a compile that was working.)
func compileBounded(t *testing.T, in Input) (*Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	type out struct {
		res *Result
		err error
	}
	ch := make(chan out, 1)
	go func() {
		res, err := Compile(ctx, in)
		ch <- out{res, err}
	}()
	select {
	case o := <-ch:
		return o.res, o.err
	case <-ctx.Done():
		t.Fatalf("Compile(%s) did not end: a read blocks", in.Path)
		return nil, nil
	}
}

func mkfifo(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
}

// wantDiag compiles and wants a diagnostic containing want (file names
// relative to dir).
func wantDiag(t *testing.T, dir string, in Input, want string) {
	t.Helper()
	_, err := compileBounded(t, in)
	var cerr *Error
	if !errors.As(err, &cerr) {
		if err != nil && strings.Contains(strings.ReplaceAll(err.Error(), dir+"/", ""), want) {
			return
		}
		t.Fatalf("Compile() error = %v, want a diagnostic containing %q", err, want)
	}
	var got []string
	for _, d := range cerr.Diagnostics {
		s := strings.ReplaceAll(d.Error(), dir+"/", "")
		if strings.Contains(s, want) {
			if d.Subject == nil || d.Subject.Start.Line == 0 {
				t.Errorf("diagnostic without a position: %s", s)
			}
			return
		}
		got = append(got, s)
	}
	t.Fatalf("diagnostics = %q, want one containing %q", got, want)
}

const fifoImage = `project = "p"
image "app" {
  from = "python:3.12-slim"
  copy {
    src = "SRC"
    dst = "/app"
  }
}
`

// TestItem13FIFOsAndDevicesRefused: issue 8 item 13. A FIFO named as a
// copy source, a dataset file, an env file, a -var-file, a file() or
// filesha256() argument, a FIFO project file, or a FIFO inside a copied
// tree used to block the compile for ever. Each is now refused, unopened,
// with its position where the configuration names it.
func TestItem13FIFOsAndDevicesRefused(t *testing.T) {
	t.Run("copy src", func(t *testing.T) {
		dir := writeProject(t, map[string]string{"main.hcl": strings.Replace(fifoImage, "SRC", "pipe", 1)})
		mkfifo(t, filepath.Join(dir, "pipe"))
		wantDiag(t, dir, Input{Path: dir}, "main.hcl:5:11: copy source pipe is a named pipe (FIFO), not a regular file")
	})
	t.Run("inside a copied tree", func(t *testing.T) {
		dir := writeProject(t, map[string]string{"main.hcl": strings.Replace(fifoImage, "SRC", "src", 1), "src/a.py": "x"})
		mkfifo(t, filepath.Join(dir, "src/pipe"))
		wantDiag(t, dir, Input{Path: dir}, "main.hcl:5:11: copy source src/pipe is a named pipe (FIFO), not a regular file")
	})
	t.Run("dataset file", func(t *testing.T) {
		dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\ndataset \"d\" {\n  files = [\"data.csv\"]\n}\n"})
		mkfifo(t, filepath.Join(dir, "data.csv"))
		wantDiag(t, dir, Input{Path: dir}, "main.hcl:3:12: dataset file data.csv is a named pipe (FIFO), not a regular file")
	})
	t.Run("env file", func(t *testing.T) {
		dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\nsecret \"s\" {\n  from_env_file { path = \"dev.env\" }\n}\n"})
		mkfifo(t, filepath.Join(dir, "dev.env"))
		wantDiag(t, dir, Input{Path: dir}, "dev.env is a named pipe (FIFO), not a regular file")
	})
	t.Run("var file", func(t *testing.T) {
		dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\nvariable \"v\" {\n  default = 1\n}\n"})
		mkfifo(t, filepath.Join(dir, "vars.hcl.in"))
		// A -var-file is named on the command line: no position.
		_, err := compileBounded(t, Input{Path: dir, VarFiles: []string{filepath.Join(dir, "vars.hcl.in")}})
		if err == nil || !strings.Contains(err.Error(), "vars.hcl.in: is a named pipe (FIFO), not a regular file") {
			t.Fatalf("Compile() error = %v, want the -var-file refused as a FIFO", err)
		}
	})
	for _, fn := range []string{"file", "filesha256"} {
		t.Run(fn, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\nlocals {\n  x = " + fn + "(\"pipe\")\n}\nsecret \"s\" {\n  from_env = local.x\n}\n"})
			mkfifo(t, filepath.Join(dir, "pipe"))
			wantDiag(t, dir, Input{Path: dir}, "main.hcl:3:")
			wantDiag(t, dir, Input{Path: dir}, "is a named pipe (FIFO), not a regular file")
		})
	}
	for _, name := range []string{"main.hcl", "main.cue"} {
		t.Run("project file "+name, func(t *testing.T) {
			dir := t.TempDir()
			mkfifo(t, filepath.Join(dir, name))
			wantDiag(t, dir, Input{Path: dir}, name+" is a named pipe (FIFO), not a regular file")
			wantDiag(t, dir, Input{Path: filepath.Join(dir, name)}, name+" is a named pipe (FIFO), not a regular file")
		})
	}
	t.Run("second project file", func(t *testing.T) {
		dir := writeProject(t, map[string]string{"main.cue": "project: \"p\"\n"})
		mkfifo(t, filepath.Join(dir, "more.cue"))
		wantDiag(t, dir, Input{Path: dir}, "more.cue is a named pipe (FIFO), not a regular file")
	})
}

// TestItem13CUEModuleFIFORefused: issue 8 item 13. cue/load reads the
// module file and imported packages itself: through a file system that
// opens only regular files, a FIFO there is an error, not a hang.
func TestItem13CUEModuleFIFORefused(t *testing.T) {
	for fifo, want := range map[string]string{
		"lib/more.cue": "main.cue:3:8: import failed: cannot find package \"example.com/demo/lib\": cannot get imports: cannot read \"lib/more.cue\": open lib/more.cue: is a named pipe (FIFO), not a regular file",
		// cue/load takes a module file it cannot read for none.
		"cue.mod/module.cue": "main.cue:3:8: import failed: imports are unavailable because there is no cue.mod/module.cue file",
	} {
		t.Run(fifo, func(t *testing.T) {
			files := map[string]string{
				"cue.mod/module.cue": "module: \"example.com/demo@v0\"\nlanguage: version: \"v0.12.0\"\n",
				"lib/lib.cue":        "package lib\n\nsize: \"1Gi\"\n",
				"main.cue":           "package demo\n\nimport \"example.com/demo/lib\"\n\nproject: \"demo\"\nvolumes: data: size: lib.size\n",
			}
			delete(files, fifo)
			dir := writeProject(t, files)
			mkfifo(t, filepath.Join(dir, fifo))
			wantDiag(t, dir, Input{Path: dir}, want)
		})
	}
}

// TestItem13DeviceRefused: issue 8 item 13. A device node inside the
// project (here /dev/zero's twin, when the test may make one) is never
// read: file() of it used to read for ever.
func TestItem13DeviceRefused(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\nlocals {\n  x = file(\"zero\")\n}\nsecret \"s\" {\n  from_env = local.x\n}\n"})
	if err := syscall.Mknod(filepath.Join(dir, "zero"), syscall.S_IFCHR|0o666, 1<<8|5); err != nil {
		t.Skipf("mknod: %v", err)
	}
	wantDiag(t, dir, Input{Path: dir}, "zero: is a device, not a regular file")
	// Through a symbolic link /dev/zero is outside the root.
	os.Remove(filepath.Join(dir, "zero"))
	os.Symlink("/dev/zero", filepath.Join(dir, "zero"))
	wantDiag(t, dir, Input{Path: dir}, "leaves the project root")
}

// TestItem13FileFuncLimit: issue 8 item 13. file() reads at most 16 MiB,
// streaming; more is an error at the call.
func TestItem13FileFuncLimit(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\nlocals {\n  x = file(\"big.txt\")\n  y = filesha256(\"big.txt\")\n}\nsecret \"s\" {\n  from_env = local.x\n}\n"})
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), bytes.Repeat([]byte("a"), maxFileFunc+1), 0o644); err != nil {
		t.Fatal(err)
	}
	wantDiag(t, dir, Input{Path: dir}, "main.hcl:3:")
	wantDiag(t, dir, Input{Path: dir}, "big.txt is larger than 16 MiB, the limit on file()")
}

// TestItem15NonUTF8NamesRefused: issue 8 item 15. A file name that is not
// UTF-8 used to become U+FFFD in its tree path, so two files could get one
// path; it is refused, naming the file quoted.
func TestItem15NonUTF8NamesRefused(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"copied dir", strings.Replace(fifoImage, "SRC", "src", 1), `main.hcl:5:11: copy source "src/a\xf`},
		{"function source", "project = \"p\"\nimage \"app\" {\n  from = \"python:3.12-slim\"\n}\nfunction \"f\" {\n  image = image.app\n  source { paths = [\"src\"] }\n  handler = \"a:b\"\n}\n", `function source "src/a\xf`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.hcl": tc.src, "src/ok.py": "x", "src/a\xff.py": "y", "src/a\xfe.py": "z"})
			wantDiag(t, dir, Input{Path: dir}, tc.want)
			wantDiag(t, dir, Input{Path: dir}, "the file name is not UTF-8")
		})
	}
	t.Run("dataset", func(t *testing.T) {
		// A dataset names files one by one, in the configuration, which
		// is UTF-8 text: such a name cannot even be written.
		dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\ndataset \"d\" {\n  files = [\"d\xff.csv\"]\n}\n", "d\xff.csv": "a"})
		wantDiag(t, dir, Input{Path: dir}, "main.hcl:3:14: Invalid character encoding")
	})
	t.Run("Dockerfile context", func(t *testing.T) {
		dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\nimage \"app\" {\n  from_dockerfile = \"ctx/Dockerfile\"\n}\n", "ctx/Dockerfile": "FROM python:3.12-slim@sha256:" + strings.Repeat("a", 64) + "\n", "ctx/a\xff": "x"})
		wantDiag(t, dir, Input{Path: dir}, `"ctx/a\xff": the file name is not UTF-8`)
	})
}

// TestItem14RandomBytesErrorsCapped: issue 8 item 14. 800 KB of random
// bytes as HCL gave 34,090 diagnostics, each rendered with a split of the
// whole file (quadratic). At most diag.MaxShown are kept, the rest counted
// in a last "and N more errors".
func TestItem14RandomBytesErrorsCapped(t *testing.T) {
	src := make([]byte, 800_000)
	rnd := rand.New(rand.NewPCG(8, 14))
	for i := range src {
		src[i] = byte(rnd.Uint32())
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.hcl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := compileBounded(t, Input{Path: dir})
	var cerr *Error
	if !errors.As(err, &cerr) {
		t.Fatalf("Compile() error = %v, want diagnostics", err)
	}
	ds := cerr.Diagnostics
	if len(ds) != diag.MaxShown+1 {
		t.Fatalf("Compile() kept %d diagnostics, want %d and a count of the rest", len(ds), diag.MaxShown+1)
	}
	last := ds[len(ds)-1]
	if last.Omitted < 1000 || last.Summary != fmt.Sprintf("and %d more errors", last.Omitted) {
		t.Fatalf("last diagnostic = %+v, want \"and N more errors\" with N in the thousands", last)
	}
	// Only the first are kept (maxCollected), but every one is counted.
	_, hd := hclsyntax.ParseConfig(src, "main.hcl", hcl.InitialPos)
	if got, want := diag.MaxShown+last.Omitted, len(hd.Errs()); got != want {
		t.Errorf("shown + counted = %d, want HCL's %d diagnostics", got, want)
	}
	var out bytes.Buffer
	if err := diag.WriteText(&out, ds, func(string) []byte { return src }); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.String(), "\nerror: "); n != diag.MaxShown-1 {
		t.Errorf("rendered %d errors, want %d", n+1, diag.MaxShown)
	}
	if !strings.HasSuffix(out.String(), fmt.Sprintf("and %d more errors (not shown)\n", last.Omitted)) {
		t.Errorf("rendering does not end with the count:\n...%s", out.String()[max(0, out.Len()-200):])
	}
}

// TestItem14ConfigSizeLimit: issue 8 item 14. A configuration file over
// the limit is refused before it is read, naming the flag that raises it;
// the limit holds for the files together and for -var-file too.
func TestItem14ConfigSizeLimit(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\n# " + strings.Repeat("x", 100) + "\n", "vars.hcl": strings.Repeat("# x\n", 30)})
	_, err := Compile(context.Background(), Input{Path: dir, MaxConfigSize: 50})
	if err == nil || !strings.Contains(err.Error(), "main.hcl is larger than 50 bytes, the limit on a configuration file; raise it with --max-config-size") {
		t.Errorf("Compile(limit 50) error = %v", err)
	}
	dir2 := writeProject(t, map[string]string{"a.hcl": "project = \"p\"\n" + strings.Repeat("# x\n", 20), "b.hcl": strings.Repeat("# x\n", 20)})
	_, err = Compile(context.Background(), Input{Path: dir2, MaxConfigSize: 100})
	if err == nil || !strings.Contains(err.Error(), "are larger than 100 bytes together") {
		t.Errorf("Compile(two files, limit 100) error = %v", err)
	}
	// One file alone in its directory (issue 9 item 15 refuses one file of
	// several), with a -var-file over the limit.
	dir3 := writeProject(t, map[string]string{"a.hcl": "project = \"p\"\n"})
	_, err = Compile(context.Background(), Input{Path: filepath.Join(dir3, "a.hcl"), MaxConfigSize: 100, VarFiles: []string{filepath.Join(dir, "vars.hcl")}})
	if err == nil || !strings.Contains(err.Error(), "vars.hcl is larger than 100 bytes") {
		t.Errorf("Compile(-var-file over the limit) error = %v", err)
	}
	if _, err := Compile(context.Background(), Input{Path: dir}); err != nil {
		t.Errorf("Compile(default limit) error = %v", err)
	}
}

// TestItem14EvaluationLimits: issue 8 item 14. Comprehensions, functions
// and templates that would exhaust memory (a 10^9-element for, string
// doubling, ...) stop at their limit with an error at the expression.
func TestItem14EvaluationLimits(t *testing.T) {
	doubling := "a0 = \"" + strings.Repeat("x", 64) + "\"\n"
	for i := 1; i <= 40; i++ {
		doubling += fmt.Sprintf("  a%d = \"${local.a%d}${local.a%d}\"\n", i, i-1, i-1)
	}
	// local.b is 8 MiB of x, made cheaply by doubling.
	big := "a0 = \"" + strings.Repeat("x", 64) + "\"\n"
	for i := 1; i <= 17; i++ {
		big += fmt.Sprintf("  a%d = \"${local.a%d}${local.a%d}\"\n", i, i-1, i-1)
	}
	big += "  b = local.a17\n"
	for _, tc := range []struct{ name, locals, want string }{
		{"range", `x = [for i in range(1000000000): i]`, `main.hcl:3:17: range() would make 1000000000 elements, more than 1000000`},
		{"nested for", `x = [for i in range(1000): [for j in range(1000): [for k in range(1000): k]]]`,
			`main.hcl:3:53: this for expression would make more than 1000000 elements`},
		{"string doubling", doubling, `main.hcl:22:9: this template makes a string longer than 16 MiB`},
		{"format width", `x = format("%999999999999d", 1)`, `main.hcl:3:7: format(): a width or precision of 999999999999 is more than`},
		{"replace", big + `  x = replace(local.b, "x", local.b)`, `main.hcl:22:7: replace() would make a string longer than 16 MiB`},
		{"join", big + `  x = join(local.b, [for i in range(1000): "a"])`, `main.hcl:22:7: join() would make a string longer than 16 MiB`},
		{"split", big + `  x = split("", local.b)`, `main.hcl:22:7: split() would make 8388609 elements`},
		{"concat", `x = concat(range(1000), range(1000), range(1000))` + "\n  y = [for i in range(1000): local.x]\n  z = concat(local.y...)",
			`main.hcl:5:7: concat() would make 3000000 elements`},
		{"for bytes", big + `  x = [for i in range(1000): "${local.b}"]`, `main.hcl:22:7: this for expression produces more than 256 MiB of strings`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\nlocals {\n  " + tc.locals + "\n}\n"})
			got := compileDiags(t, dir, dir, Input{})
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("diagnostics = %q, want just one containing %q", got, tc.want)
			}
		})
	}
}

// TestItem14Deadline: issue 8 item 14. Compilation ends with its context,
// saying what it was doing.
func TestItem14Deadline(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\nlocals {\n  x = [for i in range(100): [for j in range(100): [for k in range(99): k]]]\n}\n"})
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := Compile(ctx, Input{Path: dir})
	var de *DeadlineError
	if !errors.As(err, &de) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Compile() error = %v, want a *DeadlineError", err)
	}
	if want := "evaluating local.x (" + dir + "/main.hcl:3:3)"; de.Doing != want {
		t.Errorf("DeadlineError.Doing = %q, want %q", de.Doing, want)
	}
}

// TestItem14CUELimits: issue 8 item 14, CUE side. The builtins that make a
// value of any size from small arguments in one allocation (and died of
// "out of memory" at once) are checked before evaluation; calls within
// the limits still work.
func TestItem14CUELimits(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"repeat", "_a: strings.Repeat(\"a\", 1000000)\n_b: strings.Repeat(_a, 100000)\n", `main.cue:8:5: strings.Repeat: the arguments that set the size of its result must be literals here`},
		{"repeat big", "_a: strings.Repeat(\"ab\", 10_000_000)\n", `main.cue:7:5: strings.Repeat: the result would be longer than 16 MiB`},
		{"repeat multiplier", "_a: strings.Repeat(\"ab\", 10Mi)\n", `main.cue:7:5: strings.Repeat: the result would be longer than 16 MiB`},
		{"range", "_a: [for i in list.Range(0, 1000000000, 1) {i}]\n", `main.cue:7:15: list.Range: the result would have 1000000000 elements`},
		{"list repeat", "_a: list.Repeat([1, 2], 1000000000)\n", `main.cue:7:5: list.Repeat: the result would have more than 1000000 elements`},
		{"alias", "_a: s.Repeat(\"x\", 0x7fffffffffff)\n", `main.cue:7:5: s.Repeat: the result would be longer than 16 MiB`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{"main.cue": "import (\n\t\"strings\"\n\t\"list\"\n\ts \"strings\"\n)\nproject: \"p\"\n" + tc.src})
			got := compileDiags(t, dir, filepath.Join(dir, "main.cue"), Input{})
			if len(got) == 0 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("diagnostics = %q, want one containing %q", got, tc.want)
			}
		})
	}
	dir := writeProject(t, map[string]string{"main.cue": `import ("strings", "list")
project: "p"
secrets: {for i in list.Range(0, 3, 1) {"k\(i)": from_env: strings.ToUpper("k\(i)") + strings.Repeat("_", 2)}}
`})
	if d := compileOK(t, filepath.Join(dir, "main.cue"), Input{}); d.Lookup("secret.k2") == nil {
		t.Errorf("secret.k2 missing from %v", d.Resources)
	}
}

// TestItem14MemoryLimit: issue 8 item 14. Where no limit of its own
// applies (CUE interpolation doubling a string), compilation stops when
// the heap passes MaxMemory, with an error naming the limit and what it
// was doing, instead of dying of "out of memory". (The doubling here ends
// at 128 MiB, so the evaluation left running ends too.)
func TestItem14MemoryLimit(t *testing.T) {
	src := "project: \"p\"\n_a0: \"" + strings.Repeat("x", 64) + "\"\n"
	for i := 1; i <= 21; i++ {
		src += fmt.Sprintf("_a%d: \"\\(_a%d)\\(_a%d)\"\n", i, i-1, i-1)
	}
	dir := writeProject(t, map[string]string{"main.cue": src})
	runtime.GC()
	limit := heapBytes() + 48<<20
	_, err := compileBounded(t, Input{Path: dir, MaxMemory: limit})
	var me *MemoryError
	if !errors.As(err, &me) || me.Limit != limit || me.Doing != "evaluating the CUE configuration" {
		t.Fatalf("Compile() error = %v, want a *MemoryError while evaluating", err)
	}
}

// TestItem14VarValuesCounted: issue 8 item 14. -var values and -var-file
// attributes may hold for expressions (no functions): they are counted
// like the configuration's, and a function call there is still refused.
func TestItem14VarValuesCounted(t *testing.T) {
	// A for over a literal list of 1,000,001 elements is refused before
	// it runs (the limit counts iterations before making them).
	nested := "[for a in [" + strings.Repeat("0,", maxElements) + "0]: a]"
	// The variable files are in vars/: beside main.hcl, they would be
	// files of its project (issue 9 item 15).
	dir := writeProject(t, map[string]string{
		"main.hcl":       "project = \"p\"\nvariable \"n\" {\n  type = list(any)\n}\n",
		"vars/vars.hcl":  "n = " + nested + "\n",
		"vars/calls.hcl": "n = abs(1)\n",
	})
	in := Input{Path: filepath.Join(dir, "main.hcl")}
	in.Vars = []string{"n=[abs(1)]"}
	wantDiag(t, dir, in, "--var n:1:2: Function calls not allowed")
	in.Vars = nil
	in.VarFiles = []string{filepath.Join(dir, "vars", "vars.hcl")}
	wantDiag(t, dir, in, "vars.hcl:1:")
	wantDiag(t, dir, in, "this for expression would make more than 1000000 elements")
	in.VarFiles = []string{filepath.Join(dir, "vars", "calls.hcl")}
	wantDiag(t, dir, in, "calls.hcl:1:5: Function calls not allowed")
}

// TestCompilePanicIsTheCallers: compilation runs on its own goroutine (so
// that a deadline or the memory limit can end it); a panic there, a bug,
// still reaches the caller, whose recover reports it.
func TestCompilePanicIsTheCallers(t *testing.T) {
	defer func() {
		if r := recover(); r == nil {
			t.Fatal("Compile() did not pass the panic on")
		}
	}()
	beforeCompile = func(Input) { panic("a bug") }
	defer func() { beforeCompile = nil }()
	Compile(context.Background(), Input{Path: "."})
}
