package planner_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

func TestAction(t *testing.T) {
	for a, want := range map[planner.Action]string{planner.NoOp: "no-op", planner.Create: "create", planner.Update: "update",
		planner.Replace: "replace", planner.Delete: "delete", planner.Action(9): "Action(9)"} {
		if got := a.String(); got != want {
			t.Errorf("Action(%d).String() = %q, want %q", int(a), got, want)
		}
		if a.IsReplace() != (a == planner.Replace) {
			t.Errorf("%v.IsReplace() = %v", a, a.IsReplace())
		}
	}
	var a planner.Action
	if err := a.UnmarshalText([]byte("replace")); err != nil || a != planner.Replace {
		t.Errorf("UnmarshalText(replace) = %v, %v", a, err)
	}
	if err := a.UnmarshalText([]byte("explode")); err == nil {
		t.Error("UnmarshalText(explode) = nil error")
	}
}

func sandbox(image string, extra map[string]any) map[string]any {
	s := map[string]any{"image": image, "command": []string{"sleep", "infinity"}, "tags": []string{"a"}, "lifetime": "2h"}
	for k, v := range extra {
		s[k] = v
	}
	return s
}

// TestActions: which change gives which action, and which fields force a
// replacement, kind by kind (planner.ReplaceFields).
func TestActions(t *testing.T) {
	img := digest("image")
	base := []schema.Resource{
		res(t, "sandbox.s", sandbox(img, nil)),
		res(t, "volume.v", map[string]any{"size": "10Gi"}),
		res(t, "evaluation.e", map[string]any{"dataset": map[string]any{"ref": "dataset.d", "hash": digest("d1")}, "scorers": []any{}}),
		res(t, "secret.k", map[string]any{"from_env": "K"}),
		res(t, "volume.gone", map[string]any{"size": "1Gi"}),
	}
	st := applied(desired(base...), 7)
	tests := []struct {
		name    string
		r       schema.Resource
		action  planner.Action
		because []string
	}{
		{"sandbox tags change in place", res(t, "sandbox.s", sandbox(img, map[string]any{"tags": []string{"b"}})), planner.Update, nil},
		{"sandbox lifetime changes in place", res(t, "sandbox.s", sandbox(img, map[string]any{"lifetime": "4h"})), planner.Update, nil},
		{"sandbox network changes in place", res(t, "sandbox.s", sandbox(img, map[string]any{"network": map[string]any{"egress_allow": []string{"x.com"}}})), planner.Update, nil},
		{"sandbox image replaces", res(t, "sandbox.s", sandbox(digest("other"), nil)), planner.Replace, []string{"image"}},
		{"sandbox command replaces", res(t, "sandbox.s", sandbox(img, map[string]any{"command": []string{"serve"}})), planner.Replace, []string{"command"}},
		{"sandbox env and resources replace", res(t, "sandbox.s", sandbox(img, map[string]any{"env": map[string]any{"A": "1"}, "resources": map[string]any{"gpu": map[string]any{"count": 1}}})), planner.Replace, []string{"env", "resources"}},
		{"volume grows in place", res(t, "volume.v", map[string]any{"size": "20Gi"}), planner.Update, nil},
		{"volume grows across units", res(t, "volume.v", map[string]any{"size": "11G"}), planner.Update, nil},
		{"volume shrinks: replace", res(t, "volume.v", map[string]any{"size": "5Gi"}), planner.Replace, []string{"size"}},
		{"volume of unknown size: replace", res(t, "volume.v", map[string]any{"size": "lots"}), planner.Replace, []string{"size"}},
		{"evaluation on a new dataset revision: in place", res(t, "evaluation.e", map[string]any{"dataset": map[string]any{"ref": "dataset.d", "hash": digest("d2")}, "scorers": []any{}}), planner.Update, nil},
		{"evaluation on another dataset: replace", res(t, "evaluation.e", map[string]any{"dataset": map[string]any{"ref": "dataset.other", "hash": digest("d1")}, "scorers": []any{}}), planner.Replace, []string{"dataset.ref"}},
		{"secret source changes in place", res(t, "secret.k", map[string]any{"from_env": "K2"}), planner.Update, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rs []schema.Resource
			for _, b := range base {
				if b.Address == tt.r.Address {
					rs = append(rs, tt.r)
				} else if b.Address != "volume.gone" {
					rs = append(rs, b)
				}
			}
			p := diff(t, desired(rs...), st, planner.Options{})
			c := change(t, p, tt.r.Address)
			if c.Action != tt.action || !cmp.Equal(c.ReplaceBecause, tt.because) {
				t.Errorf("%s = %v because %v, want %v because %v", tt.r.Address, c.Action, c.ReplaceBecause, tt.action, tt.because)
			}
			if g := change(t, p, "volume.gone"); g.Action != planner.Delete || reasons(g) != "no longer in the configuration" {
				t.Errorf("volume.gone = %v (%s), want a delete", g.Action, reasons(g))
			}
			if len(p.Changes) != 2 || p.Summary.Unchanged != len(base)-2 {
				t.Errorf("changes %v, %d unchanged; want 2 changes", addrs(p), p.Summary.Unchanged)
			}
			for _, f := range c.Fields {
				if f.ForcesReplacement != (len(tt.because) > 0) {
					t.Errorf("field %s forces replacement = %v", f.Path, f.ForcesReplacement)
				}
			}
		})
	}
}

