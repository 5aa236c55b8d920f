package compiler

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/diag"
)

// TestItem7DiagnosticsNeverQuoteSensitive: issue 8 item 7. An error about
// a value from a sensitive variable says what is wrong without quoting it,
// in the text and the JSON of every diagnostic.
func TestItem7DiagnosticsNeverQuoteSensitive(t *testing.T) {
	const canary = "Zq7canaryX"
	sum := sha256.Sum256([]byte(canary))
	hexSum := hex.EncodeToString(sum[:])
	head := `project = "p"
variable "p" {
  type      = string
  default   = "` + canary + `"
  sensitive = true
}
`
	img := `image { from = "python:3.12-slim" }`
	tests := []struct {
		name, body string
		varFile    string // a -var-file's content
	}{
		{"cpu", `sandbox "s" {
  ` + img + `
  resources {
    requests { cpu = var.p }
  }
}`, ""},
		{"memory", `sandbox "s" {
  ` + img + `
  resources {
    limits { memory = var.p }
  }
}`, ""},
		{"lifetime", `sandbox "s" {
  ` + img + `
  lifetime = var.p
}`, ""},
		{"volume size", `volume "v" { size = var.p }`, ""},
		{"image from", `image "i" { from = "${var.p}:::" }`, ""},
		{"file", `image "i" {
  from = "python:3.12-slim"
  env { vars = { K = file(var.p) } }
}`, ""},
		{"tonumber", `function "f" {
  ` + img + `
  source { paths = ["main.hcl"] }
  handler = "m:f"
  retries = tonumber(var.p)
}`, ""},
		{"env key", `sandbox "s" {
  ` + img + `
  env = { ("1-${var.p}") = "x" }
}`, ""},
		{"port", `sandbox "s" {
  ` + img + `
  network {
    ingress_mode  = "public"
    exposed_ports = [var.p]
  }
}`, ""},
		{"lower in a name", `image "i" {
  from = "python:3.12-slim"
  env { vars = { (lower("9-${var.p}")) = "x" } }
}`, ""},
		{"upper in workdir", `image "i" {
  from = "python:3.12-slim"
  workdir { path = upper(var.p) }
}`, ""},
		{"timeout", `function "f" {
  ` + img + `
  source { paths = ["main.hcl"] }
  handler = "m:f"
  timeout = "${var.p}s"
}`, ""},
		{"copy src", `image "i" {
  from = "python:3.12-slim"
  copy {
    src = var.p
    dst = "/app"
  }
}`, ""},
		{"dataset file", `dataset "d" { files = ["${var.p}.csv"] }`, ""},
		{"pip index", `image "i" {
  from = "python:3.12-slim"
  pip {
    packages  = ["x"]
    index_url = var.p
  }
}`, ""},
		{"validation", `variable "q" {
  type      = string
  default   = "` + canary + `"
  sensitive = true
  validation {
    condition     = strlen(var.q) < 3
    error_message = "too long: ${var.q}"
  }
}`, ""},
		{"var file type", `variable "n" {
  type      = number
  sensitive = true
}`, "n = \"" + canary + "\"\n"},
		{"var file cpu", `sandbox "s" {
  ` + img + `
  resources {
    requests { cpu = var.p }
  }
}`, "p = \"" + canary + "-2\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"main.hcl": head + tt.body + "\n"}
			in := Input{}
			if tt.varFile != "" {
				files["vars/x.hcl"] = tt.varFile
			}
			dir := writeProject(t, files)
			in.Path = dir
			if tt.varFile != "" {
				in.VarFiles = []string{filepath.Join(dir, "vars/x.hcl")}
			}
			_, err := Compile(context.Background(), in)
			_, text, js := configError(t, err)
			for _, out := range []string{text, js} {
				low := strings.ToLower(out)
				if strings.Contains(low, strings.ToLower(canary)) || strings.Contains(low, hexSum[:8]) {
					t.Errorf("a diagnostic quotes the sensitive value:\n%s", out)
				}
			}
			if !strings.Contains(text, "main.hcl:") {
				t.Errorf("diagnostics without a position:\n%s", text)
			}
		})
	}
}

// configError is err as a configuration error, and its diagnostics as
// text (with their source lines) and as JSON.
func configError(t *testing.T, err error) (ce *Error, text, js string) {
	t.Helper()
	if !errors.As(err, &ce) {
		t.Fatalf("Compile() = %v, want a configuration error", err)
	}
	var tb, jb bytes.Buffer
	diag.WriteText(&tb, ce.Diagnostics, func(f string) []byte { return ce.Files[f] })
	if err := diag.WriteJSON(&jb, ce.Diagnostics); err != nil {
		t.Fatal(err)
	}
	return ce, tb.String(), jb.String()
}
