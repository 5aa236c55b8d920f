package service_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/service"
)

// secretsProject applies what a function's versions are made with: a
// secret read from the environment (its value put first, as the applier
// does), and one whose value the service does not manage.
type secretsProject struct {
	t      *testing.T
	c      *service.Client
	serial int64
}

func (p *secretsProject) put(addr, value string) *service.SecretResult {
	p.t.Helper()
	r, err := p.c.PutSecretValue(context.Background(), service.SecretRequest{Project: "p", Address: addr, Value: []byte(value), ExpectedSerial: p.serial})
	if err != nil {
		p.t.Fatal(err)
	}
	p.serial = r.Serial
	return r
}

func (p *secretsProject) apply(addr string, action service.Action, spec any, deps ...string) *service.ApplyResult {
	p.t.Helper()
	req := applyReq(p.t, "p", addr, action, spec, p.serial)
	req.DependsOn = deps
	r := mustApply(p.t, p.c, req)
	p.serial = r.Serial
	return r
}

type versionGot struct {
	Version        int64
	Reused, Change bool
}

func (p *secretsProject) function(action service.Action) versionGot {
	p.t.Helper()
	r := p.apply("function.f", action, function("m.run", map[string]any{"env_from": []any{map[string]any{"ref": "secret.openai"}}}),
		"secret.openai", "secret.vault")
	return versionGot{r.Version, r.Reused, r.Changed}
}

func (p *secretsProject) state() *service.State {
	p.t.Helper()
	st, err := p.c.GetState(context.Background(), "p")
	if err != nil {
		p.t.Fatal(err)
	}
	return st
}

