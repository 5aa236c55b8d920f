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

const fileCanary = "plan-file-canary-5e2f"

// samplePlanFile is a plan file with a create, an update with a sensitive
// value, a delete and an order between them.
func samplePlanFile(t testing.TB) ([]byte, *planner.File) {
	t.Helper()
	vol := res(t, "volume.v", map[string]any{"size": "1Gi"})
	sb := res(t, "sandbox.s", map[string]any{"image": digest("i"), "env": map[string]any{"TOKEN": fileCanary}}, "volume.v")
	sb.Sensitive = []string{"/env/TOKEN"}
	old := res(t, "sandbox.s", map[string]any{"image": digest("i"), "env": map[string]any{"TOKEN": "old-" + fileCanary}}, "volume.gone")
	old.Sensitive = sb.Sensitive
	// Specs with sensitive values are hashed without them (issue 8 item 8):
	// the service says the value changed.
	for _, r := range []*schema.Resource{&sb, &old} {
		h, err := schema.RedactedHash(r.Spec, r.Sensitive)
		if err != nil {
			t.Fatal(err)
		}
		r.Hash = h
	}
	st := applied(desired(old, res(t, "volume.gone", map[string]any{"size": "1Gi"})), 12)
	d := desired(vol, sb)
	d.Root = "/work/project"
	p := diff(t, d, st, planner.Options{SensitiveChanged: map[string]bool{"sandbox.s": true}})
	f := planner.NewFile(p, d, st, planner.Config{File: "main.hcl", Lang: "hcl"})
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), f
}

func TestPlanFileRoundTrip(t *testing.T) {
	b, f := samplePlanFile(t)
	if bytes.Contains(b, []byte(fileCanary)) {
		t.Fatalf("the plan file holds a sensitive value:\n%s", b)
	}
	got, err := planner.ReadFile(b)
	if err != nil {
		t.Fatalf("ReadFile() = %v", err)
	}
	if diff := cmp.Diff(jsonOf(t, f.Plan), jsonOf(t, got.Plan)); diff != "" {
		t.Errorf("plan after a round trip (-want +got):\n%s", diff)
	}
	if got.Config.File != "main.hcl" || got.State.Serial != 12 || got.Config.Fingerprint == "" {
		t.Errorf("read file: config file %q, serial %d, fingerprint %q", got.Config.File, got.State.Serial, got.Config.Fingerprint)
	}
	// Issue 9 item 16: the file names no directory; the project is its
	// name and lineage, and the reader applying it gives the directory.
	if bytes.Contains(b, []byte("/work/project")) || got.Desired.Root != "" {
		t.Errorf("the plan file names the project directory (root %q):\n%s", got.Desired.Root, b)
	}
	if need := got.NeedsSensitive(); !cmp.Equal(need, []string{"sandbox.s"}) {
		t.Errorf("NeedsSensitive() = %v, want [sandbox.s]", need)
	}
	if s := got.Desired.Lookup("sandbox.s"); !strings.Contains(string(s.Spec), `"TOKEN":"(sensitive)"`) {
		t.Errorf("sandbox.s spec in the file = %s, want the value redacted", s.Spec)
	}
}

func jsonOf(t testing.TB, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestReadFileErrors(t *testing.T) {
	good, _ := samplePlanFile(t)
	edit := func(f func(m map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(good, &m); err != nil {
			t.Fatal(err)
		}
		f(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	plan := func(m map[string]any) map[string]any { return m["plan"].(map[string]any) }
	changes := func(m map[string]any) []any { return plan(m)["changes"].([]any) }
	resources := func(m map[string]any) []any { return m["desired"].(map[string]any)["resources"].([]any) }
	tests := []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "not a cc plan file"},
		{"HCL", []byte("project = \"p\"\n"), "not a cc plan file"},
		{"not JSON", []byte("{\n  \"kind\": \"cc-plan\",\n  oops\n}"), "3:3: invalid character 'o'"},
		{"truncated", good[:len(good)/2], "unexpected end of JSON input"},
		{"not a plan", []byte(`{"kind": "terraform"}`), "not a cc plan file"},
		{"no version", edit(func(m map[string]any) { delete(m, "format_version") }), "format version none"},
		{"newer version", edit(func(m map[string]any) { m["format_version"] = 2 }), "format version 2; this cc reads version 1"},
		{"unknown field", edit(func(m map[string]any) { m["extra"] = 1 }), `unknown field "extra"`},
		{"wrong type", edit(func(m map[string]any) { plan(m)["serial"] = "twelve" }), "cannot unmarshal string into Go struct field"},
		{"no plan", edit(func(m map[string]any) { delete(m, "plan") }), "no plan"},
		{"other project", edit(func(m map[string]any) { plan(m)["project"] = "q" }), `project "q"`},
		{"bad project", edit(func(m map[string]any) { plan(m)["project"] = "Q!" }), `project "Q!"`},
		{"serials differ", edit(func(m map[string]any) { plan(m)["serial"] = 3 }), "plan serial 3 and state serial 12"},
		// Issue 9 item 16: a plan file names no directory; the file it was
		// planned from is a name in the project directory, never a path.
		{"absolute root", edit(func(m map[string]any) { m["config"].(map[string]any)["root"] = "/home/me/proj" }), "a plan file of an earlier cc, which named its project by absolute path (config.root)"},
		{"config file a path", edit(func(m map[string]any) { m["config"].(map[string]any)["file"] = "../other/main.hcl" }), `config file "../other/main.hcl": want the name of a .cue or .hcl file`},
		{"config file absolute", edit(func(m map[string]any) { m["config"].(map[string]any)["file"] = "/etc/main.hcl" }), `config file "/etc/main.hcl"`},
		{"config file not config", edit(func(m map[string]any) { m["config"].(map[string]any)["file"] = "state.db" }), `config file "state.db"`},
		{"bad action", edit(func(m map[string]any) { changes(m)[0].(map[string]any)["action"] = "explode" }), `unknown action "explode"`},
		{"no-op action", edit(func(m map[string]any) { changes(m)[0].(map[string]any)["action"] = "no-op" }), "action no-op"},
		{"bad address", edit(func(m map[string]any) { changes(m)[0].(map[string]any)["address"] = "../../etc" }), "bad address"},
		{"needs unknown", edit(func(m map[string]any) { changes(m)[0].(map[string]any)["needs"] = []any{"volume.x"} }), "needs volume.x, which the plan does not change"},
		{"needs cycle", edit(func(m map[string]any) {
			for _, c := range changes(m) {
				c := c.(map[string]any)
				if c["address"] == "volume.v" {
					c["needs"] = []any{"sandbox.s"}
				}
			}
		}), "cycle"},
		{"hash mismatch", edit(func(m map[string]any) {
			for _, r := range resources(m) {
				r := r.(map[string]any)
				if r["address"] == "volume.v" {
					r["spec"] = map[string]any{"size": "9Gi"}
				}
			}
		}), "volume.v: the spec does not have the hash"},
		{"unsorted", edit(func(m map[string]any) {
			rs := resources(m)
			rs[0], rs[1] = rs[1], rs[0]
		}), "not sorted"},
		{"planned hash differs", edit(func(m map[string]any) { changes(m)[2].(map[string]any)["after_hash"] = digest("x") }), "planned hash"},
		{"tree digest", edit(func(m map[string]any) {
			m["desired"].(map[string]any)["trees"] = map[string]any{digest("t"): []any{map[string]any{"path": "a", "mode": "0644", "size": 1, "digest": digest("a")}}}
		}), "its entries do not have that digest"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := planner.ReadFile(tt.b)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("ReadFile() = %v, want an error with %q", err, tt.want)
			}
		})
	}
}

