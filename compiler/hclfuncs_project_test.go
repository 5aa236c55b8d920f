package compiler

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRefusedFunctionsPositioned: issue 15 acceptance 3. Every function
// that cannot be deterministic (or that cc refuses) fails the compile at
// the call, file:line:col, saying why.
func TestRefusedFunctionsPositioned(t *testing.T) {
	names := make([]string, 0, len(refusedFunctions))
	for n := range refusedFunctions {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		dir := writeProject(t, map[string]string{"main.hcl": fmt.Sprintf(`project = "p"
sandbox "s" {
  image { from = "python:3.12-slim" }
  env = { X = %s("a") }
}
`, name)})
		want := "main.hcl:4:15: Error in function call; Call to function \"" + name + "\" failed: "
		wantDiag(t, dir, Input{Path: dir}, want)
		wantDiag(t, dir, Input{Path: dir}, refusedFunctions[name])
	}
}

// TestFunctionsSameDesiredAsCUE: issue 15. A project whose values come
// from Terraform's functions compiles to the same desired state, byte for
// byte, as the CUE project that spells the values out.
func TestFunctionsSameDesiredAsCUE(t *testing.T) {
	hclDir := writeProject(t, map[string]string{
		"main.hcl": `project = "funcs"
locals {
  name  = replace(lower("My Service_Name"), "/[^a-z0-9]+/", "-")
  tiers = { small = "1Gi", large = "8Gi" }
}
volume "cache" {
  size = lookup(local.tiers, "large")
}
sandbox "dev" {
  image { from = "python:3.12-slim" }
  command = concat(["sh", "-c"], [format("echo %s", local.name)])
  env = {
    NAME   = local.name
    SUBNET = cidrsubnet("10.0.0.0/16", 8, 2)
    SUM    = sha256(local.name)
    LEN    = tostring(length(local.tiers))
    CONFIG = templatefile("c.tftpl", { name = local.name })
    ONE    = coalesce(null, one(["b"]))
  }
}
`,
		"c.tftpl": "name=${upper(name)}\n",
	})
	cueDir := writeProject(t, map[string]string{"main.cue": `project: "funcs"
volumes: cache: size: "8Gi"
sandboxes: dev: {
	image: from: "python:3.12-slim"
	command: ["sh", "-c", "echo my-service-name"]
	env: {
		NAME:   "my-service-name"
		SUBNET: "10.0.2.0/24"
		SUM:    "` + sha256Hex("my-service-name") + `"
		LEN:    "2"
		CONFIG: "name=MY-SERVICE-NAME\n"
		ONE:    "b"
	}
}
`})
	got, want := compileJSON(t, hclDir, Input{}), compileJSON(t, cueDir, Input{})
	if !bytes.Equal(got, want) {
		t.Errorf("HCL with functions differs from CUE:\n%s", cmp.Diff(string(want), string(got)))
	}
}