func TestNoChanges(t *testing.T) {
	d := desired(res(t, "volume.v", map[string]any{"size": "1Gi"}), res(t, "function.f", map[string]any{"handler": "h"}))
	p := diff(t, d, applied(d, 3), planner.Options{})
	if p.Changed() || p.Summary.Unchanged != 2 || p.Serial != 3 {
		t.Fatalf("plan = %+v, want no changes, 2 unchanged at serial 3", p)
	}
	if got := renderAll(t, p)["text"]; !strings.HasPrefix(got, "No changes.") {
		t.Errorf("text = %q", got)
	}
}

// TestVersions: a changed function gets a new version; one changed back
// to content an older version has reuses that version.
func TestVersions(t *testing.T) {
	v1 := res(t, "function.f", map[string]any{"handler": "a:b", "timeout": "30s"})
	v2 := res(t, "function.f", map[string]any{"handler": "a:b", "timeout": "60s"})
	st := applied(desired(v1), 4)
	p := diff(t, desired(v2), st, planner.Options{})
	c := change(t, p, "function.f")
	if c.Action != planner.Update || !cmp.Equal(c.Version, &planner.VersionChange{Action: "new", Number: 2, Current: 1}) {
		t.Fatalf("function.f = %v %+v, want update to new version 2", c.Action, c.Version)
	}
	if !strings.Contains(reasons(c), `timeout "30s" → "60s"`) {
		t.Errorf("reasons = %q, want the timeout change", reasons(c))
	}
	// Version 2 is current; going back to version 1's content reuses it.
	st.Resources[0].Hash, st.Resources[0].Spec, st.Resources[0].Version = v2.Hash, v2.Spec, 2
	st.Resources[0].Versions = append(st.Resources[0].Versions, planner.Version{Version: 2, Hash: v2.Hash})
	p = diff(t, desired(v1), st, planner.Options{})
	c = change(t, p, "function.f")
	if !cmp.Equal(c.Version, &planner.VersionChange{Action: "reuse", Number: 1, Current: 2}) {
		t.Fatalf("function.f version = %+v, want reuse of 1", c.Version)
	}
	if !strings.Contains(reasons(c), "same content as version 1") || p.Summary.ReusedVersions != 1 || p.Summary.NewVersions != 0 {
		t.Errorf("reasons %q, summary %+v; want the reuse explained and counted", reasons(c), p.Summary)
	}
	if got := planner.SummaryLine(p); got != "Plan: 0 to create, 1 to update, 0 to replace, 0 to delete; 1 version reused." {
		t.Errorf("SummaryLine() = %q", got)
	}
	// A new function is version 1.
	p = diff(t, desired(v1), nil, planner.Options{})
	if c := change(t, p, "function.f"); c.Action != planner.Create || c.Version.Number != 1 || c.Version.Action != "new" {
		t.Errorf("new function = %v %+v", c.Action, c.Version)
	}
}

