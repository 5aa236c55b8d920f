package service

import (
	"bytes"
	"context"
	"crypto/hmac"
	"encoding/base64"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// rotateFixture makes a database at db with key file key (64 hex digits
// of b) holding a secret revision, a sensitive output and a spec with a
// sealed value, through a server's mutations.
func rotateFixture(t *testing.T, db, key, b string) {
	t.Helper()
	rotateFixtureServer(t, db, key, b).Close()
}

// rotateFixtureServer is rotateFixture, returning the server, still open.
func rotateFixtureServer(t *testing.T, db, key, b string) *Server {
	t.Helper()
	ctx := context.Background()
	if err := os.WriteFile(key, []byte(strings.Repeat(b, 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := Open(ctx, db, WithSecretKeyFile(key))
	if err != nil {
		t.Fatal(err)
	}
	lock, err := (&projectAPI{s: s}).Lock(ctx, &ccv1.LockRequest{Project: "p", Holder: &ccv1.Holder{User: "u", Host: "h"}})
	if err != nil {
		t.Fatal(err)
	}
	lease := lock.GetLease().GetId()
	api := &resourceAPI{s: s}
	if _, err := api.PutSecretValue(ctx, &ccv1.PutSecretValueRequest{Project: "p", Address: "secret.k", Value: []byte("canary-secret"), LeaseId: lease}); err != nil {
		t.Fatal(err)
	}
	if _, err := api.SetOutputs(ctx, &ccv1.SetOutputsRequest{Project: "p", ExpectedSerial: 1, LeaseId: lease, Outputs: []*ccv1.Output{{Name: "o", Value: []byte(`"canary-output"`), Sensitive: true}}}); err != nil {
		t.Fatal(err)
	}
	spec := []byte(`{"from":"python:3","steps":[{"run":{"commands":["echo canary-spec"]}}]}`)
	err = s.commits.do(&pending{ctx: ctx, project: "p", run: func(tx *stmtTx) error {
		t := &mutation{tx: tx, ctx: ctx, s: s, project: "p"}
		sealed, err := t.sealSpec(imagePlace("sha256:00"), spec, []string{"/steps/0/run/commands/0"})
		if err != nil {
			return err
		}
		return t.exec("INSERT INTO images (project, hash, spec, created_at, sensitive) VALUES ('p', 'sha256:00', ?, 0, '/steps/0/run/commands/0')", sealed)
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// sealedRows reads every sealed value of the database: nonce and
// ciphertext with their additional data.
type sealedRow struct{ nonce, ct, ad []byte }

func sealedRows(t *testing.T, st *store) []sealedRow {
	t.Helper()
	var out []sealedRow
	rows, err := st.r.Query("SELECT project, address, revision, nonce, ciphertext FROM secret_revisions")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p, a string
		var n int64
		var r sealedRow
		if err := rows.Scan(&p, &a, &n, &r.nonce, &r.ct); err != nil {
			t.Fatal(err)
		}
		r.ad = secretAD(p, a, n)
		out = append(out, r)
	}
	rows.Close()
	rows, err = st.r.Query("SELECT project, name, value, nonce FROM outputs WHERE sensitive = 1")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var p, name string
		var r sealedRow
		if err := rows.Scan(&p, &name, &r.ct, &r.nonce); err != nil {
			t.Fatal(err)
		}
		r.ad = secretAD(p, outputPlace(name), 0)
		out = append(out, r)
	}
	rows.Close()
	var spec []byte
	if err := st.r.QueryRow("SELECT spec FROM images WHERE hash = 'sha256:00'").Scan(&spec); err != nil {
		t.Fatal(err)
	}
	v, err := decodeJSON(spec)
	if err != nil {
		t.Fatal(err)
	}
	x, _ := schema.ValueAt(v, "/steps/0/run/commands/0")
	raw, err := base64.RawStdEncoding.DecodeString(strings.TrimPrefix(x.(string), sealedPrefix))
	if err != nil {
		t.Fatal(err)
	}
	out = append(out, sealedRow{nonce: raw[:12], ct: raw[12:], ad: sensitiveAD("p", imagePlace("sha256:00"), "/steps/0/run/commands/0")})
	return out
}

// opened counts the rows of sealed that k opens.
func opened(k *keys, sealed []sealedRow) int {
	n := 0
	for _, r := range sealed {
		if _, err := k.aead.Open(nil, r.nonce, r.ct, r.ad); err == nil {
			n++
		}
	}
	return n
}

// TestRotateKeyOldKeyOpensNothing: issue 14: rotating the secret key. In
// a copy of the database made after the rotation, the old key file opens
// no sealed value and the new one opens every one; the HMAC keys stay.
func TestRotateKeyOldKeyOpensNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, oldKey, newKey := filepath.Join(dir, "state.db"), filepath.Join(dir, "old"), filepath.Join(dir, "new")
	rotateFixture(t, db, oldKey, "ab")
	if _, err := RotateKey(ctx, db, oldKey, newKey); err != nil {
		t.Fatal(err)
	}
	st, err := openStore(ctx, db, SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	sealed := sealedRows(t, st)
	old, err := newKeys(bytes.Repeat([]byte{0xab}, 32), nil)
	if err != nil {
		t.Fatal(err)
	}
	cur, err := loadKeys(ctx, st, newKey, false)
	if err != nil {
		t.Fatal(err)
	}
	if n := opened(old, sealed); n != 0 {
		t.Errorf("the old key opens %d of the %d sealed values after the rotation, want none", n, len(sealed))
	}
	if n := opened(cur, sealed); n != len(sealed) || n != 3 {
		t.Errorf("the new key opens %d of the %d sealed values, want all 3", n, len(sealed))
	}
	if !bytes.Equal(cur.fpKey, old.fpKey) || !bytes.Equal(cur.macKey, old.macKey) {
		t.Error("the fingerprint and idempotency keys changed with the rotation")
	}
}

// TestRotateKeyFailureChangesNothing: issue 14: a rotation that fails
// half-way (after the key check and the secret revisions, before the
// outputs) changes nothing: the old key still opens the database and every
// value, and the new key is refused.
func TestRotateKeyFailureChangesNothing(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, oldKey, newKey := filepath.Join(dir, "state.db"), filepath.Join(dir, "old"), filepath.Join(dir, "new")
	rotateFixture(t, db, oldKey, "ab")
	st, err := openStore(ctx, db, SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	before := sealedRows(t, st)
	st.close()

	injected := errors.New("injected failure")
	var steps []string
	rotateFault = func(step string) error {
		steps = append(steps, step)
		if step == "secret revisions" {
			return injected
		}
		return nil
	}
	defer func() { rotateFault = nil }()
	if _, err := RotateKey(ctx, db, oldKey, newKey); !errors.Is(err, injected) || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("RotateKey() with a failure = %v, want the injected failure, nothing changed", err)
	}
	if len(steps) != 2 {
		t.Fatalf("the rotation failed after steps %q, want the second", steps)
	}
	if _, err := Open(ctx, db, WithSecretKeyFile(newKey)); err == nil || !strings.Contains(err.Error(), "not the key") {
		t.Fatalf("a server with the new key after the failed rotation: %v, want refused", err)
	}
	st, err = openStore(ctx, db, SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	k, err := loadKeys(ctx, st, oldKey, false)
	if err != nil {
		t.Fatalf("the old key after the failed rotation: %v", err)
	}
	after := sealedRows(t, st)
	if n := opened(k, after); n != len(before) || n != 3 {
		t.Errorf("the old key opens %d of %d sealed values after the failed rotation, want all %d", n, len(after), len(before))
	}
	for i := range before {
		if !bytes.Equal(before[i].ct, after[i].ct) {
			t.Errorf("sealed value %d changed in the failed rotation", i)
		}
	}
	// Once the failure is gone the rotation goes through.
	rotateFault = nil
	if _, err := RotateKey(ctx, db, oldKey, newKey); err != nil {
		t.Fatalf("RotateKey() again = %v", err)
	}
}

// TestRotateKeyLeavesNoOldCiphertextInTheFile: issue 14: rotating the
// secret key. A copy of the SQLite files made after the rotation holds no
// ciphertext of before it (in free pages or the WAL), which the old key
// file would open; a second rotation keeps the HMAC keys again, and a cc
// that predates rotation refuses the rotated database (its key check).
func TestRotateKeyLeavesNoOldCiphertextInTheFile(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, oldKey, newKey := filepath.Join(dir, "state.db"), filepath.Join(dir, "old"), filepath.Join(dir, "new")
	// The server stays open, as one does while an operator rotates: what
	// it wrote is still in the WAL.
	srv := rotateFixtureServer(t, db, oldKey, "ab")
	before := sealedRows(t, srv.st)
	if _, err := RotateKey(ctx, db, oldKey, newKey); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{db, db + "-wal"} {
		b, err := os.ReadFile(f)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range before {
			if bytes.Contains(b, r.ct) || bytes.Contains(b, []byte(base64.RawStdEncoding.EncodeToString(append(append([]byte{}, r.nonce...), r.ct...)))) {
				t.Errorf("%s still holds sealed value %d as it was before the rotation", filepath.Base(f), i)
			}
		}
	}

	srv.Close()
	third := filepath.Join(dir, "third")
	if _, err := RotateKey(ctx, db, newKey, third); err != nil {
		t.Fatalf("a second rotation: %v", err)
	}
	st, err := openStore(ctx, db, SyncNormal)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	k, err := loadKeys(ctx, st, third, false)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := newKeys(bytes.Repeat([]byte{0xab}, 32), nil)
	if n := opened(k, sealedRows(t, st)); n != 3 || !bytes.Equal(k.fpKey, first.fpKey) || !bytes.Equal(k.macKey, first.macKey) {
		t.Errorf("after a second rotation the key opens %d of 3 values, HMAC keys kept: %v", n, bytes.Equal(k.fpKey, first.fpKey))
	}
	raw, _ := os.ReadFile(third)
	key, err := parseKey(third, raw)
	if err != nil {
		t.Fatal(err)
	}
	if hmac.Equal(k.check, keyCheck(key, false)) {
		t.Error("the rotated database's key check is the one a cc that predates rotation accepts")
	}
}