func sha256Hex(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestSensitiveFunctionMarks: issue 15. sensitive() marks its value as a
// sensitive variable does: the same desired state, the value's position
// recorded as sensitive (so every output hides it); issensitive tells it.
func TestSensitiveFunctionMarks(t *testing.T) {
	const body = `
sandbox "s" {
  image { from = "python:3.12-slim" }
  env = {
    T = %s
    P = tostring(issensitive(sensitive("x")))
  }
}
`
	fn := writeProject(t, map[string]string{"main.hcl": `project = "p"` + fmt.Sprintf(body, `sensitive("Zq7canaryX")`)})
	vr := writeProject(t, map[string]string{"main.hcl": `project = "p"
variable "t" {
  type      = string
  default   = "Zq7canaryX"
  sensitive = true
}` + fmt.Sprintf(body, "var.t")})
	got, want := compileJSON(t, fn, Input{}), compileJSON(t, vr, Input{})
	if !bytes.Equal(got, want) {
		t.Errorf("sensitive() differs from a sensitive variable:\n%s", cmp.Diff(string(want), string(got)))
	}
	if !strings.Contains(string(got), `"sensitive":["/env/T"]`) || !strings.Contains(string(got), `"P":"true"`) {
		t.Errorf("sensitive() is not recorded as sensitive: %s", got)
	}
}

// TestTryCanUndeclaredLocal: issue 15. can(local.nonexist) and
// try(local.nonexist, "fallback") fail in Terraform (v1.11) with
// "Reference to undeclared local value", not false or the fallback: a
// reference to what is not declared is an error before any evaluation,
// which try and can do not catch. So in cc (the examples of Terraform's
// documentation of can and try, kept out of the expression table).
func TestTryCanUndeclaredLocal(t *testing.T) {
	for _, expr := range []string{`tostring(can(local.nonexist))`, `try(local.nonexist, "fallback")`} {
		dir := writeProject(t, map[string]string{"main.hcl": `project = "p"
locals { foo = { bar = "baz" } }
sandbox "s" {
  image { from = "python:3.12-slim" }
  env = { X = ` + expr + ` }
}
`})
		wantDiag(t, dir, Input{Path: dir}, "reference to undefined local.nonexist")
	}
}

// TestFunctionLimits: issue 15. The new functions are held to the limits
// of an HCL evaluation (limits.go): setproduct is refused before it
// multiplies, and a template read by templatefile is counted as the
// configuration's own templates and for expressions are.
func TestFunctionLimits(t *testing.T) {
	// local.b is 8 MiB of x, made cheaply by doubling.
	big := "a0 = \"" + strings.Repeat("x", 64) + "\"\n"
	for i := 1; i <= 17; i++ {
		big += fmt.Sprintf("  a%d = \"${local.a%d}${local.a%d}\"\n", i, i-1, i-1)
	}
	big += "  b = local.a17\n"
	for _, tc := range []struct{ name, locals, want string }{
		{"setproduct", `x = setproduct(range(1000), range(1000), range(10))`, `main.hcl:3:7: setproduct() would make more than 1000000 elements`},
		{"replace groups", big + `  x = replace(local.b, "/(x+)/", "$1$1$1")`, `main.hcl:22:7: replace() would make a string longer than 16 MiB`},
		{"yaml aliases", `x = yamldecode(file("bomb.yaml"))`, `main.hcl:3:7: yamldecode(): the document's aliases expand to more than 1000000 values`},
		{"templatefile", big + `  x = templatefile("t.tftpl", { s = local.b })`, `main.hcl:22:7: t.tftpl:1,1-12: this template makes a string longer than 16 MiB`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{
				"main.hcl":  "project = \"p\"\nlocals {\n  " + tc.locals + "\n}\n",
				"t.tftpl":   "${s}${s}${s}",
				"bomb.yaml": yamlBomb,
			})
			got := compileDiags(t, dir, dir, Input{})
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("diagnostics = %q, want just one containing %q", got, tc.want)
			}
		})
	}
}

// TestFilesetInsideRoot: issue 15. fileset lists the regular files under
// a directory of the project, and links to them, never a link that leaves
// the root nor cc's own state directory.
func TestFilesetInsideRoot(t *testing.T) {
	outside := writeProject(t, map[string]string{"secret.txt": "x"})
	dir := writeProject(t, map[string]string{
		"main.hcl": `project = "p"
sandbox "s" {
  image { from = "python:3.12-slim" }
  env = { F = join(",", fileset(".", "**/*.txt")) }
}
`,
		"a.txt": "a", "sub/b.txt": "b", ".cc/state.txt": "s",
	})
	if err := os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "out.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("a.txt", filepath.Join(dir, "in.txt")); err != nil {
		t.Fatal(err)
	}
	got := string(compileJSON(t, dir, Input{}))
	if !strings.Contains(got, `"F":"a.txt,in.txt,sub/b.txt"`) {
		t.Errorf("fileset = %s, want a.txt,in.txt,sub/b.txt", got)
	}
}

// yamlBomb is YAML whose aliases make 10^9 strings of a few bytes.
var yamlBomb = func() string {
	s := "l0: &l0 [x, x, x, x, x, x, x, x, x, x]\n"
	for i := 1; i <= 9; i++ {
		s += fmt.Sprintf("l%d: &l%d [%s]\n", i, i, strings.TrimSuffix(strings.Repeat(fmt.Sprintf("*l%d, ", i-1), 10), ", "))
	}
	return s
}()