// TestImageReasons: an image change is explained step by step, and what
// uses the image says so.
func TestImageReasons(t *testing.T) {
	ct := newContent()
	srcOld := ct.tree(t, map[string]string{"rank.py": "def rank(x):\n    return x\n", "util.py": "pass\n"})
	srcNew := ct.tree(t, map[string]string{"rank.py": "def rank(x):\n    return sorted(x)\n", "util.py": "pass\n", "new.py": ""})
	image := func(numpy, copyDigest string, extra ...any) map[string]any {
		steps := []any{
			map[string]any{"apt": map[string]any{"packages": []string{"git"}}},
			map[string]any{"pip": map[string]any{"packages": []string{"requests", numpy}}},
			map[string]any{"copy": map[string]any{"src": "handlers", "dst": "/app", "digest": copyDigest}},
		}
		steps = append(steps, extra...)
		return map[string]any{"from": "python:3.12-slim", "steps": steps, "cmd": []string{"python"}}
	}
	oldImg := res(t, "image.app", image("numpy", srcOld))
	newImg := res(t, "image.app", image("numpy==2.1", srcNew, map[string]any{"workdir": map[string]any{"path": "/app"}}))
	fn := func(img schema.Resource) schema.Resource {
		return res(t, "function.f", map[string]any{"image": img.Hash, "handler": "h"}, "image.app")
	}
	sb := func(img schema.Resource) schema.Resource {
		return res(t, "sandbox.s", sandbox(img.Hash, nil), "image.app")
	}
	st := applied(desired(oldImg, fn(oldImg), sb(oldImg)), 2)
	p := diff(t, desired(newImg, fn(newImg), sb(newImg)), st, planner.Options{Content: ct})

	want := []string{
		"step 2 (pip) numpy → numpy==2.1",
		"step 3 (copy handlers): handlers/new.py added, handlers/rank.py changed",
		`step 4 (workdir) added: /app`,
	}
	if got := reasons(change(t, p, "image.app")); got != strings.Join(want, "\n") {
		t.Errorf("image.app reasons:\n%s\nwant:\n%s", got, strings.Join(want, "\n"))
	}
	wantDep := "image changed: " + strings.Join(want, "; ")
	if got := reasons(change(t, p, "function.f")); got != wantDep {
		t.Errorf("function.f reasons:\n%s\nwant:\n%s", got, wantDep)
	}
	s := change(t, p, "sandbox.s")
	if s.Action != planner.Replace || reasons(s) != wantDep {
		t.Errorf("sandbox.s = %v:\n%s\nwant a replace:\n%s", s.Action, reasons(s), wantDep)
	}
	img := change(t, p, "image.app")
	var files []string
	for _, f := range img.Files {
		files = append(files, f.Path+" "+f.Op)
	}
	if !cmp.Equal(files, []string{"handlers/new.py added", "handlers/rank.py changed"}) {
		t.Errorf("image files = %v", files)
	}
	if d := img.Files[1].Diff; !strings.Contains(d, "-    return x\n+    return sorted(x)\n") || !strings.HasPrefix(d, "@@ -1,2 +1,2 @@\n") {
		t.Errorf("rank.py diff:\n%s", d)
	}
}

