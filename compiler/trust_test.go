package compiler

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
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
// hanging it, when compilation does not end within 20 s: what these
// tests guard against is a read that blocks for ever.
func compileBounded(t *testing.T, in Input) (*Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
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
		dir := writeProject(t, map[string]string{"main.hcl": "project = \"p\"\ndataset \"d\" {\n  files = [\"d\xff.csv\"]\n}\n", "d\xff.csv": "a"})
		_, err := compileBounded(t, Input{Path: dir})
		if err == nil {
			t.Fatal("Compile() accepted a dataset file whose name is not UTF-8")
		}
	})
}