func TestSnapshotChanges(t *testing.T) {
	f1 := res(t, "function.f", map[string]any{"handler": "a"})
	f2 := res(t, "function.f", map[string]any{"handler": "b"})
	v := res(t, "volume.v", map[string]any{"size": "1Gi"})
	before := applied(desired(f1, v), 3)
	setSecret(before, "secret.s", 1, "s")
	snap := planner.SnapshotOf(before)
	after := applied(desired(f1, res(t, "sandbox.new", map[string]any{"image": "x"})), 7)
	after.Resources[0].Hash, after.Resources[0].Version = f2.Hash, 2
	setSecret(after, "secret.s", 2, "s")
	want := []string{
		"function.f changed (" + f1.Hash[:19] + " → " + f2.Hash[:19] + ", version 1 → 2)",
		"sandbox.new was created",
		"secret.s has a new value (revision 2)",
		"volume.v was deleted",
	}
	if diff := cmp.Diff(want, snap.Changes(after)); diff != "" {
		t.Errorf("Changes() (-want +got):\n%s", diff)
	}
	if got := snap.Changes(before); len(got) != 0 {
		t.Errorf("Changes(same state) = %v", got)
	}
}

// FuzzReadFile: no input makes ReadFile panic, and whatever it accepts
// writes and reads back the same.
//
//	go test ./planner -run '^$' -fuzz FuzzReadFile -fuzztime 5m
func FuzzReadFile(f *testing.F) {
	good, _ := samplePlanFile(f)
	f.Add(good)
	f.Add(good[:len(good)/3])
	f.Add([]byte(`{"format_version":1,"kind":"cc-plan"}`))
	f.Add([]byte(`{"format_version":1,"kind":"cc-plan","config":{"file":"main.hcl","lang":"hcl"},"state":{"serial":0,"resources":{}},"desired":{"format_version":1,"project":"p","resources":[]},"plan":{"format_version":1,"project":"p","serial":0,"summary":{},"changes":[]}}`))
	f.Add(bytes.ReplaceAll(good, []byte(`"needs"`), []byte(`"nee"`)))
	f.Add(lifecyclePlanFile(f)) // issue 10: lifecycle
	f.Fuzz(func(t *testing.T, b []byte) {
		pf, err := planner.ReadFile(b)
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an empty error")
			}
			return
		}
		var out bytes.Buffer
		if err := pf.Write(&out); err != nil {
			t.Fatalf("Write() of an accepted file = %v", err)
		}
		again, err := planner.ReadFile(out.Bytes())
		if err != nil {
			t.Fatalf("ReadFile(Write(ReadFile(b))) = %v", err)
		}
		var b1, b2 bytes.Buffer
		planner.WriteJSON(&b1, pf.Plan)
		planner.WriteJSON(&b2, again.Plan)
		if !bytes.Equal(b1.Bytes(), b2.Bytes()) {
			t.Fatal("the plan changed in a round trip")
		}
		// Every view renders whatever was accepted.
		planner.WriteText(&out, pf.Plan, planner.TextOptions{Color: true})
		planner.WriteMarkdown(&out, pf.Plan, planner.MarkdownOptions{})
	})
}
