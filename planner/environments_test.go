package planner_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"cc.dev/cc/planner"
)

// envPlanFile is a plan file of project app in environment prod.
func envPlanFile(t *testing.T) []byte {
	t.Helper()
	d := desired(res(t, "volume.v", map[string]any{"size": "1Gi"}))
	d.Project = "app/prod"
	st := applied(desired(), 0)
	st.Project = "app/prod"
	p := diff(t, d, st, planner.Options{})
	f := planner.NewFile(p, d, st, planner.Config{Lang: "hcl"})
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// issue 12: environments. A plan of a project in an environment names it
// in its JSON, text and Markdown views; a plan file keeps it, and one
// whose environment disagrees with its project is refused when read.
func TestEnvironmentPlanViews(t *testing.T) {
	b := envPlanFile(t)
	f, err := planner.ReadFile(b)
	if err != nil {
		t.Fatalf("ReadFile() = %v", err)
	}
	p := f.Plan
	if p.Project != "app/prod" || p.Env != "prod" {
		t.Fatalf("plan project, environment = %q, %q; want app/prod, prod", p.Project, p.Env)
	}
	var text, md bytes.Buffer
	planner.WriteText(&text, p, planner.TextOptions{})
	if !strings.Contains(text.String(), "Plan for project app, environment prod at state serial 0.") {
		t.Errorf("text view:\n%s\nwant the environment in its header", text.String())
	}
	planner.WriteMarkdown(&md, p, planner.MarkdownOptions{})
	if !strings.Contains(md.String(), "### cc plan: `app`, environment `prod`\n") {
		t.Errorf("Markdown view:\n%s\nwant the environment in its heading", md.String())
	}
	for _, bad := range []string{"dev", ""} {
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		m["plan"].(map[string]any)["environment"] = bad
		tampered, _ := json.Marshal(m)
		if _, err := planner.ReadFile(tampered); err == nil || !strings.Contains(err.Error(), `project "app/prod" (environment "`+bad+`")`) {
			t.Errorf("ReadFile(environment %q) = %v, want it refused", bad, err)
		}
	}
	// The default environment has no "environment" at all.
	if def, _ := samplePlanFile(t); bytes.Contains(def, []byte(`"environment"`)) {
		t.Errorf("a plan of the default environment names one:\n%s", def)
	}
}
