package planner_test

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/internal/golden"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// issue 10: forced versions. --new-version of an unchanged function makes
// version N+1 (forced, reason new-version) and the evaluation pinned to it
// follows; nothing else changes.
func TestNewVersionForced(t *testing.T) {
	fx := newSecretsFixture(t)
	o := local("a")
	o.NewVersion = []string{"function.f"}
	p := diff(t, fx.d, fx.st, o)
	if got, want := addrs(p), []string{"evaluation.e:update", "function.f:update"}; !cmp.Equal(got, want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	c := change(t, p, "function.f")
	if want := (&planner.VersionChange{Action: "new", Number: 2, Current: 1, Forced: true}); !cmp.Equal(c.Version, want) {
		t.Errorf("version %+v, want %+v", c.Version, want)
	}
	if len(c.Reasons) != 1 || c.Reasons[0].Code != planner.ReasonNewVersion {
		t.Errorf("reasons %+v, want one of code %s", c.Reasons, planner.ReasonNewVersion)
	}
	if got := planner.ActionPhrase(c); got != "new version 2 (new version requested; now 1)" {
		t.Errorf("ActionPhrase() = %q", got)
	}
	if p.Summary.NewVersions != 1 || p.Summary.Update != 2 {
		t.Errorf("summary %+v", p.Summary)
	}
	// Without the flag, nothing changes.
	if p := diff(t, fx.d, fx.st, local("a")); p.Changed() {
		t.Errorf("without --new-version: changes %v", addrs(p))
	}
}

// issue 10: forced versions. --replace of a function replaces it with a
// new version: a replacement that kept the old one would replace nothing.
func TestReplaceFunctionMakesNewVersion(t *testing.T) {
	fx := newSecretsFixture(t)
	o := local("a")
	o.Replace = []string{"function.f"}
	c := change(t, diff(t, fx.d, fx.st, o), "function.f")
	if c.Action != planner.Replace || c.Version == nil || c.Version.Action != "new" || c.Version.Number != 2 || !c.Version.Forced {
		t.Fatalf("change %s %+v, want a replace with forced new version 2", c.Action, c.Version)
	}
	if got := planner.ActionPhrase(c); got != "replace (--replace), new version 2" {
		t.Errorf("ActionPhrase() = %q", got)
	}
}

// issue 10: forced versions. Of versions with one key (a forced one and
// the one it bypassed), the plan predicts the reuse of the newest, as the
// service makes it.
func TestReuseNewestOfOneKey(t *testing.T) {
	fx := newSecretsFixture(t)
	fx.versions(2, "a", "a")
	f := fx.st.Lookup("function.f")
	other := res(t, "function.f", map[string]any{"handler": "m:other"})
	f.Versions = append(f.Versions, planner.Version{Version: 3, Hash: other.Hash, Key: "key"})
	f.Version, f.Hash, f.Spec = 3, other.Hash, other.Spec
	c := change(t, diff(t, fx.d, fx.st, local("a")), "function.f")
	if c.Version == nil || c.Version.Action != "reuse" || c.Version.Number != 2 {
		t.Fatalf("version %+v, want reuse of 2", c.Version)
	}
}

// issue 10: forced versions. --new-version names a function of the
// configuration; anything else is an error saying why, with a
// did-you-mean for a near miss.
func TestNewVersionRefused(t *testing.T) {
	fx := newSecretsFixture(t)
	ds := res(t, "dataset.d", map[string]any{"files": []any{}})
	fx.d = desired(append(fx.d.Resources, ds)...)
	fx.st.Resources = append(fx.st.Resources, planner.Resource{Address: "function.gone", Kind: schema.KindFunction, Hash: ds.Hash, Version: 1})
	sort.Slice(fx.st.Resources, func(i, j int) bool { return fx.st.Resources[i].Address < fx.st.Resources[j].Address })
	for addr, want := range map[string]string{
		"function.g":    "--new-version function.g: no such function in the configuration or the state; did you mean function.f?",
		"dataset.d":     "--new-version dataset.d: a dataset's revision is its content",
		"secret.key":    "--new-version secret.key: only functions have versions to force; --replace secret.key makes a secret anew",
		"function.gone": "--new-version function.gone: it is no longer in the configuration",
		"f":             "--new-version f: not an address",
	} {
		o := local("a")
		o.NewVersion = []string{addr}
		if _, err := planner.Diff(fx.d, fx.st, o); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Diff(--new-version %s) = %v, want %q", addr, err, want)
		}
	}
}

