package service_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// Canaries of the rotation tests: a secret value, a sensitive value of a
// function's spec, one of an image's and a sensitive output.
const (
	rotSecret = "Zq7rotcanary-secret"
	rotFnVal  = "Zq7rotcanary-function"
	rotImgVal = "Zq7rotcanary-image"
	rotOutput = "Zq7rotcanary-output"
)

// rotationDB is a database for the rotation tests.
func rotationDB(t *testing.T) (db, dir string) {
	return testDB(t), t.TempDir()
}

// writeKey writes a key file of 64 hex digits made of b.
func writeKey(t *testing.T, path, b string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(strings.Repeat(b, 32)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

// rotationFixture stores each canary in project p through c, the secret
// with an idempotency key ("put-1"), and returns the serial.
func rotationFixture(t *testing.T, c *service.Client) int64 {
	t.Helper()
	ctx := context.Background()
	s := mustApply(t, c, applyReq(t, "p", "secret.k", service.ActionCreate, map[string]any{"from_env": "K"}, 0)).Serial
	r, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.k", Value: []byte(rotSecret), IdempotencyKey: "put-1", ExpectedSerial: s})
	if err != nil {
		t.Fatal(err)
	}
	if r, err = c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.k", Value: []byte("two"), ExpectedSerial: r.Serial}); err != nil {
		t.Fatal(err)
	}
	is, _ := spec(t, map[string]any{"from": "python:3", "steps": []any{map[string]any{"run": map[string]any{"commands": []any{"echo " + rotImgVal}}}}})
	ih := "sha256:" + strings.Repeat("cd", 32)
	img, err := c.EnsureImage(ctx, service.ImageRequest{Project: "p", Address: "image.i", Hash: ih, Spec: is, Sensitive: []string{"/steps/0/run/commands/0"}, ExpectedSerial: r.Serial})
	if err != nil {
		t.Fatal(err)
	}
	f := rotationFunction(t, img.Serial)
	f.Action = service.ActionCreate
	a := mustApply(t, c, f)
	serial, err := c.SetOutputs(ctx, service.SetOutputsRequest{Project: "p", ExpectedSerial: a.Serial, Outputs: []schema.Output{
		{Name: "token", Value: json.RawMessage(`"` + rotOutput + `"`), Sensitive: true},
		{Name: "plain", Value: json.RawMessage(`"shown"`)},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return serial
}

// rotationFunction is the fixture's function, running the image, with a
// sensitive env value, updated at serial expected.
func rotationFunction(t *testing.T, expected int64) service.ApplyRequest {
	spec := function("m:f", map[string]any{"env": map[string]any{"T": rotFnVal}, "image": "sha256:" + strings.Repeat("cd", 32)})
	r := sensitiveApply(t, "function.f", service.ActionUpdate, spec, []string{"/env/T"}, expected)
	r.DependsOn = []string{"image.i", "secret.k"}
	return r
}

// TestRotateKeyKeepsEverythingUnderTheNewKey: issue 14: rotating the
// secret key. After cc server rotate-key every secret value, sensitive
// output and sensitive spec value reads and compares equal with the new
// key, the state is unchanged, an unchanged apply reuses its version, an
// idempotency key made before is replayed, no canary is in the database
// file, and the old key is refused.
func TestRotateKeyKeepsEverythingUnderTheNewKey(t *testing.T) {
	ctx := context.Background()
	db, dir := rotationDB(t)
	oldKey, newKey := filepath.Join(dir, "old.key"), filepath.Join(dir, "new.key")
	writeKey(t, oldKey, "ab")
	c, closeFn, err := openEmbedded(ctx, db, service.WithSecretKeyFile(oldKey))
	if err != nil {
		t.Fatal(err)
	}
	serial := rotationFixture(t, c)
	before := takeSnapshot(t, c, "p", "function.f", "secret.k")
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}

	res, err := service.RotateKey(ctx, db, oldKey, newKey)
	if err != nil {
		t.Fatalf("RotateKey() = %v", err)
	}
	if want := (service.RotateKeyResult{Generated: true, SecretRevisions: 2, Outputs: 1, Specs: 4}); res != want {
		t.Errorf("RotateKey() = %+v, want %+v", res, want)
	}
	if fi, err := os.Stat(newKey); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("new key file: %v, %v; want mode 0600", fi, err)
	}
	if _, err := os.Stat(oldKey); err != nil {
		t.Errorf("the old key file is gone: %v", err)
	}
	if _, closeOld, err := openEmbedded(ctx, db, service.WithSecretKeyFile(oldKey)); err == nil {
		closeOld()
		t.Fatal("a server with the old key opened the rotated database")
	} else if !strings.Contains(err.Error(), "not the key") {
		t.Fatalf("a server with the old key: %v, want the key refused", err)
	}

	c2, closeFn, err := openEmbedded(ctx, db, service.WithSecretKeyFile(newKey))
	if err != nil {
		t.Fatalf("open with the new key: %v", err)
	}
	checkRotated(t, c2, before, serial)
	if err := closeFn(); err != nil {
		t.Fatal(err)
	}
	for name, b := range storedBytes(t, db) {
		for _, canary := range []string{rotSecret, rotFnVal, rotImgVal, rotOutput} {
			if bytes.Contains(b, []byte(canary)) {
				t.Errorf("the canary %s is in the database (%s)", canary, name)
			}
		}
	}
}

// checkRotated checks, through c on the rotated database, everything the
// fixture stored.
func checkRotated(t *testing.T, c *service.Client, before snapshot, serial int64) {
	t.Helper()
	ctx := context.Background()
	after := takeSnapshot(t, c, "p", "function.f", "secret.k")
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("state after the rotation (-before +after):\n%s", diff)
	}
	var out string
	for _, o := range after.State.Outputs {
		if o.Name == "token" {
			out = string(o.Value)
		}
	}
	if out != `"`+rotOutput+`"` {
		t.Errorf("the sensitive output after the rotation = %s, want its value", out)
	}
	got, err := c.CompareValues(ctx, "p", []service.ValueToCompare{
		{Address: "secret.k", Value: []byte(rotSecret), Revision: 1},
		{Address: "secret.k", Value: []byte("two")},
		{Address: "function.f", Pointer: "/env/T", Value: []byte(`"` + rotFnVal + `"`)},
		{Address: "image.i", Pointer: "/steps/0/run/commands/0", Value: []byte(`"echo ` + rotImgVal + `"`)},
		{Address: "function.f", Pointer: "/image/steps/0/run/commands/0", Value: []byte(`"echo ` + rotImgVal + `"`), Revision: 1},
	})
	if want := []service.Comparison{service.Equal, service.Equal, service.Equal, service.Equal, service.Equal}; err != nil || !cmp.Equal(got, want) {
		t.Errorf("CompareValues after the rotation = %v, %v; want %v", got, err, want)
	}
	r, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.k", Value: []byte(rotSecret), IdempotencyKey: "put-1", ExpectedSerial: 1})
	if err != nil || r.SecretValue.Revision != 1 {
		t.Fatalf("the idempotency key of before the rotation replayed = %+v, %v; want revision 1", r, err)
	}
	if r, err = c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.k", Value: []byte("two"), ExpectedSerial: serial}); err != nil || r.Changed {
		t.Fatalf("the same secret value put again = %+v, %v; want unchanged", r, err)
	}
	a := mustApply(t, c, rotationFunction(t, serial))
	if a.Version != 1 || !a.Reused {
		t.Fatalf("the unchanged function applied again: version %d reused %v, want version 1 reused", a.Version, a.Reused)
	}
}