// TestSourceReasons: a function whose source changed names the file and
// shows its line diff; without the old file list it says so.
func TestSourceReasons(t *testing.T) {
	ct := newContent()
	old := ct.tree(t, map[string]string{"handlers/rank.py": "a\nb\nc\n", "handlers/io.py": "x\n"})
	cur := ct.tree(t, map[string]string{"handlers/rank.py": "a\nB\nc\n", "handlers/io.py": "x\n"})
	fn := func(tree string) schema.Resource {
		return res(t, "function.rank", map[string]any{"image": digest("i"), "handler": "h", "source": map[string]any{"paths": []string{"handlers"}, "digest": tree}})
	}
	st := applied(desired(fn(old)), 1)
	p := diff(t, desired(fn(cur)), st, planner.Options{Content: ct})
	c := change(t, p, "function.rank")
	if got := reasons(c); got != "source changed: handlers/rank.py" {
		t.Errorf("reasons = %q", got)
	}
	if len(c.Files) != 1 || c.Files[0].Diff != "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n" {
		t.Errorf("files = %+v", c.Files)
	}
	text := renderAll(t, p)["text"]
	if !strings.Contains(text, "~ file handlers/rank.py changed, in source\n") || !strings.Contains(text, "        -b\n") {
		t.Errorf("text view:\n%s", text)
	}
	// Without the service's old listing, the plan still says what.
	p = diff(t, desired(fn(cur)), st, planner.Options{Content: &content{}})
	if got := reasons(change(t, p, "function.rank")); !strings.Contains(got, "source changed (the service does not have the old file list") {
		t.Errorf("reasons without content = %q", got)
	}
}

func TestDatasetAndDependencyReasons(t *testing.T) {
	ct := newContent()
	ct.files[digest("a,b\n1,2\n")] = []byte("a,b\n1,2\n")
	ct.files[digest("a,b\n1,3\n")] = []byte("a,b\n1,3\n")
	ds := func(csv string) schema.Resource {
		return res(t, "dataset.d", map[string]any{"format": "csv", "files": []any{map[string]any{"path": "data/x.csv", "digest": digest(csv)}}})
	}
	ev := func(d schema.Resource) schema.Resource {
		return res(t, "evaluation.e", map[string]any{"dataset": map[string]any{"ref": "dataset.d", "hash": d.Hash}, "scorers": []any{}}, "dataset.d")
	}
	d1, d2 := ds("a,b\n1,2\n"), ds("a,b\n1,3\n")
	p := diff(t, desired(d2, ev(d2)), applied(desired(d1, ev(d1)), 5), planner.Options{Content: ct})
	if got := reasons(change(t, p, "dataset.d")); got != "dataset file data/x.csv changed" {
		t.Errorf("dataset reasons = %q", got)
	}
	if got := reasons(change(t, p, "evaluation.e")); got != "dataset.d has a new version: dataset file data/x.csv changed" {
		t.Errorf("evaluation reasons = %q", got)
	}
	if c := change(t, p, "evaluation.e"); !cmp.Equal(c.Needs, []string{"dataset.d"}) {
		t.Errorf("evaluation needs %v, want the dataset first", c.Needs)
	}
}