// externalFixture is a function and a sandbox using secrets kept outside
// cc, and a sandbox using none, applied.
func externalFixture(t *testing.T) (*schema.Desired, *planner.State) {
	vault := res(t, "secret.vault", map[string]any{"from_service": "vault-token"})
	slack := res(t, "secret.slack", map[string]any{"from_integration": map[string]any{"name": "slack", "keys": []any{"TOKEN"}}})
	key := res(t, "secret.key", map[string]any{"from_env": "KEY"})
	f := res(t, "function.f", map[string]any{"handler": "m:run", "env_from": []any{map[string]any{"ref": "secret.vault", "hash": vault.Hash}}}, "secret.vault")
	sb := res(t, "sandbox.dev", map[string]any{"env_from": []any{map[string]any{"ref": "secret.slack", "hash": slack.Hash}}}, "secret.slack", "secret.key")
	plain := res(t, "sandbox.plain", map[string]any{"env_from": []any{map[string]any{"ref": "secret.key", "hash": key.Hash}}}, "secret.key")
	d := desired(vault, slack, key, f, sb, plain)
	return d, applied(d, 3)
}

// issue 10: forced versions. A plan whose functions or sandboxes use
// secrets kept outside cc says so once, naming them and how to pick up a
// new value, even when nothing changes; a destroy does not.
func TestExternalSecretsWarnedOnce(t *testing.T) {
	d, st := externalFixture(t)
	p := diff(t, d, st, planner.Options{})
	want := "the values of secret.slack (from_integration), secret.vault (from_service) live outside cc, which cannot compare them: a new value there changes no plan. function.f, sandbox.dev use them; to pick up a new value, force a function's new version with --new-version ADDR or a change of its version_trigger, and replace a sandbox with --replace ADDR"
	if !cmp.Equal(p.Warnings, []string{want}) {
		t.Errorf("warnings:\n%q\nwant:\n%q", p.Warnings, want)
	}
	if p := diff(t, d, st, planner.Options{Destroy: true}); len(p.Warnings) != 0 {
		t.Errorf("destroy: warnings %q", p.Warnings)
	}
}

// issue 10: forced versions. The golden plans of a forced version, in
// text, JSON and Markdown (go test ./planner -run TestGoldenNewVersion
// -update rewrites them).
func TestGoldenNewVersion(t *testing.T) {
	d, st := externalFixture(t)
	p := diff(t, d, st, planner.Options{NewVersion: []string{"function.f"}})
	var txt, js, md bytes.Buffer
	if err := planner.WriteText(&txt, p, planner.TextOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := planner.WriteJSON(&js, p); err != nil {
		t.Fatal(err)
	}
	if err := planner.WriteMarkdown(&md, p, planner.MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "new-version.txt"), txt.Bytes())
	golden.Check(t, filepath.Join("testdata", "new-version.json"), js.Bytes())
	golden.Check(t, filepath.Join("testdata", "new-version.md"), md.Bytes())
	var back planner.Plan
	if err := json.Unmarshal(js.Bytes(), &back); err != nil || !back.Changes[0].Version.Forced {
		t.Errorf("the JSON plan does not say the version is forced (%v)", err)
	}
}

