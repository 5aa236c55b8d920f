package planner_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

const outputCanary = "canary-plan-output-6b2e"

func outs(kv ...string) []schema.Output {
	var out []schema.Output
	for i := 0; i+1 < len(kv); i += 2 {
		o := schema.Output{Name: strings.TrimPrefix(kv[i], "!"), Value: json.RawMessage(kv[i+1]), Sensitive: strings.HasPrefix(kv[i], "!")}
		out = append(out, o)
	}
	return out
}

// TestOutputChanges: issue 12: outputs. The plan lists the outputs that
// change (create, update, delete, sorted by name), never a sensitive
// value; a plan whose only changes are outputs is not "No changes"; a
// destroy deletes every output.
func TestOutputChanges(t *testing.T) {
	vol := res(t, "volume.v", map[string]any{"size": "1Gi"})
	d := desired(vol)
	st := applied(d, 3)
	d.Outputs = outs("a", `1`, "!tok", `"`+outputCanary+`"`, "url", `"https://y"`)
	st.Outputs = outs("gone", `true`, "!tok", `"old"`, "url", `"https://x"`, "a", `1`)
	p := diff(t, d, st, planner.Options{})
	want := []planner.OutputChange{
		{Name: "gone", Action: planner.Delete, Before: json.RawMessage(`true`)},
		{Name: "tok", Action: planner.Update, Sensitive: true},
		{Name: "url", Action: planner.Update, Before: json.RawMessage(`"https://x"`), After: json.RawMessage(`"https://y"`)},
	}
	if d := cmp.Diff(want, p.Outputs); d != "" {
		t.Errorf("Outputs (-want +got):\n%s", d)
	}
	if !p.Changed() || len(p.Changes) != 0 {
		t.Errorf("Changed() = %v with %d changes, want a changed plan of outputs only", p.Changed(), len(p.Changes))
	}
	views := renderAll(t, p)
	for view, s := range views {
		if strings.Contains(s, outputCanary) {
			t.Errorf("the %s view shows the sensitive output:\n%s", view, s)
		}
		if strings.Contains(s, "No changes") {
			t.Errorf("the %s view says No changes:\n%s", view, s)
		}
	}
	for _, line := range []string{"Changes to Outputs:\n", "  - gone = true -> null\n", "  ~ tok = (sensitive) -> (sensitive)\n",
		"  ~ url = \"https://x\" -> \"https://y\"\n", "0 to delete, 3 outputs to change.\n"} {
		if !strings.Contains(views["text"], line) {
			t.Errorf("text view lacks %q:\n%s", line, views["text"])
		}
	}
	if !strings.Contains(views["markdown"], "**Changes to Outputs:**") || !strings.Contains(views["json"], `"output_changes": [`) {
		t.Errorf("Markdown or JSON view lacks the outputs:\n%s\n%s", views["markdown"], views["json"])
	}
	st.Outputs = d.Outputs
	if p := diff(t, d, st, planner.Options{}); p.Changed() {
		t.Errorf("the same outputs give changes %+v", p.Outputs)
	}
	p = diff(t, d, st, planner.Options{Destroy: true})
	if len(p.Outputs) != 3 || p.Outputs[0].Action != planner.Delete {
		t.Errorf("destroy plans outputs %+v, want every one deleted", p.Outputs)
	}
}

// TestPlanFileOutputs: issue 12: outputs. A plan file holds no sensitive
// output value, and the output changes and outputs it holds are checked
// when read.
func TestPlanFileOutputs(t *testing.T) {
	vol := res(t, "volume.v", map[string]any{"size": "1Gi"})
	d := desired(vol)
	st := applied(d, 3)
	st.Lineage = strings.Repeat("ab", 16)
	d.Outputs = outs("!tok", `"`+outputCanary+`"`, "url", `"https://y"`)
	p := diff(t, d, st, planner.Options{})
	f := planner.NewFile(p, d, st, planner.Config{Lang: "hcl"})
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte(outputCanary)) {
		t.Fatalf("the plan file holds the sensitive output:\n%s", b.String())
	}
	if _, err := planner.ReadFile(b.Bytes()); err != nil {
		t.Fatalf("ReadFile() = %v", err)
	}
	if need := f.NeedsSensitive(); !cmp.Equal(need, []string{"output.tok"}) {
		t.Errorf("NeedsSensitive() = %v, want [output.tok]", need)
	}
	for name, edit := range map[string]func(m map[string]any){
		"bad name": func(m map[string]any) { oc(m)[0].(map[string]any)["name"] = "1x" },
		"action":   func(m map[string]any) { oc(m)[0].(map[string]any)["action"] = "replace" },
		"value": func(m map[string]any) {
			oc(m)[1].(map[string]any)["after"] = strings.Repeat("x", schema.MaxOutputValue+1)
		},
		"sensitive": func(m map[string]any) { oc(m)[0].(map[string]any)["after"] = "x" },
		"desired": func(m map[string]any) {
			m["desired"].(map[string]any)["outputs"] = []any{map[string]any{"name": "-", "value": 1}}
		},
	} {
		var m map[string]any
		if err := json.Unmarshal(b.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		bad, _ := json.Marshal(m)
		if _, err := planner.ReadFile(bad); err == nil {
			t.Errorf("ReadFile(%s) = nil error, want refused", name)
		}
	}
}

func oc(m map[string]any) []any { return m["plan"].(map[string]any)["output_changes"].([]any) }