// TestSensitiveNeverShown: values from sensitive variables and secret
// values appear in no view of the plan, created, changed or deleted.
func TestSensitiveNeverShown(t *testing.T) {
	const canary1, canary2 = "hunter2-canary-old", "hunter2-canary-new"
	mk := func(v string) schema.Resource {
		r := res(t, "sandbox.s", sandbox(digest("i"), map[string]any{"env": map[string]any{"TOKEN": v, "PLAIN": "x"},
			"annotations": map[string]any{"note": "long\n" + v + "\ntext"}}))
		r.Sensitive = []string{"/annotations/note", "/env/TOKEN"}
		return r
	}
	img := res(t, "image.i", map[string]any{"from": "x", "steps": []any{map[string]any{"env": map[string]any{"vars": map[string]any{"K": canary1}}}}})
	img.Sensitive = []string{"/steps/0/env/vars/K"}
	img2 := res(t, "image.i", map[string]any{"from": "x", "steps": []any{map[string]any{"env": map[string]any{"vars": map[string]any{"K": canary2}}}}})
	img2.Sensitive = img.Sensitive
	secret := res(t, "secret.k", map[string]any{"from_env": "K"})
	old := applied(desired(mk(canary1), img, secret), 1)
	setSecret(old, "secret.k", 3, "o")
	local := map[string]planner.LocalSecret{"secret.k": {Source: "K", Fingerprint: label("n")}}
	plans := map[string]*planner.Plan{
		"create": diff(t, desired(mk(canary2), img2, secret), nil, planner.Options{Secrets: local}),
		"update": diff(t, desired(mk(canary2), img2, secret), old, planner.Options{Secrets: local}),
		"delete": diff(t, desired(), old, planner.Options{}),
	}
	for name, p := range plans {
		for format, out := range renderAll(t, p) {
			if strings.Contains(out, "hunter2") {
				t.Errorf("%s plan, %s view shows a sensitive value:\n%s", name, format, out)
			}
		}
	}
	u := plans["update"]
	s := change(t, u, "sandbox.s")
	if s.Action != planner.Replace {
		t.Errorf("sandbox.s = %v, want replace (env changed)", s.Action)
	}
	for _, f := range s.Fields {
		if !f.Sensitive || f.Before != nil || f.After != nil {
			t.Errorf("field %+v, want sensitive without values", f)
		}
	}
	if got := reasons(change(t, u, "image.i")); got != "step 1 (env) changed (sensitive value changed)" {
		t.Errorf("image reasons = %q", got)
	}
	k := change(t, u, "secret.k")
	if k.Action != planner.Update || k.SecretValue != "changed" || len(k.Fields) != 1 || !k.Fields[0].Sensitive ||
		reasons(k) != "secret value changed: K differs from revision 3, a new revision is made" {
		t.Errorf("secret.k = %+v", k)
	}
	text := renderAll(t, u)["text"]
	if !strings.Contains(text, "~ value: (sensitive value changed)") || !strings.Contains(text, "~ env.TOKEN: (sensitive value changed)") {
		t.Errorf("text view:\n%s", text)
	}
	// The same local value: no change at all.
	local["secret.k"] = planner.LocalSecret{Source: "K", Fingerprint: label("o")}
	if p := diff(t, desired(mk(canary1), img, secret), old, planner.Options{Secrets: local}); p.Changed() {
		t.Errorf("unchanged secret value: plan %v", addrs(p))
	}
	// No local value: a warning naming the variable, no change.
	local["secret.k"] = planner.LocalSecret{Source: "K", Problem: "the environment variable K is not set"}
	p := diff(t, desired(mk(canary1), img, secret), old, planner.Options{Secrets: local})
	if p.Changed() || len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "K is not set; the service keeps revision 3") {
		t.Errorf("missing value: changes %v, warnings %q", addrs(p), p.Warnings)
	}
}

// TestOrder: changes need what they refer to first; deletes come after
// every change of what referred to them.
func TestOrder(t *testing.T) {
	vol := res(t, "volume.v", map[string]any{"size": "1Gi"})
	sec := res(t, "secret.s", map[string]any{"from_env": "S"})
	fn := res(t, "function.f", map[string]any{"handler": "h", "env_from": []any{map[string]any{"ref": "secret.s", "hash": sec.Hash}}}, "secret.s", "volume.v")
	st := applied(desired(vol, sec, fn), 1)
	// The function no longer uses the secret, which is deleted; a new
	// volume appears and the function mounts it.
	vol2 := res(t, "volume.w", map[string]any{"size": "1Gi"})
	fn2 := res(t, "function.f", map[string]any{"handler": "h", "mount": "volume.w"}, "volume.v", "volume.w")
	p := diff(t, desired(vol, vol2, fn2), st, planner.Options{})
	if got := change(t, p, "secret.s"); got.Action != planner.Delete || !cmp.Equal(got.Needs, []string{"function.f"}) {
		t.Errorf("secret.s = %v needs %v, want a delete after function.f", got.Action, got.Needs)
	}
	if got := change(t, p, "function.f"); !cmp.Equal(got.Needs, []string{"volume.w"}) {
		t.Errorf("function.f needs %v, want volume.w", got.Needs)
	}
	// Destroy deletes in reverse: the function before what it used.
	p = diff(t, desired(vol, sec, fn), st, planner.Options{Destroy: true})
	if got := change(t, p, "volume.v"); got.Action != planner.Delete || !cmp.Equal(got.Needs, []string{"function.f"}) {
		t.Errorf("destroy: volume.v needs %v", got.Needs)
	}
	if len(p.Changes) != 3 || reasons(change(t, p, "function.f")) != "destroy: every resource of the project is deleted" {
		t.Errorf("destroy plan %v", addrs(p))
	}
}

