package compiler

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// schemaCopy is the embedded schema with edit applied to one file: a test
// copy, as a field added to the schema would be.
func schemaCopy(t *testing.T, file, old, new string) *schema.Schema {
	t.Helper()
	m := fstest.MapFS{}
	for _, f := range schema.Default().Files() {
		src := string(f.Src)
		if f.Name == file {
			if !strings.Contains(src, old) {
				t.Fatalf("%s has no %q", file, old)
			}
			src = strings.Replace(src, old, new, 1)
		}
		m[f.Name] = &fstest.MapFile{Data: []byte(src)}
	}
	s, err := schema.Load(m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// specOf is the compiled spec of the resource at addr, decoded.
func specOf(t *testing.T, d *schema.Desired, addr string) map[string]any {
	t.Helper()
	for _, r := range d.Resources {
		if r.Address == addr {
			var m map[string]any
			if err := json.Unmarshal(r.Spec, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatalf("no %s in the desired state", addr)
	return nil
}

// appliedState is what a service holds after applying d.
func appliedState(d *schema.Desired) *planner.State {
	st := &planner.State{Project: d.Project, Serial: 1}
	for _, r := range d.Resources {
		st.Resources = append(st.Resources, planner.Resource{Address: r.Address, Kind: r.Kind, Hash: r.Hash, Spec: r.Spec, DependsOn: r.DependsOn})
		if r.Kind == schema.KindImage {
			st.Images = append(st.Images, planner.Image{Hash: r.Hash, Spec: r.Spec})
		}
	}
	return st
}

const pinnedBase = "python:3.12-slim@sha256:" + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestIssue16AcceptanceNewField: a field added to a test copy of the
// schema, and nowhere else, reaches the desired state in both languages,
// and a change of it replaces the sandbox when the schema says
// @cc(replace), updates it in place when it does not (issue 16,
// acceptance 1). No Go type has the fields: they ride in Extra.
func TestIssue16AcceptanceNewField(t *testing.T) {
	s := schemaCopy(t, "workload.cue", "\ttemp_dir?: #AbsPath @cc(replace)\n",
		"\ttemp_dir?: #AbsPath @cc(replace)\n\tdebug_port?: int & >0 @cc(replace)\n\tdebug_note?: string\n")
	cueSrc := func(port int, note string) string {
		return `package p
project: "p"
images: base: from: "` + pinnedBase + `"
sandboxes: dev: {
	image:      images.base
	debug_port: ` + itoa(port) + `
	debug_note: "` + note + `"
}
`
	}
	hclSrc := func(port int, note string) string {
		return `project = "p"
image "base" { from = "` + pinnedBase + `" }
sandbox "dev" {
  image      = image.base
  debug_port = ` + itoa(port) + `
  debug_note = "` + note + `"
}
`
	}
	compileWith := func(name, src string, sch *schema.Schema) (*schema.Desired, error) {
		res, err := Compile(context.Background(), Input{Path: filepath.Join(writeProject(t, map[string]string{name: src}), name), Schema: sch})
		if err != nil {
			return nil, err
		}
		return res.Desired, nil
	}
	for _, lang := range []struct {
		file string
		src  func(int, string) string
	}{{"main.cue", cueSrc}, {"main.hcl", hclSrc}} {
		t.Run(lang.file, func(t *testing.T) {
			if _, err := compileWith(lang.file, lang.src(9000, "a"), nil); err == nil || !strings.Contains(err.Error(), "debug_port") {
				t.Fatalf("the embedded schema accepted debug_port (%v); the test proves nothing", err)
			}
			d, err := compileWith(lang.file, lang.src(9000, "a"), s)
			if err != nil {
				t.Fatal(err)
			}
			spec := specOf(t, d, "sandbox.dev")
			if spec["debug_port"] != float64(9000) || spec["debug_note"] != "a" {
				t.Fatalf("sandbox.dev's spec = %v, want debug_port 9000 and debug_note a", spec)
			}
			st := appliedState(d)
			for _, tc := range []struct {
				port    int
				note    string
				action  planner.Action
				because []string
			}{
				{9001, "a", planner.Replace, []string{"debug_port"}},
				{9000, "b", planner.Update, nil},
			} {
				d2, err := compileWith(lang.file, lang.src(tc.port, tc.note), s)
				if err != nil {
					t.Fatal(err)
				}
				p, err := planner.Diff(d2, st, planner.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Changes) != 1 || p.Changes[0].Addr != "sandbox.dev" {
					t.Fatalf("port %d note %s: changes %+v, want one of sandbox.dev", tc.port, tc.note, p.Changes)
				}
				c := p.Changes[0]
				if c.Action != tc.action || strings.Join(c.ReplaceBecause, ",") != strings.Join(tc.because, ",") {
					t.Errorf("port %d note %s: %v because %v, want %v because %v", tc.port, tc.note, c.Action, c.ReplaceBecause, tc.action, tc.because)
				}
			}
		})
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestIssue16ExtraFieldsCount: a field only the schema has counts where
// configurations are compared by content: an inline secret resolves to the
// declared one equal to it in that field too (issue 16 item 2), and the
// cross-check (on in tests) compares it.
func TestIssue16ExtraFieldsCount(t *testing.T) {
	s := schemaCopy(t, "secret.cue", "\tenv_var?: #EnvName\n", "\tenv_var?: #EnvName\n\ttier?: string\n")
	src := `package p
project: "p"
images: base: from: "` + pinnedBase + `"
secrets: {
	a: {from_env: "A", tier: "gold"}
	b: {from_env: "A", tier: "silver"}
}
sandboxes: dev: {
	image: images.base
	env_from: [{from_env: "A", tier: "silver"}]
}
`
	dir := writeProject(t, map[string]string{"main.cue": src})
	res, err := Compile(context.Background(), Input{Path: filepath.Join(dir, "main.cue"), Schema: s})
	if err != nil {
		t.Fatal(err)
	}
	spec := specOf(t, res.Desired, "sandbox.dev")
	from, _ := json.Marshal(spec["env_from"])
	if !strings.Contains(string(from), `"ref":"secret.b"`) {
		t.Errorf("env_from = %s, want secret.b (tier silver)", from)
	}
	if a, b := specOf(t, res.Desired, "secret.a"), specOf(t, res.Desired, "secret.b"); a["tier"] != "gold" || b["tier"] != "silver" {
		t.Errorf("secret specs %v and %v, want their tiers", a, b)
	}
}