// TestRotateKeyRefusesMutationsOfAServerWithTheOldKey: issue 14: a
// server still running with the old key after a rotation writes nothing:
// every mutation is refused, telling to restart with the new key file, and
// a sealed value is not handed out decrypted with the wrong key.
func TestRotateKeyRefusesMutationsOfAServerWithTheOldKey(t *testing.T) {
	ctx := context.Background()
	db, dir := rotationDB(t)
	oldKey, newKey := filepath.Join(dir, "old.key"), filepath.Join(dir, "new.key")
	writeKey(t, oldKey, "ab")
	writeKey(t, newKey, "cd")
	c := open(t, db, service.WithSecretKeyFile(oldKey))
	serial := rotationFixture(t, c)

	if _, err := service.RotateKey(ctx, db, oldKey, newKey); err != nil {
		t.Fatalf("RotateKey() while a server runs = %v", err)
	}
	_, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.k", Value: []byte("three"), ExpectedSerial: serial})
	if err == nil || !strings.Contains(err.Error(), "rotated") || !strings.Contains(err.Error(), "restart it with --secret-key-file") {
		t.Fatalf("a mutation of the server with the old key = %v, want refused: restart with the new key", err)
	}
	if _, err := c.GetState(ctx, "p"); err == nil || !strings.Contains(err.Error(), "rotated") {
		t.Errorf("GetState of the server with the old key = %v, want refused: the key was rotated", err)
	}
	// Nothing was written: the new key's server has the fixture's serial.
	c2 := open(t, db, service.WithSecretKeyFile(newKey))
	st, err := c2.GetState(ctx, "p")
	if err != nil || st.Serial != serial {
		t.Fatalf("state after the refused mutation = serial %v, %v; want %d", st, err, serial)
	}
}

// TestRotateKeyRefusals: issue 14: rotate-key refuses a missing database
// (without making it), a database with no key, a wrong old key, a new key
// equal to the old and a damaged new key file, changing nothing.
func TestRotateKeyRefusals(t *testing.T) {
	ctx := context.Background()
	// A missing database is a SQLite file's notion: this test is SQLite's.
	dir := t.TempDir()
	db := filepath.Join(dir, "state.db")
	oldKey := filepath.Join(dir, "old.key")
	writeKey(t, oldKey, "ab")
	other, bad := filepath.Join(dir, "other.key"), filepath.Join(dir, "bad.key")
	writeKey(t, other, "ef")
	if err := os.WriteFile(bad, []byte("nope"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := service.RotateKey(ctx, db, oldKey, other); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("RotateKey() of a missing database = %v", err)
	}
	if _, err := os.Stat(db); err == nil {
		t.Fatal("RotateKey() of a missing database made it")
	}
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := service.RotateKey(ctx, db, oldKey, other); err == nil || !strings.Contains(err.Error(), "nothing to rotate") {
		t.Fatalf("RotateKey() of a database without a key = %v", err)
	}
	c, closeFn, err := openEmbedded(ctx, db, service.WithSecretKeyFile(oldKey))
	if err != nil {
		t.Fatal(err)
	}
	rotationFixture(t, c)
	closeFn()
	for _, tt := range []struct{ name, old, new, want string }{
		{"wrong old key", other, filepath.Join(dir, "n1"), "not the key this database was created with"},
		{"same key", oldKey, oldKey, "holds the database's current key"},
		{"damaged new key", oldKey, bad, "64 hex digits"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := service.RotateKey(ctx, db, tt.old, tt.new)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("RotateKey() = %v, want %q", err, tt.want)
			}
		})
	}
	if _, closeFn, err := openEmbedded(ctx, db, service.WithSecretKeyFile(oldKey)); err != nil {
		t.Fatalf("the old key after refused rotations: %v", err)
	} else {
		closeFn()
	}
}