func TestTargetsAndExcludes(t *testing.T) {
	a := res(t, "volume.a", map[string]any{"size": "1Gi"})
	b := res(t, "function.b", map[string]any{"handler": "b"}, "volume.a")
	c := res(t, "sandbox.c", map[string]any{"image": "x"}, "function.b")
	d := res(t, "volume.d", map[string]any{"size": "2Gi"})
	all := desired(a, b, c, d)
	tests := []struct {
		o         planner.Options
		want      []string
		skipped   []string
		wantError string
	}{
		{planner.Options{Targets: []string{"function.b"}}, []string{"function.b:create", "volume.a:create"}, []string{"sandbox.c", "volume.d"}, ""},
		{planner.Options{Excludes: []string{"function.b"}}, []string{"volume.a:create", "volume.d:create"}, []string{"function.b", "sandbox.c"}, ""},
		{planner.Options{Targets: []string{"sandbox.c"}, Excludes: []string{"volume.a"}}, nil, []string{"function.b", "sandbox.c", "volume.a", "volume.d"}, ""},
		{planner.Options{Targets: []string{"function.bb"}}, nil, nil, "--target function.bb: no such resource in the configuration or the state; did you mean function.b?"},
		{planner.Options{Replace: []string{"volume"}}, nil, nil, "--replace volume: not an address"},
		{planner.Options{Replace: []string{"image.x"}}, nil, nil, "no such resource"},
	}
	for _, tt := range tests {
		p, err := planner.Diff(all, nil, tt.o)
		if tt.wantError != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantError) {
				t.Errorf("Diff(%+v) = %v, want an error with %q", tt.o, err, tt.wantError)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if !cmp.Equal(addrs(p), tt.want) || !cmp.Equal(p.Skipped, tt.skipped) {
			t.Errorf("Diff(%+v) = %v skipping %v, want %v skipping %v", tt.o, addrs(p), p.Skipped, tt.want, tt.skipped)
		}
	}
	// --replace of an existing resource replaces it, and says why.
	p := diff(t, all, applied(all, 1), planner.Options{Replace: []string{"volume.d"}})
	if c := change(t, p, "volume.d"); c.Action != planner.Replace || reasons(c) != "replacement requested with --replace" || !cmp.Equal(c.ReplaceBecause, []string{"--replace"}) {
		t.Errorf("--replace: %+v", c)
	}
	img := res(t, "image.i", map[string]any{"from": "x"})
	if _, err := planner.Diff(desired(img), nil, planner.Options{Replace: []string{"image.i"}}); err == nil || !strings.Contains(err.Error(), "an image is a value") {
		t.Errorf("--replace image.i = %v", err)
	}
}

// TestImageAliases: each name of an image is its own address.
func TestImageAliases(t *testing.T) {
	img := res(t, "image.a", map[string]any{"from": "x"})
	img.Aliases = []string{"b"}
	p := diff(t, desired(img), nil, planner.Options{})
	if !cmp.Equal(addrs(p), []string{"image.a:create", "image.b:create"}) {
		t.Errorf("plan = %v", addrs(p))
	}
	if p := diff(t, desired(img), applied(desired(img), 2), planner.Options{}); p.Changed() {
		t.Errorf("applied aliases: plan %v", addrs(p))
	}
}