// issue 10: forced versions. A plan file carries --new-version
// (config.new_version) and is read back; one whose forced versions do not
// match what it says it was planned with is refused.
func TestPlanFileNewVersion(t *testing.T) {
	fx := newSecretsFixture(t)
	o := local("a")
	o.NewVersion = []string{"function.f"}
	p := diff(t, fx.d, fx.st, o)
	write := func(f *planner.File) []byte {
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	good := planner.NewFile(p, fx.d, fx.st, planner.Config{Lang: "hcl", NewVersion: o.NewVersion})
	back, err := planner.ReadFile(write(good))
	if err != nil {
		t.Fatalf("ReadFile() = %v", err)
	}
	if !cmp.Equal(back.Config.NewVersion, []string{"function.f"}) || !change(t, back.Plan, "function.f").Version.Forced {
		t.Fatalf("read back: new_version %v, change %+v", back.Config.NewVersion, change(t, back.Plan, "function.f").Version)
	}
	for name, tc := range map[string]struct {
		cfg  planner.Config
		want string
	}{
		"not asked":     {planner.Config{Lang: "hcl"}, "function.f: a forced new version that config new_version and replace do not ask for"},
		"not forced":    {planner.Config{Lang: "hcl", NewVersion: []string{"function.f"}}, "function.f: config asks for a new version, but the change does not force one"},
		"not function":  {planner.Config{Lang: "hcl", NewVersion: []string{"secret.key"}}, `config new_version "secret.key": not a function of the desired state`},
		"with destroy":  {planner.Config{Lang: "hcl", NewVersion: []string{"function.f"}, Destroy: true}, "config new_version function.f with destroy"},
		"not in config": {planner.Config{Lang: "hcl", NewVersion: []string{"function.x"}}, `config new_version "function.x": not a function of the desired state`},
	} {
		plan := *p
		plan.Changes = append([]planner.Change(nil), p.Changes...)
		if name == "not forced" {
			for i := range plan.Changes {
				if v := plan.Changes[i].Version; v != nil {
					nv := *v
					nv.Forced = false
					plan.Changes[i].Version = &nv
				}
			}
		}
		_, err := planner.ReadFile(write(planner.NewFile(&plan, fx.d, fx.st, tc.cfg)))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ReadFile() = %v, want %q", name, err, tc.want)
		}
	}
}

// issue 10: forced versions. --new-version of a function not applied yet
// creates it with its first version, unforced, and says so.
func TestNewVersionOfNewFunction(t *testing.T) {
	fx := newSecretsFixture(t)
	o := local("a")
	o.NewVersion = []string{"function.f"}
	p := diff(t, fx.d, &planner.State{Project: "p"}, o)
	c := change(t, p, "function.f")
	if c.Action != planner.Create || c.Version == nil || c.Version.Forced || c.Version.Number != 1 {
		t.Errorf("change %s %+v, want a create of version 1, not forced", c.Action, c.Version)
	}
	want := "--new-version function.f: it does not exist yet; it is created with its first version"
	if !slices.Contains(p.Warnings, want) {
		t.Errorf("warnings %q lack %q", p.Warnings, want)
	}
}

// issue 10: forced versions. The warning of secrets kept outside cc stays
// short in a large project: five names, then how many more.
func TestExternalSecretsWarningBounded(t *testing.T) {
	vault := res(t, "secret.vault", map[string]any{"from_service": "vault-token"})
	rs := []schema.Resource{vault}
	for _, n := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		rs = append(rs, res(t, "function."+n, map[string]any{"handler": "m:" + n}, "secret.vault"))
	}
	d := desired(rs...)
	p := diff(t, d, applied(d, 1), planner.Options{})
	if len(p.Warnings) != 1 || !strings.Contains(p.Warnings[0], "function.a, function.b, function.c, function.d, function.e and 2 more use them") {
		t.Errorf("warnings %q", p.Warnings)
	}
}

// issue 10: forced versions. A plan file with --replace of a function
// reads back forced; one of a cc before forced versions, whose replace
// reuses the version, still reads (apply does as its plan says).
func TestPlanFileReplaceFunction(t *testing.T) {
	fx := newSecretsFixture(t)
	o := local("a")
	o.Replace = []string{"function.f"}
	p := diff(t, fx.d, fx.st, o)
	for _, forced := range []bool{true, false} {
		plan := *p
		plan.Changes = append([]planner.Change(nil), p.Changes...)
		for i := range plan.Changes {
			if v := plan.Changes[i].Version; v != nil {
				nv := *v
				nv.Forced = forced
				if !forced {
					nv.Action, nv.Number = "reuse", 1
				}
				plan.Changes[i].Version = &nv
			}
		}
		plan.Summary = planner.Summary{}
		var b bytes.Buffer
		if err := planner.NewFile(&plan, fx.d, fx.st, planner.Config{Lang: "hcl", Replace: o.Replace}).Write(&b); err != nil {
			t.Fatal(err)
		}
		if _, err := planner.ReadFile(b.Bytes()); err != nil {
			t.Errorf("forced %t: ReadFile() = %v", forced, err)
		}
	}
}
