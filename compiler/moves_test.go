package compiler

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"cc.dev/cc/schema"
)

// sha64 is a digest for pinned base references.
const sha64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestMovesSameDesired: issue 10: moves, forgetting, adoption. The
// same moved (a chain), removed and import declarations in CUE and HCL
// compile to byte-identical Desired states, the chain resolved to the
// address the configuration declares, each with its declaration's range.
func TestMovesSameDesired(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"cue/main.cue": `project: "demo"
volumes: cache2: size: "1Gi"
sandboxes: dev2: image: from: "python:3.12-slim@sha256:` + sha64 + `"
moved: [
	{from: "volume.cache", to: "volume.cache1"},
	{from: "volume.cache1", to: "volume.cache2"},
	{from: "sandbox.dev", to: "sandbox.dev2"},
]
removed: ["volume.scratch"]
imports: [{to: "volume.shared", id: "build-cache"}]
`,
		"hcl/main.hcl": `project = "demo"
variable "cache_id" { default = "build-cache" }
volume "cache2" { size = "1Gi" }
sandbox "dev2" {
  image { from = "python:3.12-slim@sha256:` + sha64 + `" }
}
moved {
  from = volume.cache
  to   = volume.cache1
}
moved {
  from = volume.cache1
  to   = volume.cache2
}
moved {
  from = sandbox.dev
  to   = sandbox.dev2
}
removed { from = volume.scratch }
import {
  to = volume.shared
  id = var.cache_id
}
`,
	}
	for name, src := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c := compileJSON(t, filepath.Join(dir, "cue"), Input{})
	h := compileJSON(t, filepath.Join(dir, "hcl"), Input{})
	if !bytes.Equal(c, h) {
		t.Fatalf("CUE and HCL compile differently:\n%s", cmp.Diff(string(c), string(h)))
	}
	res, err := Compile(t.Context(), Input{Path: filepath.Join(dir, "hcl")})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Desired
	want := []schema.Moved{{From: "sandbox.dev", To: "sandbox.dev2"}, {From: "volume.cache", To: "volume.cache2"}, {From: "volume.cache1", To: "volume.cache2"}}
	if diff := cmp.Diff(want, d.Moves, cmpopts.IgnoreFields(schema.Moved{}, "Range")); diff != "" {
		t.Errorf("Moves (-want +got):\n%s", diff)
	}
	if len(d.Removed) != 1 || d.Removed[0].Address != "volume.scratch" || len(d.Imports) != 1 || d.Imports[0].Unowned() != "volume.build-cache" {
		t.Errorf("Removed = %+v, Imports = %+v", d.Removed, d.Imports)
	}
	for _, m := range d.Moves {
		if m.Range == nil || m.Range.Start.Line == 0 {
			t.Errorf("move %s has no range", m.From)
		}
	}
}
