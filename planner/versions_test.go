package planner_test

import (
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/state"
)

// secretsFixture is a function using a secret read from the environment
// and one whose value lives elsewhere, and an evaluation of the function,
// applied with the first value of the managed secret ("a").
type secretsFixture struct {
	d  *schema.Desired
	st *planner.State
}

func newSecretsFixture(t *testing.T) *secretsFixture {
	t.Helper()
	key := res(t, "secret.key", map[string]any{"from_env": "KEY"})
	vault := res(t, "secret.vault", map[string]any{"from_service": "vault-token"})
	f := res(t, "function.f", map[string]any{"handler": "m:run", "timeout": "30s",
		"env_from": []any{map[string]any{"ref": "secret.key", "hash": key.Hash}, map[string]any{"ref": "secret.vault", "hash": vault.Hash}}},
		"secret.key", "secret.vault")
	ev := res(t, "evaluation.e", map[string]any{"task": map[string]any{"ref": "function.f", "hash": f.Hash}}, "function.f")
	d := desired(key, vault, f, ev)
	st := applied(d, 5)
	setSecret(st, "secret.key", 1, "a")
	fx := &secretsFixture{d: d, st: st}
	fx.versions(1, "a")
	st.Lookup("evaluation.e").Pins = []state.Pin{{Address: "function.f", Version: 1}}
	return fx
}

// versions gives function.f a version per value of secret.key, all of its
// current spec, the one numbered current current.
func (fx *secretsFixture) versions(current int64, values ...string) {
	f := fx.st.Lookup("function.f")
	f.Versions, f.Version = nil, current
	for i, v := range values {
		f.Versions = append(f.Versions, planner.Version{Version: int64(i + 1), Hash: f.Hash, Key: "key",
			Secrets: []state.SecretValue{{Address: "secret.key", Revision: int64(i + 1), SameValueAs: sameAs(v)}}})
	}
}

// local is the local value v (a letter) of secret.key, labelled as the
// service's revisions with the same value are.
func local(v string) planner.Options {
	return planner.Options{Secrets: map[string]planner.LocalSecret{"secret.key": {Source: "KEY", Fingerprint: label(v)}}}
}

// sameAs names the value v (a letter) as the state does: by the first
// revision with that value; here, one number per letter.
func sameAs(v string) int64 { return int64(v[0]) }

// label is the label of the value v (a letter).
func label(v string) string { return state.SecretValue{SameValueAs: sameAs(v)}.Label() }

// setSecret makes revision rev, with the value v (a letter), the current
// revision of the secret at addr.
func setSecret(st *planner.State, addr string, rev int64, v string) {
	sv := state.SecretValue{Address: addr, Revision: rev, SameValueAs: sameAs(v)}
	i := sort.Search(len(st.SecretValues), func(i int) bool { return st.SecretValues[i].Address >= addr })
	if i < len(st.SecretValues) && st.SecretValues[i].Address == addr {
		st.SecretValues[i] = sv
		return
	}
	st.SecretValues = slices.Insert(st.SecretValues, i, sv)
}

