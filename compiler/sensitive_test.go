package compiler

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/schema"
)

const sensitiveProject = `project = "p"
variable "k" {
  type      = string
  default   = "Zq7canaryX"
  sensitive = true
}
variable "other" {
  type      = string
  default   = "another-secret"
  sensitive = true
}
image "app" {
  from = "python:3.12-slim"
  env { vars = { KEY = "key=${var.k}", PLAIN = "x" } }
  run { commands = ["echo ${var.k}", "true"] }
  pip { packages = [var.k] }
  workdir { path = "/${var.k}" }
  copy {
    src = "main.hcl"
    dst = "/srv/${var.k}"
  }
  dockerfile { commands = ["LABEL k=${var.k}"] }
  entrypoint = ["/bin/${var.k}"]
  cmd        = ["run", var.k]
}
image "same" {
  from = "python:3.12-slim"
  env { vars = { KEY = var.other } }
}
image "twin" {
  from = "python:3.12-slim"
  env { vars = { KEY = var.k } }
}
image "derived" { from = image.app }
sandbox "uses" {
  image = image.app
  env   = { P = "plain" }
}
sandbox "own" {
  image = image.app
  env   = { T = var.k, P = "plain" }
}
sandbox "inline" {
  image {
    from = "python:3.12-slim"
    env { vars = { KEY = var.k } }
  }
}
function "f" {
  image = image.derived
  source { paths = ["main.hcl"] }
  handler = "m:f"
  env     = { T = upper(var.k) }
}
volume "plain" { size = "1Gi" }
`

// TestItem6SensitivityFollowsValues: issue 8 item 6. A sensitive value is
// marked in every resource and image whose spec holds it, and only there:
// a resource that uses an image by hash does not hold the image's values.
func TestItem6SensitivityFollowsValues(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": sensitiveProject})
	d := compileOK(t, dir, Input{})
	want := map[string][]string{
		"image.app": {"/cmd/1", "/entrypoint/0", "/steps/0/env/vars/KEY", "/steps/1/run/commands/0", "/steps/2/pip/packages/0",
			"/steps/3/workdir/path", "/steps/4/copy/dst", "/steps/5/dockerfile/commands/0"},
		"image.same":     {"/steps/0/env/vars/KEY"},
		"image.twin":     {"/steps/0/env/vars/KEY"},
		"image.derived":  nil,
		"sandbox.uses":   nil,
		"sandbox.own":    {"/env/T"},
		"sandbox.inline": nil,
		"function.f":     {"/env/T"},
		"volume.plain":   nil,
	}
	for addr, w := range want {
		r := d.Lookup(addr)
		if r == nil {
			t.Fatalf("no %s", addr)
		}
		if !cmp.Equal(r.Sensitive, w) {
			t.Errorf("%s sensitive = %v, want %v", addr, r.Sensitive, w)
		}
	}
	// The inline image has its own pointer.
	var inline *schema.Resource
	for i := range d.Resources {
		r := &d.Resources[i]
		if r.Kind == schema.KindImage && r.Address != "image.app" && r.Address != "image.same" &&
			r.Address != "image.twin" && r.Address != "image.derived" {
			inline = r
		}
	}
	if inline == nil || !cmp.Equal(inline.Sensitive, []string{"/steps/0/env/vars/KEY"}) {
		t.Errorf("inline image = %+v, want /steps/0/env/vars/KEY sensitive", inline)
	}
	// Every marked pointer names a value holding the canary, and no
	// unmarked value holds it.
	for _, r := range d.Resources {
		red, err := schema.RedactSpec(r.Spec, r.Sensitive)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(bytes.ToLower(red), []byte("zq7canaryx")) {
			t.Errorf("%s: an unmarked value holds the sensitive value: %s", r.Address, red)
		}
	}
}

// TestItem8HashesRevealNothing: issue 8 item 8. A hash is made without
// sensitive values (the same for any value), resources without them keep
// their plain hash, and two images that differ only in a sensitive value
// stay two.
func TestItem8HashesRevealNothing(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": sensitiveProject})
	a := compileOK(t, dir, Input{})
	b := compileOK(t, dir, Input{Vars: []string{"k=a-different-value"}})
	if len(a.Resources) != len(b.Resources) {
		t.Fatalf("%d and %d resources", len(a.Resources), len(b.Resources))
	}
	for i, r := range a.Resources {
		if r.Hash != b.Resources[i].Hash || r.Address != b.Resources[i].Address {
			t.Errorf("%s: hash %s with one value, %s (%s) with another", r.Address, r.Hash, b.Resources[i].Hash, b.Resources[i].Address)
		}
		if len(r.Sensitive) == 0 && r.Hash != schema.Hash(r.Spec) {
			t.Errorf("%s has no sensitive value but its hash is not its spec's", r.Address)
		}
		if len(r.Sensitive) > 0 && r.Hash == schema.Hash(r.Spec) {
			t.Errorf("%s: hash over the spec with its sensitive values", r.Address)
		}
	}
	if string(a.Lookup("image.same").Spec) == string(a.Lookup("image.twin").Spec) {
		t.Fatal("test setup: image.same and image.twin should differ in their sensitive value")
	}
	if a.Lookup("image.same").Hash == a.Lookup("image.twin").Hash || a.Lookup("image.same").Address == a.Lookup("image.twin").Address {
		t.Errorf("image.same and image.twin, differing only in a sensitive value, are one image")
	}
	// Nothing derived from the canary: no hash, nor any 8-digit prefix of
	// its sha256, anywhere in the (redacted) desired state.
	red := *a
	red.Resources = append([]schema.Resource(nil), a.Resources...)
	for i := range red.Resources {
		r := &red.Resources[i]
		s, err := schema.RedactSpec(r.Spec, r.Sensitive)
		if err != nil {
			t.Fatal(err)
		}
		r.Spec = s
	}
	out, err := red.MarshalCanonical()
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"Zq7canaryX", "ZQ7CANARYX"} {
		sum := sha256.Sum256([]byte(v))
		h := hex.EncodeToString(sum[:])
		if bytes.Contains(out, []byte(v)) || bytes.Contains(out, []byte(h[:8])) {
			t.Errorf("the desired state holds %s or its sha256", v)
		}
	}
}

// TestItem6UnpinnedBaseNotShown: issue 8 item 6. A base reference from a
// sensitive variable, not pinned in cc.lock, is listed without its value.
func TestItem6UnpinnedBaseNotShown(t *testing.T) {
	dir := writeProject(t, map[string]string{"main.hcl": `project = "p"
variable "k" {
  type      = string
  default   = "registry.example/zq7canaryx"
  sensitive = true
}
image "i" { from = "${var.k}:1" }
`})
	res, err := Compile(context.Background(), Input{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Unlocked) != 1 || bytes.Contains([]byte(res.Unlocked[0]), []byte("zq7canaryx")) {
		t.Errorf("Unlocked = %q, want one reference without the sensitive value", res.Unlocked)
	}
}
