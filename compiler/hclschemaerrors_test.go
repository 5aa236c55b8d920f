package compiler

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestSchemaErrorsJudgeOnlyRefused: when the fast check refuses a resource
// of an HCL project, CUE judges that resource (with the project), not
// every one: a typo in one of 10,000 resources took CUE 7 s and 1.7 GB
// to report. The error is the one judging the whole gives (crossCheck
// holds every test's errors to that); with the fast check's refusals
// spread over several resources and kinds, CUE gets exactly those.
func TestSchemaErrorsJudgeOnlyRefused(t *testing.T) {
	defer func(c bool) { crossCheck = c }(crossCheck)
	crossCheck = false
	var judged []int
	validateCUEHook = func(cfg map[string]any) {
		n := 0
		for _, coll := range []string{"sandboxes", "volumes"} {
			m, _ := cfg[coll].(map[string]any)
			n += len(m)
		}
		judged = append(judged, n)
	}
	defer func() { validateCUEHook = nil }()
	var b strings.Builder
	b.WriteString("project = \"p\"\n")
	for i := range 50 {
		cpu := `"500m"`
		if i == 17 || i == 33 {
			cpu = `"lots"`
		}
		fmt.Fprintf(&b, "sandbox \"s%d\" {\n  image = { from = \"python:3.12-slim\" }\n  command = [\"sleep\", \"infinity\"]\n  resources {\n    requests {\n      cpu = %s\n    }\n  }\n}\n", i, cpu)
		size := `"1Gi"`
		if i == 40 {
			size = `"big"`
		}
		fmt.Fprintf(&b, "volume \"v%d\" {\n  size = %s\n}\n", i, size)
	}
	dir := writeProject(t, map[string]string{"main.hcl": b.String()})
	_, err := Compile(context.Background(), Input{Path: dir})
	if err == nil {
		t.Fatal("Compile() = nil error, want the three invalid values")
	}
	for _, want := range []string{`"lots"`, `"big"`, "main.hcl:"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error = %v, want it to name %s", err, want)
		}
	}
	if len(judged) != 1 || judged[0] != 3 {
		t.Errorf("CUE judged configurations of %v resources, want one of 3 (those the fast check refused)", judged)
	}
}
