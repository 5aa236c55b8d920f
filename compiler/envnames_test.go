package compiler

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// TestIssue9EnvClashes: the variables each kind of secret injects through
// env_from, and two sources of one variable refused, naming both (issue 9
// item 1); the corpus has the cases in both languages
// (testdata/bad/env-*.txtar).
func TestIssue9EnvClashes(t *testing.T) {
	secrets := `
secret "file" {
  from_env_file { path = "dev.env" }
}
secret "one" {
  from_env_file {
    path = "dev.env"
    keys = ["B"]
  }
  env_var = "C"
}
secret "integ" {
  from_integration {
    name = "pg"
    keys = ["A", "PASSWORD"]
  }
}
secret "all" {
  from_integration { name = "pg" }
  env_var = "A"
}
secret "svc" { from_service = "A" }
`
	for _, tc := range []struct {
		name, sandbox, want string
	}{
		{"distinct", `env = { D = "x" }
  env_from = [secret.one, secret.svc]`, ""},
		{"integration without keys names nothing known", `env_from = [secret.file, secret.all]`, ""},
		{"listed twice", `env_from = [secret.svc, secret.svc]`,
			`main.hcl:25:27: env_from lists secret.svc twice (first at main.hcl:25:15)`},
		{"env file keys", `env_from = [secret.integ, secret.file]`,
			`main.hcl:25:29: environment variable A is set twice: by env_from secret.file (a key of its env file dev.env) and by env_from secret.integ (a key of its integration pg) (first at main.hcl:25:15)`},
		{"env_var of one key", `env = { C = "x" }
  env_from = [secret.one]`,
			`main.hcl:26:15: environment variable C is set twice: by env_from secret.one (its env_var) and by env (first at main.hcl:25:15)`},
		{"service name", `env_from = [secret.svc, secret.file]`,
			`main.hcl:25:27: environment variable A is set twice: by env_from secret.file (a key of its env file dev.env) and by env_from secret.svc (the name of its from_service) (first at main.hcl:25:15)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{
				"dev.env": "A=1\nB=2\n",
				"main.hcl": `project = "demo"` + secrets + `sandbox "dev" {
  image { from = "python:3.12-slim" }
  ` + tc.sandbox + `
}
`,
			})
			_, err := Compile(context.Background(), Input{Path: filepath.Join(dir, "main.hcl")})
			got := ""
			var cerr *Error
			if errors.As(err, &cerr) {
				got = strings.ReplaceAll(cerr.Diagnostics.Error(), dir+"/", "")
			} else if err != nil {
				t.Fatalf("Compile() error = %v", err)
			}
			if got != tc.want {
				t.Errorf("Compile() diagnostics:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
