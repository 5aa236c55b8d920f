package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/internal/servicetest"
)

// canaryProject uses a secret (its value from $CANARY_SECRET) and a
// sensitive variable in an image step, a sandbox's env and a function's
// env.
const canaryProject = `project = "canary"

variable "token" {
  type      = string
  sensitive = true
}

secret "api" {
  from_env = "CANARY_SECRET"
}

image "app" {
  from = "python:3.12-slim"
  env { vars = { KEY = "key=${var.token}" } }
}

sandbox "s" {
  image = image.app
  env   = { T = var.token, API = secret.api }
}

function "f" {
  image = image.app
  source { paths = ["src"] }
  handler = "m:f"
  env     = { T = var.token, API = secret.api }
}
`

// TestReplicasCanaryNotInDumpNorLogs is issue 14's acceptance 5: canary
// values of a secret and of a sensitive variable, applied through two
// replicas on one PostgreSQL database (then changed, and applied again),
// are in no table of the database (a plain SQL pg_dump of it) in
// plaintext, hex, base64 or as a sha256 prefix, and in no line of either
// replica's log (JSON).
func TestReplicasCanaryNotInDumpNorLogs(t *testing.T) {
	db := servicetest.Postgres(t)
	ps := startReplicas(t, db, 2)
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "main.hcl"), canaryProject)
	writeFile(t, filepath.Join(dir, "src", "m.py"), "def f(): pass\n")
	canaries := []string{"canary-secret-7f3a9c1e5b", "canary-var-2d8e4b6a0c", "canary-secret-7f3a9c1e5b-2", "canary-var-2d8e4b6a0c-2"}
	for round := 0; round < 2; round++ {
		env := []string{"CANARY_SECRET=" + canaries[2*round]}
		v := "token=" + canaries[2*round+1]
		for _, args := range [][]string{
			{"apply", "--auto-approve", "--allow-data-loss", "--var", v, "main.hcl"},
			{"plan", "--detailed-exitcode", "--var", v, "main.hcl"},
			{"state", "show", "--var", v, "sandbox.s", "main.hcl"},
		} {
			if o, e, code := runClient(t, client(dir, addrs(ps...), env, args...)); code != 0 {
				t.Fatalf("cc %s exited %d:\n%s%s", args[0], code, o, e)
			}
		}
	}
	dump, err := exec.Command(pgTool(t, "pg_dump"), "--format=plain", db).Output()
	if err != nil {
		t.Fatalf("pg_dump: %v", err)
	}
	if !bytes.Contains(dump, []byte("COPY public.secret_revisions")) || !bytes.Contains(dump, []byte("sandbox.s")) {
		t.Fatalf("the dump lacks the project's rows:\n%.2000s", dump)
	}
	places := map[string][]byte{"pg_dump": dump}
	for _, p := range ps {
		if p.calls("") == 0 {
			t.Errorf("replica %s served no mutation", p.name)
		}
		places["the log of replica "+p.name] = []byte(p.log.String())
	}
	for _, c := range canaries {
		for place, b := range places {
			for _, form := range canaryForms(c) {
				if bytes.Contains(b, []byte(form)) {
					t.Errorf("%s holds %q, a form of the canary %s", place, form, c)
				}
			}
		}
	}
}

// canaryForms are the ways a value could show in a dump or a log: as
// itself, in hex (either case), in base64 (standard and URL alphabets,
// at each of the three alignments it may have in a longer value), and
// the first 8 hex digits of its sha256.
func canaryForms(c string) []string {
	forms := []string{c, hex.EncodeToString([]byte(c)), strings.ToUpper(hex.EncodeToString([]byte(c)))}
	for shift := 0; shift < 3; shift++ {
		b := append(bytes.Repeat([]byte{0}, shift), c...)
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			s := enc.EncodeToString(b)
			// The groups holding the filler or the padding depend on
			// what surrounds the value: keep those that do not.
			start := 0
			if shift > 0 {
				start = 4
			}
			forms = append(forms, s[start:len(s)-4])
		}
	}
	sum := sha256.Sum256([]byte(c))
	return append(forms, hex.EncodeToString(sum[:])[:8])
}

// TestCanaryFormsFindEncodings checks the sweep of
// TestReplicasCanaryNotInDumpNorLogs (issue 14): a canary inside a longer
// value, at any offset, is found in hex and in base64.
func TestCanaryFormsFindEncodings(t *testing.T) {
	const c = "canary-var-2d8e4b6a0c"
	for pre := 0; pre < 6; pre++ {
		v := append(append(bytes.Repeat([]byte("p"), pre), c...), "-suffix"...)
		for _, enc := range []string{hex.EncodeToString(v), base64.StdEncoding.EncodeToString(v), base64.RawURLEncoding.EncodeToString(v)} {
			found := false
			for _, f := range canaryForms(c) {
				found = found || strings.Contains(enc, f)
			}
			if !found {
				t.Errorf("no form of %s found in %s (%d bytes before it)", c, enc, pre)
			}
		}
	}
}
