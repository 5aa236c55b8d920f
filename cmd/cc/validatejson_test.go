package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/internal/golden"
)

// TestValidateJSONGolden is issue 12's acceptance 4 (validate --json): the
// one Terraform-shaped document cc validate --json prints on stdout for a
// valid HCL project (a required variable unset: validate needs no value),
// an invalid HCL project (with a sensitive variable, whose value appears
// nowhere) and an invalid CUE project, each against its golden file in
// testdata/golden; exit 0 when valid, 1 when not; nothing on stderr.
func TestValidateJSONGolden(t *testing.T) {
	goldens, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir("testdata/validate")
	for _, tc := range []struct {
		dir  string
		code int
	}{{"valid", 0}, {"invalid", 1}, {"invalid-cue", 1}} {
		t.Run(tc.dir, func(t *testing.T) {
			out, errs := mustCC(t, tc.code, "validate", "--json", tc.dir)
			if errs != "" {
				t.Errorf("stderr: %s", errs)
			}
			if strings.Contains(out, "Zq7canaryX") {
				t.Errorf("validate --json shows a sensitive value:\n%s", out)
			}
			var doc struct {
				FormatVersion string `json:"format_version"`
				Valid         bool   `json:"valid"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.FormatVersion != "1.0" || doc.Valid != (tc.code == 0) {
				t.Errorf("document %+v (%v), want format_version 1.0, valid %v", doc, err, tc.code == 0)
			}
			golden.Check(t, filepath.Join(goldens, "validate-"+tc.dir+".json"), []byte(out))
		})
	}
}

// TestGraphDotGolden is issue 12's acceptance 4 (cc graph): the DOT graph
// of examples/multi-service against its golden file, the same bytes from
// HCL and from CUE.
func TestGraphDotGolden(t *testing.T) {
	goldens, err := filepath.Abs("testdata/golden")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	copyTree(t, "../../examples/multi-service", dir)
	t.Chdir(dir)
	t.Setenv("NO_COLOR", "1")
	hcl, _ := mustCC(t, 0, "graph", "--format", "dot", "main.hcl")
	golden.Check(t, filepath.Join(goldens, "graph-multi-service.dot"), []byte(hcl))
	if cue, _ := mustCC(t, 0, "graph", "main.cue"); cue != hcl {
		t.Errorf("the CUE graph differs from the HCL one:\n%s", cue)
	}
}
