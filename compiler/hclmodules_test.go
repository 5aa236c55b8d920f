package compiler

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/schema"
)

// modFiles is a project with a module at modules/svc.
func modFiles(root, module string) map[string]string {
	return map[string]string{
		"main.hcl": "project = \"p\"\n" + root,
		"modules/svc/main.hcl": `variable "size" {
  type = string
}
variable "memory" {
  type    = string
  default = "1Gi"
  validation {
    condition     = endswith(var.memory, "Gi")
    error_message = "memory is in Gi"
  }
}
volume "cache" {
  size = var.size
}
sandbox "web" {
  image = "python:3.12-slim"
  resources {
    requests {
      memory = var.memory
    }
  }
  volume_mount {
    volume = volume.cache
    path   = "/cache"
  }
}
output "cache" {
  value = volume.cache
}
` + module,
	}
}

// moduleErr compiles the project, which must fail, and returns its
// diagnostics with file names relative to the project.
func moduleErr(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := writeProject(t, files)
	return strings.ReplaceAll(compileErr(t, dir), dir+string(filepath.Separator), "")
}

// TestModuleAddresses checks that a module used twice gives each use's
// resources their module's member names, that references inside a module
// are its own, and that an output passes a reference to the caller
// (issue 12: modules).
func TestModuleAddresses(t *testing.T) {
	dir := writeProject(t, modFiles(`
module "a" {
  source = "./modules/svc"
  size   = "1Gi"
}
module "b" {
  source = "./modules/svc"
  size   = "2Gi"
  memory = "4Gi"
}
sandbox "client" {
  image = "python:3.12-slim"
  volume_mount {
    volume = module.b.cache
    path   = "/b"
  }
}
`, ""))
	res, err := Compile(context.Background(), Input{Path: dir})
	if err != nil {
		t.Fatalf("Compile() = %v", err)
	}
	var addrs []string
	refs := map[string][]string{}
	for _, r := range res.Desired.Resources {
		addrs = append(addrs, r.Address)
		refs[r.Address] = r.DependsOn
	}
	want := "module.a.sandbox.web module.a.volume.cache module.b.sandbox.web module.b.volume.cache sandbox.client"
	if got := strings.Join(addrs, " "); !strings.Contains(got, want) {
		t.Fatalf("addresses = %s, want %s", got, want)
	}
	if got := strings.Join(refs["module.a.sandbox.web"], " "); !strings.Contains(got, "module.a.volume.cache") {
		t.Errorf("module.a.sandbox.web refs = %s, want module.a.volume.cache", got)
	}
	if got := strings.Join(refs["sandbox.client"], " "); !strings.Contains(got, "module.b.volume.cache") {
		t.Errorf("sandbox.client refs = %s, want module.b.volume.cache", got)
	}
	if k, member, ok := schema.ParseAddress("module.b.volume.cache"); !ok || k != schema.KindVolume || member != "module.b.cache" {
		t.Errorf("ParseAddress() = %s %s %v", k, member, ok)
	}
}

