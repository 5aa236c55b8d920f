package compiler

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// issue 12: environments. The example compiles to the same bytes in CUE
// (with -t env=prod or --env prod) and in HCL (with --env prod, which
// reads env/prod.ccvars.hcl), and to other bytes than the default.
func TestEnvironmentsExampleSameBytes(t *testing.T) {
	dir := "../examples/environments"
	h := compileJSON(t, filepath.Join(dir, "main.hcl"), Input{Env: "prod"})
	for _, in := range []Input{{Tags: []string{"env=prod"}}, {Env: "prod"}, {Env: "prod", Tags: []string{"env=prod"}}} {
		c := compileJSON(t, filepath.Join(dir, "main.cue"), in)
		if !bytes.Equal(c, h) {
			t.Errorf("CUE %+v and HCL --env prod compile differently:\n%s", in, cmp.Diff(string(c), string(h)))
		}
	}
	if def := compileJSON(t, filepath.Join(dir, "main.hcl"), Input{}); bytes.Equal(def, h) {
		t.Errorf("--env prod compiles as the default environment does")
	}
	dev := compileJSON(t, filepath.Join(dir, "main.hcl"), Input{Env: "dev"})
	if !strings.Contains(string(dev), `"CC_ENV":"dev"`) {
		t.Errorf("env.name is not dev with --env dev:\n%s", dev)
	}
}

// issue 12: environments. CC_VAR_name sets a variable below the env file,
// -var-file and -var (Terraform's TF_VAR_ precedence); undeclared names are
// ignored; complex types are parsed as HCL, strings taken literally.
func TestEnvironmentsVariablePrecedence(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"main.hcl": `project = "app"
variable "size" {
  type = string
}
variable "sizes" {
  type    = map(string)
  default = {}
}
volume "v" {
  size = var.size
}
volume "w" {
  size = lookup(var.sizes, "w", "9Gi")
}
`,
		"env/dev.ccvars.hcl": `size = "2Gi"` + "\n",
	})
	over := filepath.Join(writeProject(t, map[string]string{"over.tfvars": `size = "3Gi"` + "\n"}), "over.tfvars")
	size := func(in Input) string {
		t.Helper()
		d := compileOK(t, dir, in)
		var sizes []string
		for _, r := range d.Resources {
			var spec struct {
				Size string `json:"size"`
			}
			if err := json.Unmarshal(r.Spec, &spec); err != nil {
				t.Fatal(err)
			}
			sizes = append(sizes, spec.Size)
		}
		return strings.Join(sizes, " ")
	}
	env := []string{"CC_VAR_size=1Gi", "CC_VAR_sizes={w = \"5Gi\"}", "CC_VAR_nothing=x"}
	for _, tc := range []struct {
		in   Input
		want string
	}{
		{Input{EnvVars: env}, "1Gi 5Gi"},
		{Input{EnvVars: env, Env: "dev"}, "2Gi 5Gi"},
		{Input{EnvVars: env, Env: "dev", VarFiles: []string{over}}, "3Gi 5Gi"},
		{Input{EnvVars: env, Env: "dev", Vars: []string{"size=4Gi"}}, "4Gi 5Gi"},
	} {
		if got := size(tc.in); got != tc.want {
			t.Errorf("Compile(%+v) size, tags = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// issue 12: environments. A declared CC_VAR_ value is validated as -var
// is, and names itself in the error.
func TestEnvironmentsBadEnvVar(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": `project = "app"
variable "n" {
  type = number
}
volume "v" {
  size = "${var.n}Gi"
}
`})
	_, err := Compile(context.Background(), Input{Path: dir, EnvVars: []string{"CC_VAR_n=many"}})
	if err == nil || !strings.Contains(err.Error(), `invalid value for variable "n"`) {
		t.Fatalf("Compile(CC_VAR_n=many) error = %v, want invalid value for variable \"n\"", err)
	}
}

// issue 12: environments. With an env/ directory, an environment without a
// file is refused with did-you-mean; without one, any name compiles; env
// is refused outside env.name; -t is refused for HCL and a bad name for
// either language.
func TestEnvironmentsRefusals(t *testing.T) {
	withDir := writeProject(t, map[string]string{
		"main.hcl":            "project = \"app\"\n",
		"env/prod.ccvars.hcl": "\n",
	})
	noDir := writeProject(t, map[string]string{"main.hcl": "project = \"app\"\n"})
	badRef := writeProject(t, map[string]string{"main.hcl": "project = \"app-${env.nam}\"\n"})
	for _, tc := range []struct {
		in   Input
		want string
	}{
		{Input{Path: withDir, Env: "prdo"}, `environment "prdo" has no variable file env/prdo.ccvars.hcl; did you mean "prod"?`},
		{Input{Path: withDir, Tags: []string{"env=prod"}}, "-t sets CUE @tag values"},
		{Input{Path: noDir, Env: "Prod"}, "not a lowercase DNS label"},
		{Input{Path: badRef}, "main.hcl:1:18: env has one attribute, env.name"},
	} {
		_, err := Compile(context.Background(), tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Compile(%+v) error = %v, want %q", tc.in, err, tc.want)
		}
	}
	if d := compileOK(t, noDir, Input{Env: "anything"}); d.Project != "app" {
		t.Errorf("Compile(--env anything) project = %q, want app (the environment is no part of the desired state)", d.Project)
	}
	if d := compileOK(t, withDir, Input{Env: "prod"}); d.Project != "app" {
		t.Errorf("Compile(--env prod) project = %q, want app", d.Project)
	}
}

// issue 12: environments. --env sets @tag(env) only when the CUE
// configuration declares it; -t of an undeclared tag is cue's error.
func TestEnvironmentsCUETags(t *testing.T) {
	plain := writeProject(t, map[string]string{"main.cue": "project: \"app\"\n"})
	compileOK(t, plain, Input{Env: "prod"})
	_, err := Compile(context.Background(), Input{Path: plain, Tags: []string{"size=1Gi"}})
	if err == nil || !strings.Contains(err.Error(), `no tag for "size"`) {
		t.Errorf("Compile(-t size=1Gi) error = %v, want no tag for \"size\"", err)
	}
	tagged := writeProject(t, map[string]string{"main.cue": `project: "app"
_size: *"1Gi" | string @tag(size)
volumes: v: size: _size
`})
	d := compileOK(t, tagged, Input{Tags: []string{"size=5Gi"}})
	if !strings.Contains(string(d.Resources[0].Spec), `"5Gi"`) {
		t.Errorf("Compile(-t size=5Gi) spec = %s, want size 5Gi", d.Resources[0].Spec)
	}
	_, err = Compile(context.Background(), Input{Path: tagged, Vars: []string{"size=1"}})
	if err == nil || !strings.Contains(err.Error(), "-t key=value into @tag(key)") {
		t.Errorf("Compile(CUE, -var) error = %v, want the -t advice", err)
	}
}
