package planner_test

import (
	"strings"
	"testing"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// TestItem8SensitiveChangeIsUpdate: issue 8 item 8. Hashes are made
// without sensitive values, so a changed one is known only from the
// service's comparison (Options.SensitiveChanged): the resource is then
// updated, a function gets a new version, and so does whatever uses an
// image whose sensitive value changed. The state has the values only as
// the placeholder; those the service found unchanged are not shown as
// changed, and no view shows a value.
func TestItem8SensitiveChangeIsUpdate(t *testing.T) {
	const canary = "Zq7canaryX"
	sensRes := func(addr string, spec map[string]any, sens []string, deps ...string) schema.Resource {
		r := res(t, addr, spec, deps...)
		r.Sensitive = sens
		h, err := schema.RedactedHash(r.Spec, sens)
		if err != nil {
			t.Fatal(err)
		}
		r.Hash = h
		return r
	}
	img := sensRes("image.i", map[string]any{"from": "python:3", "steps": []any{map[string]any{"env": map[string]any{"vars": map[string]any{"K": canary}}}}},
		[]string{"/steps/0/env/vars/K"})
	f := sensRes("function.f", map[string]any{"image": img.Hash, "handler": "m:f", "env": map[string]any{"T": canary, "P": "x"}}, []string{"/env/T"}, "image.i")
	g := res(t, "function.g", map[string]any{"image": img.Hash, "handler": "m:g"}, "image.i")
	d := desired(img, f, g)
	st := applied(d, 3)
	for i := range st.Resources { // the service sends no sensitive value
		r := &st.Resources[i]
		r.Spec = planner.Redact(r.Spec, r.Sensitive)
	}
	p, err := planner.Diff(d, st, planner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Changed() {
		t.Fatalf("unchanged values: the plan changes %v", addrs(p))
	}

	p, err = planner.Diff(d, st, planner.Options{SensitiveChanged: map[string]bool{"image.i": true}})
	if err != nil {
		t.Fatal(err)
	}
	if c := change(t, p, "image.i"); c.Action != planner.Update || !strings.Contains(reasons(c), "a sensitive value changed") {
		t.Errorf("image.i: %v, reasons %q; want an update because a sensitive value changed", c.Action, reasons(c))
	}
	for _, a := range []string{"function.f", "function.g"} {
		c := change(t, p, a)
		if c.Action != planner.Update || c.Version == nil || c.Version.Action != "new" || c.Version.Number != 2 ||
			!strings.Contains(reasons(c), "a sensitive value of image.i changed") {
			t.Errorf("%s: %v version %+v reasons %q; want an update to a new version 2 because image.i's value changed", a, c.Action, c.Version, reasons(c))
		}
		for _, fc := range c.Fields {
			if fc.Path == "env.T" {
				t.Errorf("%s: env.T shown as changed, though the service found it equal", a)
			}
		}
	}

	p, err = planner.Diff(d, st, planner.Options{SensitiveChanged: map[string]bool{"function.f": true}})
	if err != nil {
		t.Fatal(err)
	}
	c := change(t, p, "function.f")
	if c.Action != planner.Update || c.Version == nil || c.Version.Number != 2 || !strings.Contains(reasons(c), "a sensitive value changed") {
		t.Errorf("function.f: %v version %+v reasons %q", c.Action, c.Version, reasons(c))
	}
	if len(p.Changes) != 1 {
		t.Errorf("the plan changes %v, want function.f only", addrs(p))
	}
	for format, out := range renderAll(t, p) {
		if strings.Contains(out, canary) {
			t.Errorf("the %s view shows the sensitive value:\n%s", format, out)
		}
	}
}

// TestItem8SensitiveValuePutBack: issue 8 item 8. A sensitive value put
// back reuses the version the service says was made with it.
func TestItem8SensitiveValuePutBack(t *testing.T) {
	f := res(t, "function.f", map[string]any{"handler": "m:f", "env": map[string]any{"T": "(sensitive)"}})
	f.Sensitive = []string{"/env/T"}
	d := desired(f)
	st := applied(d, 3)
	sr := st.Lookup("function.f")
	sr.Version = 2
	sr.Versions = []planner.Version{{Version: 1, Hash: f.Hash, Key: "key-1"}, {Version: 2, Hash: f.Hash, Key: "key-2"}}
	for _, tt := range []struct {
		same   []int64
		action string
		number int64
	}{{[]int64{1}, "reuse", 1}, {[]int64{}, "new", 3}} {
		p, err := planner.Diff(d, st, planner.Options{SensitiveChanged: map[string]bool{"function.f": true},
			SensitiveVersions: map[string][]int64{"function.f": tt.same}})
		if err != nil {
			t.Fatal(err)
		}
		c := change(t, p, "function.f")
		if c.Version == nil || c.Version.Action != tt.action || c.Version.Number != tt.number {
			t.Errorf("versions made with the local values %v: version %+v, want %s %d", tt.same, c.Version, tt.action, tt.number)
		}
	}
}