// TestModuleRefusals checks each refused module form is a positioned
// error that says what is supported (issue 12: modules).
func TestModuleRefusals(t *testing.T) {
	ok := "module \"a\" {\n  source = \"./modules/svc\"\n  size   = \"1Gi\"\n}\n"
	for _, tc := range []struct {
		name, root, module, want string
	}{
		{"registry", "module \"a\" {\n  source = \"hashicorp/consul/aws\"\n}\n", "",
			`main.hcl:3:12: module source "hashicorp/consul/aws": registry sources are not supported`},
		{"git", "module \"a\" {\n  source = \"git::https://x/y.git\"\n}\n", "",
			`main.hcl:3:12: module source "git::https://x/y.git": remote sources`},
		{"absolute", "module \"a\" {\n  source = \"/etc\"\n}\n", "",
			`main.hcl:3:12: module source "/etc": an absolute path is not supported`},
		{"escape", "module \"a\" {\n  source = \"../../x\"\n}\n", "",
			`main.hcl:3:12: module source "../../x": it is outside the project directory`},
		{"missing dir", "module \"a\" {\n  source = \"./modules/nope\"\n}\n", "",
			`main.hcl:3:12: module source "./modules/nope": no such directory`},
		{"no source", "module \"a\" {\n  size = \"1Gi\"\n}\n", "",
			`main.hcl:2:1: module "a" has no source`},
		{"count", "module \"a\" {\n  source = \"./modules/svc\"\n  count  = 2\n}\n", "",
			`main.hcl:4:3: count on a module block is not supported`},
		{"for_each", "module \"a\" {\n  source   = \"./modules/svc\"\n  for_each = {}\n}\n", "",
			`main.hcl:4:3: for_each on a module block is not supported`},
		{"undeclared input", "module \"a\" {\n  source = \"./modules/svc\"\n  size   = \"1Gi\"\n  sise2  = 1\n  memroy = \"2Gi\"\n}\n", "",
			`main.hcl:6:3: module "a" has no variable "memroy"; did you mean "memory"?`},
		{"required", "module \"a\" {\n  source = \"./modules/svc\"\n}\n", "",
			`main.hcl:2:1: module "a": no value for required variable "size"`},
		{"conversion", "module \"a\" {\n  source = \"./modules/svc\"\n  size   = [1]\n}\n", "",
			`main.hcl:4:12: invalid value for variable "size"`},
		{"validation", "module \"a\" {\n  source = \"./modules/svc\"\n  size   = \"1Gi\"\n  memory = \"1G\"\n}\n", "",
			`main.hcl:5:12: invalid value for variable "memory": memory is in Gi`},
		{"project in module", ok, "project = \"q\"\n",
			`modules/svc/main.hcl:30:1: a module sets no project`},
		{"defaults in module", ok, "defaults {\n}\n",
			`modules/svc/main.hcl:30:1: a module cannot hold defaults blocks`},
		{"moved in module", ok, "moved {\n  from = sandbox.x\n  to = sandbox.web\n}\n",
			`modules/svc/main.hcl:30:1: a module cannot hold moved blocks`},
		{"caller resource", ok, "sandbox \"x\" {\n  env = { A = secret.top }\n}\n",
			`modules/svc/main.hcl:31:15: reference to undefined secret "top"`},
		{"undefined module", ok + "sandbox \"c\" {\n  image = \"python:3.12-slim\"\n  env = { A = module.b.cache }\n}\n", "",
			`main.hcl:8:15: reference to undefined module "b"; did you mean module.a?`},
		{"undefined output", ok + "sandbox \"c\" {\n  image = \"python:3.12-slim\"\n  env = { A = module.a.cahce }\n}\n", "",
			`main.hcl:8:15: module "a" has no output "cahce"; did you mean module.a.cache?`},
		{"misspelt module", ok + "sandbox \"c\" {\n  image = \"python:3.12-slim\"\n  env = { A = modul.a.cache }\n}\n", "",
			`main.hcl:8:15: unknown name "modul"; did you mean "module"?`},
		{"path", ok, "locals {\n  d = path.modul\n}\n",
			`modules/svc/main.hcl:31:7: path has path.module`},
		{"cycle of sources", ok, "module \"again\" {\n  source = \"../svc\"\n  size = \"1Gi\"\n}\n",
			`modules/svc/main.hcl:30:1: module "again": a cycle of module sources`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := modFiles(tc.root, tc.module)
			if tc.name == "caller resource" {
				files["main.hcl"] += "secret \"top\" {\n  from_env = \"X\"\n}\n"
			}
			got := moduleErr(t, files)
			if !strings.Contains(got, tc.want) {
				t.Errorf("Compile() error =\n%s\nwant one containing %q", got, tc.want)
			}
		})
	}
}

