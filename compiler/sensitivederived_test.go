package compiler

import (
	"context"
	"strings"
	"testing"
)

// TestDiagnosticsNeverQuoteAPartOfSensitive: a diagnostic quotes no part
// of a sensitive value either, nor a value made from one. The scrubber
// finds the value written whole; a function's reason (tonumber of the
// value reversed, file of its first characters, jsondecode's "invalid
// character") and a validation's error message built from a part of it
// are withheld instead; a duplicate key made from one is not quoted; and
// CUE's judgement of a sensitive value too short for the scrubber (a
// value a sensitive condition chose) says "(sensitive value)".
func TestDiagnosticsNeverQuoteAPartOfSensitive(t *testing.T) {
	const canary = "Zq7Wv9Xk3J"
	head := `project = "p"
variable "p" {
  type      = string
  default   = "` + canary + `"
  sensitive = true
}
variable "j" {
  type      = string
  default   = "{\"k\": ` + canary + `}"
  sensitive = true
}
variable "t" {
  type      = string
  default   = "$${x.` + canary + `}"
  sensitive = true
}
`
	retries := func(expr string) string {
		return `function "f" {
  image { from = "python:3.12-slim" }
  source { paths = ["main.hcl"] }
  handler = "m:f"
  retries = ` + expr + `
}`
	}
	sandbox := func(attr string) string {
		return `sandbox "s" {
  image { from = "python:3.12-slim" }
  ` + attr + `
}`
	}
	tests := []struct {
		name, body string
		// reason is the function's own reason, which must not be shown;
		// "" for a validation.
		reason string
		// shown is what the diagnostic says in the value's place
		// ("withheld" when unset); forbid, what else it must not say.
		shown  string
		forbid []string
	}{
		{"a short value chosen by a sensitive condition", `volume "v" { size = var.p == "x" ? "1Gi" : "zq" }`, "", "(sensitive value)", []string{`"zq"`, "did you mean"}},
		{"a short sensitive value", `variable "s" {
  type      = string
  default   = "zq"
  sensitive = true
}
volume "v" { size = var.s }`, "", "(sensitive value)", []string{`"zq"`}},
		{"a file named like a sensitive value", `image "i" {
  from = "python:3.12-slim"
  copy {
    src = var.p
    dst = "/app"
  }
}`, "", "(sensitive value)", []string{"did you mean"}},
		{"a short sensitive file name", `variable "s" {
  type      = string
  default   = "zq"
  sensitive = true
}
dataset "d" { files = [var.s] }`, "", "(sensitive value)", []string{"file zq", "did you mean"}},
		{"a duplicate key of a for expression", sandbox(`env = {for x in [var.p, var.p] : substr(x, 0, 4) => "1"}`), "", "a sensitive value", nil},
		{"a duplicate key of an object", sandbox(`env = {(strrev(var.p)) = "1", (strrev(var.p)) = "2"}`), "", "a sensitive value", nil},
		{"tonumber reversed", retries(`tonumber(strrev(var.p))`), "cannot convert", "", nil},
		{"file of a part", retries(`length(file(substr(var.p, 1, 6)))`), "no file exists", "", nil},
		{"jsondecode", retries(`jsondecode(var.j).k`), "invalid character", "", nil},
		{"regex pattern", retries(`length(regex("${var.p}\\q", "x"))`), "escape", "", nil},
		{"format verb", retries(`length(format("%${substr(var.p, 0, 1)}", 1))`), "format verb", "", nil},
		{"formatdate", retries(`length(formatdate(var.p, "2020-01-01T00:00:00Z"))`), "format verb", "", nil},
		{"parseint of a part", retries(`parseint(substr(var.p, 0, 5), 10)`), "cannot parse", "", nil},
		{"templatestring", retries(`length(templatestring(var.t, { x = {} }))`), "attribute", "", nil},
		{"in a template's call", retries(`length(templatestring("$${tonumber(strrev(v))}", { v = var.p }))`), "cannot convert", "", nil},
		{"in a validation's condition", `variable "q" {
  type      = string
  default   = "{\"k\": ` + canary + `}"
  sensitive = true
  validation {
    condition     = jsondecode(var.q).k == 1
    error_message = "bad"
  }
}`, "invalid character", "", nil},
		{"validation message of a part", `variable "q" {
  type      = string
  default   = "` + canary + `"
  sensitive = true
  validation {
    condition     = length(var.q) > 40
    error_message = "too short: ${substr(var.q, 0, 5)}"
  }
}`, "", "", nil},
		{"validation message marked", `variable "q" {
  type    = string
  default = "x"
  validation {
    condition     = var.q == "y"
    error_message = sensitive("not y: ` + canary + `")
  }
}`, "", "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// A file whose name is close to the value, which a "did you
			// mean" would name.
			dir := writeProject(t, map[string]string{"main.hcl": head + tt.body + "\n", canary[:9] + "K": "x\n", "zz": "x\n"})
			_, err := Compile(context.Background(), Input{Path: dir})
			ce, text, _ := configError(t, err)
			// The source lines the text shows hold the canary where the
			// configuration writes it; the messages must not.
			var msgs strings.Builder
			for _, d := range ce.Diagnostics {
				msgs.WriteString(d.Summary + "\n" + d.Detail + "\n")
			}
			low := strings.ToLower(msgs.String())
			for _, s := range []string{canary, reverse(canary)} {
				s = strings.ToLower(s)
				for i := 0; i+4 <= len(s); i++ {
					if strings.Contains(low, s[i:i+4]) {
						t.Fatalf("a diagnostic quotes %q, a part of the sensitive value:\n%s", s[i:i+4], msgs.String())
					}
				}
			}
			if tt.reason != "" && strings.Contains(low, tt.reason) {
				t.Errorf("a diagnostic gives the function's reason (%q):\n%s", tt.reason, msgs.String())
			}
			for _, f := range tt.forbid {
				if strings.Contains(msgs.String(), f) {
					t.Errorf("a diagnostic says %s:\n%s", f, msgs.String())
				}
			}
			shown := tt.shown
			if shown == "" {
				shown = "withheld"
			}
			if !strings.Contains(low, shown) {
				t.Errorf("no diagnostic says %q:\n%s", shown, msgs.String())
			}
			if !strings.Contains(text, "main.hcl:") {
				t.Errorf("diagnostics without a position:\n%s", text)
			}
		})
	}
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// TestRefusalKeptWithSensitiveArgument: a refused function's reason is
// fixed text, so it is still given when the argument is sensitive.
func TestRefusalKeptWithSensitiveArgument(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": `project = "p"
variable "p" {
  type      = string
  default   = "Zq7Wv9Xk3J"
  sensitive = true
}
volume "v" { size = nonsensitive(var.p) }
`})
	_, err := Compile(context.Background(), Input{Path: dir})
	ce, _, _ := configError(t, err)
	if s := ce.Diagnostics.Error(); !strings.Contains(s, "cc never removes the sensitive mark") || strings.Contains(s, "withheld") {
		t.Errorf("nonsensitive(var.p) = %s, want the refusal's reason", s)
	}
}