// TestFieldPaths: nested maps and lists, added, removed and changed, with
// long strings as line diffs.
func TestFieldPaths(t *testing.T) {
	long := strings.Repeat("line\n", 30)
	before := res(t, "sandbox.s", map[string]any{"annotations": map[string]any{"a.b": "1", "gone": "x", "text": long},
		"volume_mounts": []any{map[string]any{"path": "/a"}}, "tags": []string{"x", "y"}})
	after := res(t, "sandbox.s", map[string]any{"annotations": map[string]any{"a.b": "2", "text": strings.Replace(long, "line", "LINE", 1)},
		"volume_mounts": []any{map[string]any{"path": "/b"}, map[string]any{"path": "/c"}}, "tags": []string{"x"}})
	p := diff(t, desired(after), applied(desired(before), 1), planner.Options{})
	var got []string
	for _, f := range change(t, p, "sandbox.s").Fields {
		got = append(got, fmt.Sprintf("%s %s %s %s", f.Op, f.Path, f.Before, f.After))
		if f.Path == "annotations.text" && f.Diff != "@@ -1,4 +1,4 @@\n-line\n+LINE\n line\n line\n line\n" {
			t.Errorf("diff of a long string:\n%s", f.Diff)
		}
	}
	want := []string{
		`changed annotations["a.b"] "1" "2"`,
		`removed annotations.gone "x" `,
		`changed annotations.text "` + strings.ReplaceAll(long, "\n", `\n`) + `" "` + strings.ReplaceAll(strings.Replace(long, "line", "LINE", 1), "\n", `\n`) + `"`,
		`changed tags ["x","y"] ["x"]`,
		`changed volume_mounts[0].path "/a" "/b"`,
		`added volume_mounts[1].path  "/c"`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

// TestLineDiffBounded: a diff of a large file stays short and says what it
// left out.
func TestLineDiffBounded(t *testing.T) {
	var a, b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&a, "line %d\n", i)
		if i%10 == 0 {
			fmt.Fprintf(&b, "LINE %d %s\n", i, strings.Repeat("x", 500))
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	ct := newContent()
	old := ct.tree(t, map[string]string{"big.txt": a.String()})
	cur := ct.tree(t, map[string]string{"big.txt": b.String()})
	fn := func(tree string) schema.Resource {
		return res(t, "function.f", map[string]any{"handler": "h", "source": map[string]any{"paths": []string{"."}, "digest": tree}})
	}
	p := diff(t, desired(fn(cur)), applied(desired(fn(old)), 1), planner.Options{Content: ct})
	d := change(t, p, "function.f").Files[0].Diff
	lines := strings.Split(strings.TrimSuffix(d, "\n"), "\n")
	if len(lines) > 81 || !strings.HasSuffix(d, "more changed lines not shown\n") {
		t.Errorf("diff has %d lines, ends %q; want at most 81 and a note", len(lines), lines[len(lines)-1])
	}
	for _, l := range lines {
		if len(l) > 250 {
			t.Errorf("a line of %d bytes", len(l))
		}
	}
}

// TestDiffIsPure: the same inputs give the same bytes.
func TestDiffIsPure(t *testing.T) {
	ct := newContent()
	old := ct.tree(t, map[string]string{"a.py": "1\n", "b.py": "2\n"})
	cur := ct.tree(t, map[string]string{"a.py": "1\n", "b.py": "3\n", "c.py": "4\n"})
	mk := func(tree string, n int) *schema.Desired {
		var rs []schema.Resource
		for i := 0; i < n; i++ {
			rs = append(rs, res(t, fmt.Sprintf("function.f%d", i), map[string]any{"handler": "h", "source": map[string]any{"digest": tree}, "env": map[string]any{"I": fmt.Sprint(i)}}))
		}
		return desired(rs...)
	}
	st := applied(mk(old, 50), 1)
	var first map[string]string
	for i := 0; i < 5; i++ {
		got := renderAll(t, diff(t, mk(cur, 50), st, planner.Options{Content: ct}))
		if first == nil {
			first = got
			continue
		}
		for k := range got {
			if got[k] != first[k] {
				t.Fatalf("run %d: %s view differs", i, k)
			}
		}
	}
}

func TestColor(t *testing.T) {
	d := desired(res(t, "volume.v", map[string]any{"size": "1Gi"}))
	views := renderAll(t, diff(t, d, nil, planner.Options{}))
	if strings.Contains(views["text"], "\x1b[") {
		t.Error("text view without colour has escape codes")
	}
	if !strings.Contains(views["color"], "\x1b[32m+\x1b[0m \x1b[1mvolume.v\x1b[0m") {
		t.Errorf("colour view:\n%q", views["color"])
	}
	if bytes.Contains([]byte(views["markdown"]), []byte("\x1b[")) {
		t.Error("Markdown has escape codes")
	}
}