// TestModuleNestedSensitivePath checks a module calling a module (member
// names module.a.module.b.NAME), that a sensitive input and a sensitive
// output stay sensitive, and path.module (issue 12: modules).
func TestModuleNestedSensitivePath(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"main.hcl": `project = "p"
variable "token" {
  type      = string
  sensitive = true
  default   = "s3cr3t-value"
}
module "a" {
  source = "./modules/outer"
  token  = var.token
}
sandbox "c" {
  image = "python:3.12-slim"
  env   = { T = module.a.token, D = module.a.dir }
}
`,
		"modules/outer/main.hcl": `variable "token" {
  type = string
}
module "b" {
  source = "../inner"
  token  = var.token
}
output "token" {
  value     = module.b.token
  sensitive = true
}
output "dir" {
  value = path.module
}
`,
		"modules/inner/main.hcl": `variable "token" {
  type = string
}
sandbox "web" {
  image = "python:3.12-slim"
  env   = { T = var.token, D = path.module }
}
output "token" {
  value     = var.token
  sensitive = true
}
`,
	})
	res, err := Compile(context.Background(), Input{Path: dir})
	if err != nil {
		t.Fatalf("Compile() = %v", err)
	}
	web := res.Desired.Lookup("module.a.module.b.sandbox.web")
	if web == nil {
		t.Fatalf("no module.a.module.b.sandbox.web in %v", res.Desired.Resources)
	}
	if got := strings.Join(web.Sensitive, " "); !strings.Contains(got, "/env/T") {
		t.Errorf("module.a.module.b.sandbox.web sensitive = %q, want /env/T", got)
	}
	if !strings.Contains(string(web.Spec), `"D":"modules/inner"`) {
		t.Errorf("module.a.module.b.sandbox.web spec = %s, want D = modules/inner", web.Spec)
	}
	c := res.Desired.Lookup("sandbox.c")
	if got := strings.Join(c.Sensitive, " "); c == nil || !strings.Contains(got, "/env/T") {
		t.Errorf("sandbox.c sensitive = %q, want /env/T", got)
	}
	if !strings.Contains(string(c.Spec), `"D":"modules/outer"`) {
		t.Errorf("sandbox.c spec = %s, want D = modules/outer", c.Spec)
	}
}

// TestModuleLocalFiles checks that a module's local files are relative to
// its directory, and that an image passed in keeps its own paths (issue
// 12: modules).
func TestModuleLocalFiles(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"main.hcl": `project = "p"
image "root" {
  from = "python:3.12-slim"
  copy {
    src = "src"
    dst = "/src"
  }
}
module "a" {
  source = "./modules/fn"
  base   = image.root
}
`,
		"src/x.py":            "x = 1\n",
		"modules/fn/app/h.py": "def h(): pass\n",
		"modules/fn/req.txt":  "requests\n",
		"modules/fn/main.hcl": `variable "base" {}
image "app" {
  from = var.base
  pip_requirements { file = "req.txt" }
  copy {
    src = "app"
    dst = "/app"
  }
}
function "h" {
  image   = image.app
  handler = "app.h:h"
  source { paths = ["app"] }
}
`,
	})
	res, err := Compile(context.Background(), Input{Path: dir})
	if err != nil {
		t.Fatalf("Compile() = %v", err)
	}
	app := res.Desired.Lookup("module.a.image.app")
	if app == nil {
		t.Fatalf("no module.a.image.app in %v", res.Desired.Resources)
	}
	for _, want := range []string{`"src":"modules/fn/app"`, `"file":"modules/fn/req.txt"`} {
		if !strings.Contains(string(app.Spec), want) {
			t.Errorf("module.a.image.app spec = %s, want %s", app.Spec, want)
		}
	}
	root := res.Desired.Lookup("image.root")
	if root == nil || !strings.Contains(string(root.Spec), `"src":"src"`) {
		t.Errorf("image.root = %v, want src = src", root)
	}
	fn := res.Desired.Lookup("module.a.function.h")
	if fn == nil || !strings.Contains(string(fn.Spec), "modules/fn/app") {
		t.Errorf("module.a.function.h = %v, want source paths modules/fn/app", fn)
	}
}

// issue 12: modules and outputs. A module's output that shows a sensitive
// value without sensitive = true is refused, as a root output is (and as
// Terraform refuses both).
func TestModuleOutputRefersToSensitive(t *testing.T) {
	dir := writeProject(t, map[string]string{
		"main.hcl": `project = "p"
variable "token" {
  type      = string
  sensitive = true
  default   = "s3cr3t-value"
}
module "a" {
  source = "./modules/a"
  token  = var.token
}
`,
		"modules/a/main.hcl": `variable "token" {
  type = string
}
output "token" {
  value = var.token
}
`,
	})
	_, err := Compile(context.Background(), Input{Path: dir})
	if err == nil || !strings.Contains(err.Error(), "modules/a/main.hcl:5:11: Output refers to sensitive values") {
		t.Fatalf("Compile() = %v, want the refusal at modules/a/main.hcl:5:11", err)
	}
	if strings.Contains(err.Error(), "s3cr3t") {
		t.Fatalf("the error shows the value: %v", err)
	}
}