// TestVersionOfSecretValue: a function's version is its spec and the
// values of the managed secrets it uses. A new local value gives it a new
// version, with the secret named as the reason, and what is pinned to its
// version follows; a value the function had before reuses that version; a
// value set outside the plan is found too; a secret whose value lives
// elsewhere, a value not read here, and a service that keys versions by
// hash alone give no new version.
func TestVersionOfSecretValue(t *testing.T) {
	fx := newSecretsFixture(t)
	if p := diff(t, fx.d, fx.st, local("a")); p.Changed() {
		t.Fatalf("the same value: changes %v", addrs(p))
	}

	// A new value: a new version of the same spec.
	p := diff(t, fx.d, fx.st, local("b"))
	if got, want := addrs(p), []string{"evaluation.e:update", "function.f:update", "secret.key:update"}; !cmp.Equal(got, want) {
		t.Fatalf("changes %v, want %v", got, want)
	}
	f := change(t, p, "function.f")
	if !cmp.Equal(f.Version, &planner.VersionChange{Action: "new", Number: 2, Current: 1}) || f.BeforeHash != f.AfterHash || len(f.Fields) != 0 {
		t.Errorf("function.f: version %+v, hashes %s %s, fields %v; want a new version 2 of the same spec", f.Version, f.BeforeHash, f.AfterHash, f.Fields)
	}
	if diff := cmp.Diff([]planner.Reason{{Code: planner.ReasonSecret, Message: "secret secret.key value changed"}}, f.Reasons); diff != "" {
		t.Errorf("function.f reasons (-want +got):\n%s", diff)
	}
	if !cmp.Equal(f.Needs, []string{"secret.key"}) {
		t.Errorf("function.f needs %v, want [secret.key]", f.Needs)
	}
	ev := change(t, p, "evaluation.e")
	if got := reasons(ev); got != "function.f has a new version: secret secret.key value changed" {
		t.Errorf("evaluation.e reasons = %q", got)
	}
	if !cmp.Equal(ev.Needs, []string{"function.f"}) {
		t.Errorf("evaluation.e needs %v, want [function.f]", ev.Needs)
	}
	if p.Summary.NewVersions != 1 || p.Summary.Update != 3 || p.Summary.Unchanged != 1 {
		t.Errorf("summary %+v", p.Summary)
	}
	if got := renderAll(t, p)["text"]; !strings.Contains(got, "  ~ function.f  new version 2 (now 1)\n      # secret secret.key value changed\n") {
		t.Errorf("text view:\n%s", got)
	}

	// Version 2 has the second value; the first again reuses version 1.
	fx.versions(2, "a", "b")
	setSecret(fx.st, "secret.key", 2, "b")
	fx.st.Lookup("evaluation.e").Pins = []state.Pin{{Address: "function.f", Version: 2}}
	if p := diff(t, fx.d, fx.st, local("b")); p.Changed() {
		t.Fatalf("version 2's value: changes %v", addrs(p))
	}
	p = diff(t, fx.d, fx.st, local("a"))
	f = change(t, p, "function.f")
	if !cmp.Equal(f.Version, &planner.VersionChange{Action: "reuse", Number: 1, Current: 2}) {
		t.Errorf("function.f version %+v, want reuse of 1", f.Version)
	}
	if got, want := reasons(f), "secret secret.key value changed\nsame content and secret values as version 1, which is made current again: nothing is rebuilt or uploaded"; got != want {
		t.Errorf("function.f reasons = %q, want %q", got, want)
	}
	if got := reasons(change(t, p, "evaluation.e")); got != "function.f changed to its version 1: secret secret.key value changed" {
		t.Errorf("evaluation.e reasons = %q", got)
	}
	if p.Summary.ReusedVersions != 1 || p.Summary.NewVersions != 0 {
		t.Errorf("summary %+v", p.Summary)
	}

	// The service has a value version 2 was not made with (an apply of
	// the secret alone): version 3, whether or not the value is read here.
	setSecret(fx.st, "secret.key", 3, "c")
	for _, o := range []planner.Options{local("c"), {}, {Secrets: map[string]planner.LocalSecret{"secret.key": {Source: "KEY", Problem: "KEY is not set"}}}} {
		p = diff(t, fx.d, fx.st, o)
		f = change(t, p, "function.f")
		if !cmp.Equal(f.Version, &planner.VersionChange{Action: "new", Number: 3, Current: 2}) ||
			reasons(f) != "secret secret.key value changed since version 2 was made (revision 2 → 3)" {
			t.Errorf("function.f = %+v, reasons %q", f.Version, reasons(f))
		}
		if got := addrs(p); !cmp.Equal(got, []string{"evaluation.e:update", "function.f:update"}) {
			t.Errorf("changes %v", got)
		}
	}

	// No value read here, and the service's is version 2's: no change.
	setSecret(fx.st, "secret.key", 2, "b")
	if p := diff(t, fx.d, fx.st, planner.Options{Secrets: map[string]planner.LocalSecret{"secret.key": {Source: "KEY", Problem: "KEY is not set"}}}); p.Changed() {
		t.Errorf("value not read: changes %v", addrs(p))
	}

	// --exclude of the secret leaves out what needs it.
	p = diff(t, fx.d, fx.st, planner.Options{Secrets: local("z").Secrets, Excludes: []string{"secret.key"}})
	if p.Changed() || !cmp.Equal(p.Skipped, []string{"evaluation.e", "function.f", "secret.key"}) {
		t.Errorf("--exclude secret.key: changes %v, skipped %v", addrs(p), p.Skipped)
	}
}

// TestVersionUnmanagedSecrets: a secret whose value lives elsewhere is not
// part of a version's identity, even with a revision at its address.
func TestVersionUnmanagedSecrets(t *testing.T) {
	fx := newSecretsFixture(t)
	setSecret(fx.st, "secret.vault", 4, "vault")
	if p := diff(t, fx.d, fx.st, local("a")); p.Changed() {
		t.Errorf("changes %v", addrs(p))
	}
}

// TestVersionFromOlderService: a service older than version keys reuses
// versions by hash alone, and the plan predicts what it does.
func TestVersionFromOlderService(t *testing.T) {
	fx := newSecretsFixture(t)
	f := fx.st.Lookup("function.f")
	f.Versions = []planner.Version{{Version: 1, Hash: f.Hash}}
	p := diff(t, fx.d, fx.st, local("b"))
	if got := addrs(p); !cmp.Equal(got, []string{"secret.key:update"}) {
		t.Errorf("changes %v, want only the secret's value", got)
	}
}

// TestVersionMadeBeforeKeys: a version keyed by its hash alone (made
// before versions recorded secret values) is not one a function with a
// managed secret reuses, and the plan says why.
func TestVersionMadeBeforeKeys(t *testing.T) {
	fx := newSecretsFixture(t)
	f := fx.st.Lookup("function.f")
	f.Versions = []planner.Version{{Version: 1, Hash: f.Hash, Key: "key"}}
	p := diff(t, fx.d, fx.st, local("a"))
	c := change(t, p, "function.f")
	if !cmp.Equal(c.Version, &planner.VersionChange{Action: "new", Number: 2, Current: 1}) ||
		reasons(c) != "version 1 does not record which value of secret.key it was made with (it was made before versions did)" {
		t.Errorf("function.f = %+v, reasons %q", c.Version, reasons(c))
	}
}

// TestRepinOnly: a resource applied with an older version of a function
// than the current one is applied again, though nothing else changed.
func TestRepinOnly(t *testing.T) {
	fx := newSecretsFixture(t)
	fx.versions(2, "x", "a")
	p := diff(t, fx.d, fx.st, local("a"))
	if got := addrs(p); !cmp.Equal(got, []string{"evaluation.e:update"}) {
		t.Fatalf("changes %v", got)
	}
	ev := change(t, p, "evaluation.e")
	if got := reasons(ev); got != "function.f is at version 2 after this plan; this was applied with its version 1" {
		t.Errorf("reasons = %q", got)
	}
	if ev.BeforeHash != ev.AfterHash || len(ev.Needs) != 0 {
		t.Errorf("evaluation.e = %+v", ev)
	}
}