// TestVersionKeyedBySecretValues: a function's version is its spec and the
// values of the managed secrets it uses. A new value makes a new version
// of the same spec; the same value again changes nothing; a value put back
// (a new revision with an earlier value) reuses the version made with it.
// A secret whose value lives elsewhere takes no part, even if a value was
// put at its address.
func TestVersionKeyedBySecretValues(t *testing.T) {
	ctx := context.Background()
	p := &secretsProject{t: t, c: open(t, "")}
	p.put("secret.openai", "value-a")
	p.apply("secret.openai", service.ActionCreate, map[string]any{"from_env": "OPENAI_API_KEY"})
	p.apply("secret.vault", service.ActionCreate, map[string]any{"from_service": "vault-token"})

	var got []versionGot
	got = append(got, p.function(service.ActionCreate)) // v1, made with value-a
	got = append(got, p.function(service.ActionUpdate)) // nothing changed
	if r := p.put("secret.openai", "value-b"); r.SecretValue.Revision != 2 {
		t.Fatalf("second value: revision %d, want 2", r.SecretValue.Revision)
	}
	got = append(got, p.function(service.ActionUpdate)) // v2: the same spec, a new value
	got = append(got, p.function(service.ActionUpdate)) // nothing changed
	// A value at the address of a secret the service does not manage
	// changes nothing.
	p.put("secret.vault", "not-managed")
	got = append(got, p.function(service.ActionUpdate))
	// Back to the first value: PutSecretValue makes revision 3 (it never
	// reuses a revision number), and the function reuses version 1.
	if r := p.put("secret.openai", "value-a"); r.SecretValue.Revision != 3 || !r.Changed {
		t.Fatalf("value put back: %+v, want a new revision 3", r)
	}
	got = append(got, p.function(service.ActionUpdate))
	want := []versionGot{{1, false, true}, {1, true, false}, {2, false, true}, {2, true, false}, {2, true, false}, {1, true, true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("versions (-want +got):\n%s", diff)
	}

	// The state says, per version, what it was made with: enough for a
	// plan to predict reuse with no other call.
	st := p.state()
	f := st.Lookup("function.f")
	if f.Version != 1 || len(f.Versions) != 2 {
		t.Fatalf("function.f: version %d, versions %+v", f.Version, f.Versions)
	}
	for i, v := range []struct {
		rev   int64
		value string
	}{{1, "value-a"}, {2, "value-b"}} {
		ver := f.Versions[i]
		// Revisions, and the first revision of the same value: nothing
		// derived from the value (issue 8 item 8).
		wantSecrets := []service.SecretValue{{Address: "secret.openai", Revision: v.rev, SameValueAs: v.rev}}
		if diff := cmp.Diff(wantSecrets, ver.Secrets); diff != "" {
			t.Errorf("version %d secrets (-want +got):\n%s", ver.Version, diff)
		}
		if ver.Hash != f.Hash || ver.Key == ver.Hash {
			t.Errorf("version %d: hash %s, key %s; want the spec's hash and a key of it and the secret", ver.Version, ver.Hash, ver.Key)
		}
	}
	if f.Versions[0].Key == f.Versions[1].Key {
		t.Errorf("versions 1 and 2 have the same key %s", f.Versions[0].Key)
	}
	vs, err := p.c.Versions(ctx, "p", "function.f")
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[1].Key != f.Versions[1].Key || !cmp.Equal(vs[1].Secrets, f.Versions[1].Secrets) || !vs[0].Current {
		t.Errorf("Versions(function.f) = %+v, want the state's versions with their keys and secrets", vs)
	}
	revs, err := p.c.Versions(ctx, "p", "secret.openai")
	if err != nil || len(revs) != 3 || revs[2].Key != "" || revs[2].Secrets != nil {
		t.Errorf("Versions(secret.openai) = %+v, %v; want 3 revisions without keys", revs, err)
	}
}

// TestVersionKeyWithoutManagedSecrets: a function using no secret, or only
// secrets whose values live elsewhere, and a dataset are keyed by their
// hash, as before keys.
func TestVersionKeyWithoutManagedSecrets(t *testing.T) {
	p := &secretsProject{t: t, c: open(t, "")}
	p.apply("secret.vault", service.ActionCreate, map[string]any{"from_service": "vault-token"})
	p.put("secret.vault", "ignored")
	p.apply("secret.store", service.ActionCreate, map[string]any{"from_store": map[string]any{"name": "x"}})
	p.apply("function.g", service.ActionCreate, function("m.g"), "secret.vault", "secret.store")
	p.apply("function.h", service.ActionCreate, function("m.h"))
	p.apply("dataset.d", service.ActionCreate, dataset("aa"))
	for _, r := range p.state().Resources {
		for _, v := range r.Versions {
			if v.Key != v.Hash || len(v.Secrets) != 0 {
				t.Errorf("%s version %d: key %s, secrets %v; want the hash and none", r.Address, v.Version, v.Key, v.Secrets)
			}
		}
	}
}

// TestMigrationKeysVersions opens a database made before version keys: its
// versions are keyed by hash, except each resource's current one, which is
// keyed with the current values of the managed secrets it uses, so that
// applying the same again changes nothing.
func TestMigrationKeysVersions(t *testing.T) {
	ctx := context.Background()
	db := filepath.Join(t.TempDir(), "state.db")
	c, closeFn, err := openEmbedded(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	p := &secretsProject{t: t, c: c}
	p.put("secret.openai", "value-a")
	p.apply("secret.openai", service.ActionCreate, map[string]any{"from_env": "OPENAI_API_KEY"})
	spec1 := function("m.one")
	spec2 := function("m.two")
	p.apply("function.f", service.ActionCreate, spec1, "secret.openai")
	p.apply("function.f", service.ActionUpdate, spec2, "secret.openai")
	p.apply("dataset.d", service.ActionCreate, dataset("aa"))
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	raw, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"ALTER TABLE resources DROP COLUMN id", // migration 5's
		"ALTER TABLE projects DROP COLUMN lineage",
		"DROP INDEX versions_by_key",
		"ALTER TABLE versions DROP COLUMN key",
		"ALTER TABLE versions DROP COLUMN secrets",
		"PRAGMA user_version = 2",
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	raw.Close()

	p.c = open(t, db)
	st := p.state()
	f := st.Lookup("function.f")
	_, hash1 := spec(t, spec1)
	_, hash2 := spec(t, spec2)
	secrets := []service.SecretValue{{Address: "secret.openai", Revision: 1, SameValueAs: 1}}
	var gotVersions []string
	for _, v := range f.Versions {
		key := v.Key
		if key != v.Hash {
			key = "keyed"
		}
		gotVersions = append(gotVersions, fmt.Sprintf("v%d key=%s secrets=%v", v.Version, key, v.Secrets))
	}
	wantVersions := []string{
		fmt.Sprintf("v1 key=%s secrets=[]", hash1),
		fmt.Sprintf("v2 key=keyed secrets=%v", secrets),
	}
	_ = hash2
	if diff := cmp.Diff(wantVersions, gotVersions); diff != "" {
		t.Fatalf("versions after the migration (-want +got):\n%s", diff)
	}
	if d := st.Lookup("dataset.d"); d.Versions[0].Key != d.Hash {
		t.Errorf("dataset.d key %s, want its hash", d.Versions[0].Key)
	}
	// The current version is what the same apply gives.
	if r := p.apply("function.f", service.ActionUpdate, spec2, "secret.openai"); r.Changed || r.Version != 2 {
		t.Errorf("the same apply after the migration: %+v, want version 2 unchanged", r)
	}
	// Version 1 does not say which value it was made with: going back to
	// its spec makes a new version.
	if r := p.apply("function.f", service.ActionUpdate, spec1, "secret.openai"); r.Reused || r.Version != 3 {
		t.Errorf("back to version 1's spec after the migration: version %d reused=%v, want a new version 3", r.Version, r.Reused)
	}
}
