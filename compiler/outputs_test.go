package compiler

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"cc.dev/cc/schema"
)

// TestOutputsBothLanguages: issue 12: outputs. An HCL output block and a
// CUE outputs entry give the same Desired.Outputs, sorted by name, with
// canonical JSON values, descriptions and the sensitive flag; HCL outputs
// see variables, locals and the resources the loader exposes.
func TestOutputsBothLanguages(t *testing.T) {
	hcl := compileOK(t, writeProject(t, map[string]string{"main.cc.hcl": `project = "outs"
variable "port" { default = 443 }
locals { host = "api.example.com" }
volume "cache" { size = "1Gi" }
secret "key" { from_env = "KEY" }
output "url" {
  value       = "https://${local.host}:${var.port}"
  description = "where it answers"
}
output "obj" { value = { b = [true, null], a = 1.5 } }
output "key" {
  value     = secret.key.from_env
  sensitive = true
}
`}), Input{})
	cue := compileOK(t, writeProject(t, map[string]string{"main.cue": `package outs
project: "outs"
_port: 443
volumes: cache: size: "1Gi"
secrets: key: from_env: "KEY"
outputs: {
	url: {value: "https://api.example.com:\(_port)", description: "where it answers"}
	obj: value: {a: 1.5, b: [true, null]}
	key: {value: secrets.key.from_env, sensitive: true}
}
`}), Input{})
	want := []schema.Output{
		{Name: "key", Value: json.RawMessage(`"KEY"`), Sensitive: true},
		{Name: "obj", Value: json.RawMessage(`{"a":1.5,"b":[true,null]}`)},
		{Name: "url", Value: json.RawMessage(`"https://api.example.com:443"`), Description: "where it answers"},
	}
	opt := cmpopts.IgnoreFields(schema.Output{}, "Range")
	if d := cmp.Diff(want, hcl.Outputs, opt); d != "" {
		t.Errorf("HCL outputs (-want +got):\n%s", d)
	}
	if d := cmp.Diff(want, cue.Outputs, opt); d != "" {
		t.Errorf("CUE outputs (-want +got):\n%s", d)
	}
	if hcl.Outputs[2].Range == nil || hcl.Outputs[2].Range.Start.Line != 6 {
		t.Errorf("HCL output url range = %v, want line 6", hcl.Outputs[2].Range)
	}
}

// TestOutputErrors: issue 12: outputs. An output deriving from a sensitive
// value (a sensitive variable, a secret) without sensitive = true is a
// positioned error with Terraform's words; so are a duplicate, a bad name,
// a missing value and an unknown attribute. No error shows the value.
func TestOutputErrors(t *testing.T) {
	const head = `project = "outs"
variable "tok" {
  sensitive = true
  default   = "canary-c0mp1le"
}
secret "key" { from_env = "KEY" }
`
	for _, tc := range []struct{ name, main, src, want string }{
		{"sensitive var", "main.cc.hcl", head + `output "t" { value = "x${var.tok}" }`, `main.cc.hcl:7:22: Output refers to sensitive values`},
		{"secret", "main.cc.hcl", head + `output "k" { value = secret.key }`, `main.cc.hcl:7:22: Output refers to sensitive values`},
		{"duplicate", "main.cc.hcl", head + "output \"a\" { value = 1 }\noutput \"a\" { value = 2 }", `main.cc.hcl:8:8: output "a" is defined twice`},
		{"bad name", "main.cc.hcl", head + `output "1a" { value = 1 }`, `main.cc.hcl:7:8: output name "1a": want an identifier`},
		{"no value", "main.cc.hcl", head + `output "a" { description = "d" }`, `main.cc.hcl:7:1: output "a" needs a value`},
		{"unknown attr", "main.cc.hcl", head + `output "a" {
  value = 1
  sensitiv = true
}`, `main.cc.hcl:9:3: unknown attribute "sensitiv" in output "a"; did you mean "sensitive"?`},
		{"cue secret", "main.cue", "project: \"outs\"\nsecrets: key: from_env: \"KEY\"\noutputs: k: value: secrets.key\n", `main.cue:3:13: Output refers to sensitive values`},
		{"cue bad name", "main.cue", "project: \"outs\"\noutputs: \"1a\": value: 1\n", `main.cue:2`},
		{"cue no value", "main.cue", "project: \"outs\"\noutputs: a: description: \"d\"\n", `main.cue:2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeProject(t, map[string]string{tc.main: tc.src})
			got := compileErr(t, filepath.Join(dir, tc.main))
			if !strings.Contains(got, tc.want) {
				t.Errorf("errors =\n%s\nwant %q", got, tc.want)
			}
			if strings.Contains(got, "canary") {
				t.Errorf("errors show the sensitive value:\n%s", got)
			}
		})
	}
}
