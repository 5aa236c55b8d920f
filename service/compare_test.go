package service_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// sensitiveApply is an apply request of a spec whose values at sens are
// sensitive: hashed without them, as the compiler hashes it.
func sensitiveApply(t testing.TB, addr string, action service.Action, v any, sens []string, expected int64) service.ApplyRequest {
	t.Helper()
	s, _ := spec(t, v)
	h, err := schema.RedactedHash(s, sens)
	if err != nil {
		t.Fatal(err)
	}
	return service.ApplyRequest{Project: "p", Address: addr, Action: action, Spec: s, Hash: h, Sensitive: sens, ExpectedSerial: expected}
}

// TestItem8StateHoldsNothingDerived: issue 8 item 8. GetState and
// ListVersions send neither the project's salt nor any fingerprint of a
// secret value; a local value is compared with CompareValues.
func TestItem8StateHoldsNothingDerived(t *testing.T) {
	ctx := context.Background()
	db := testDB(t)
	var responses bytes.Buffer
	record := func(ctx context.Context, req any, info *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
		resp, err := h(ctx, req)
		if m, ok := resp.(proto.Message); ok && err == nil {
			b, _ := proto.Marshal(m)
			responses.Write(b)
		}
		return resp, err
	}
	c := open(t, db, service.WithUnaryInterceptor(record))
	const canary = "Zq7canaryX-secret"
	if _, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.k", Value: []byte(canary)}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.k", Value: []byte("two"), ExpectedSerial: 1}); err != nil {
		t.Fatal(err)
	}
	res, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.k", Value: []byte(canary), ExpectedSerial: 2})
	if err != nil {
		t.Fatal(err)
	}
	if res.SecretValue.Revision != 3 || res.SecretValue.SameValueAs != 1 {
		t.Errorf("revision %d same as %d, want 3 same as 1", res.SecretValue.Revision, res.SecretValue.SameValueAs)
	}
	// A function with a sensitive value, so that the state has a version
	// keyed with it.
	const sensCanary = "Zq7canaryX-sensitive"
	mustApply(t, c, sensitiveApply(t, "function.f", service.ActionCreate, function("m:f", map[string]any{"env": map[string]any{"T": sensCanary}}), []string{"/env/T"}, res.Serial))
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if sv := st.SecretValue("secret.k"); sv == nil || sv.Revision != 3 || sv.SameValueAs != 1 {
		t.Errorf("state secret value %+v, want revision 3 same as 1", sv)
	}
	// GetState comparing local values (issue 8 item 8: an unchanged plan
	// is one call) answers with nothing derived from them either, changed
	// or unchanged.
	local := []service.ValueToCompare{
		{Address: "secret.k", Value: []byte(canary)},
		{Address: "function.f", Pointer: "/env/T", Value: []byte(`"` + sensCanary + `"`)},
	}
	if _, m, err := c.GetStateComparing(ctx, "p", local); err != nil || len(m) != 2 || m[0].Comparison != service.Equal || m[1].Comparison != service.Equal {
		t.Fatalf("GetStateComparing = %v, %v; want both equal", m, err)
	}
	if r, err := c.ReadState(ctx, service.StateRequest{Project: "p", KnownSerial: st.Serial, Compare: local}); err != nil || !r.Unchanged || len(r.Matches) != 2 {
		t.Fatalf("ReadState(known serial) = %+v, %v; want unchanged with two matches", r, err)
	}
	if _, err := c.Versions(ctx, "p", "secret.k"); err != nil {
		t.Fatal(err)
	}
	raw := rawDB(t, db)
	var salt []byte
	if err := raw.QueryRow("SELECT salt FROM projects WHERE name = 'p'").Scan(&salt); err != nil {
		t.Fatal(err)
	}
	rows, err := raw.Query("SELECT fingerprint FROM secret_revisions")
	if err != nil {
		t.Fatal(err)
	}
	var fps []string
	for rows.Next() {
		var fp string
		rows.Scan(&fp)
		fps = append(fps, fp)
	}
	rows.Close()
	// The fingerprints versions are keyed with, sensitive values' too.
	rows, err = raw.Query("SELECT secrets FROM versions")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var col string
		rows.Scan(&col)
		for _, line := range strings.Split(col, "\n") {
			if f := strings.Fields(line); len(f) == 3 {
				fps = append(fps, f[2])
			}
		}
	}
	rows.Close()
	if len(fps) < 4 {
		t.Fatalf("%d fingerprints in the database, want those of 3 revisions and a version's sensitive value", len(fps))
	}
	out := responses.Bytes()
	if bytes.Contains(out, salt) {
		t.Error("a response holds the project's salt")
	}
	for _, fp := range append(fps, service.Fingerprint(salt, "secret.k", []byte(canary)), "hmac-sha256:") {
		if bytes.Contains(out, []byte(fp)) {
			t.Errorf("a response holds the fingerprint %s", fp)
		}
	}
	if bytes.Contains(out, []byte(canary)) {
		t.Error("a response holds the secret value")
	}
	if bytes.Contains(out, []byte(sensCanary)) {
		t.Error("a response holds the sensitive value")
	}
}

// TestItem8CompareValuesRateLimited: issue 8 item 8. A caller compares at
// most 10,000 values a minute (of a server it is not embedded in).
func TestItem8CompareValuesRateLimited(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	c := servedWithSecret(t, clk)
	batch := make([]service.ValueToCompare, 5000)
	for i := range batch {
		batch[i] = service.ValueToCompare{Address: "secret.k", Value: []byte("guess")}
	}
	for i := 0; i < 2; i++ {
		if _, err := c.CompareValues(ctx, "p", batch); err != nil {
			t.Fatalf("comparison %d: %v", i, err)
		}
	}
	_, err := c.CompareValues(ctx, "p", batch[:1])
	var se *service.Error
	if !errors.As(err, &se) || se.Code != codes.ResourceExhausted {
		t.Fatalf("the 10,001st comparison in a minute = %v, want RESOURCE_EXHAUSTED", err)
	}
	clk.Advance(30 * time.Second)
	if _, err := c.CompareValues(ctx, "p", batch); err != nil {
		t.Fatalf("after half a minute, half the limit: %v", err)
	}
	if _, err := c.CompareValues(ctx, "p", batch[:1]); err == nil {
		t.Fatal("the limit refilled faster than 10,000 a minute")
	}
	if _, err := c.CompareValues(ctx, "p", make([]service.ValueToCompare, 10_001)); !errors.Is(err, service.ErrInvalid) {
		t.Fatalf("10,001 values in one call = %v, want invalid", err)
	}
}

// TestItem8SensitiveValueMakesVersions: issue 8 item 8. A changed
// sensitive value under the same hash is a new version, compared by the
// service; the value put back reuses the version made with it. The same
// for an image's sensitive value and the function using the image.
func TestItem8SensitiveValueMakesVersions(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	sens := []string{"/env/T"}
	fn := func(v string) map[string]any {
		return function("m:f", map[string]any{"env": map[string]any{"T": v}})
	}
	r1 := mustApply(t, c, sensitiveApply(t, "function.f", service.ActionCreate, fn("one"), sens, 0))
	r2 := mustApply(t, c, sensitiveApply(t, "function.f", service.ActionUpdate, fn("two"), sens, r1.Serial))
	if r2.Resource.Hash != r1.Resource.Hash || r2.Version != 2 || r2.Reused || !r2.Changed {
		t.Fatalf("another sensitive value: hash %s→%s version %d reused %v; want the same hash, version 2", r1.Resource.Hash, r2.Resource.Hash, r2.Version, r2.Reused)
	}
	got, err := c.CompareValues(ctx, "p", []service.ValueToCompare{
		{Address: "function.f", Pointer: "/env/T", Value: []byte(`"two"`)},
		{Address: "function.f", Pointer: "/env/T", Value: []byte(`"one"`)},
		{Address: "function.f", Pointer: "/handler", Value: []byte(`"m:f"`)}, // not sensitive: not compared
		{Address: "function.none", Pointer: "/env/T", Value: []byte(`"two"`)},
	})
	want := []service.Comparison{service.Equal, service.Different, service.Absent, service.Absent}
	if err != nil || len(got) != len(want) {
		t.Fatalf("CompareValues = %v, %v", got, err)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("comparison %d = %v, want %v", i, got[i], want[i])
		}
	}
	// Compared with what each version was made with.
	got, err = c.CompareValues(ctx, "p", []service.ValueToCompare{
		{Address: "function.f", Pointer: "/env/T", Value: []byte(`"one"`), Revision: 1},
		{Address: "function.f", Pointer: "/env/T", Value: []byte(`"one"`), Revision: 2},
		{Address: "function.f", Pointer: "/env/T", Value: []byte(`"one"`), Revision: 9},
	})
	if want := []service.Comparison{service.Equal, service.Different, service.Absent}; err != nil || !cmp.Equal(got, want) {
		t.Errorf("CompareValues by version = %v, %v; want %v", got, err, want)
	}
	r3 := mustApply(t, c, sensitiveApply(t, "function.f", service.ActionUpdate, fn("one"), sens, r2.Serial))
	if r3.Version != 1 || !r3.Reused {
		t.Fatalf("the value put back: version %d reused %v, want version 1 reused", r3.Version, r3.Reused)
	}

	// An image with a sensitive value, and a function running it.
	img := func(v string) (json []byte, hash string) {
		s, _ := spec(t, map[string]any{"from": "python:3", "steps": []any{map[string]any{"env": map[string]any{"vars": map[string]any{"K": v}}}}})
		return s, "sha256:" + "ab" + string(bytes.Repeat([]byte("0"), 62))
	}
	isens := []string{"/steps/0/env/vars/K"}
	ensure := func(v string, expected int64) int64 {
		s, h := img(v)
		res, err := c.EnsureImage(ctx, service.ImageRequest{Project: "p", Address: "image.i", Hash: h, Spec: s, Sensitive: isens, ExpectedSerial: expected})
		if err != nil {
			t.Fatal(err)
		}
		return res.Serial
	}
	_, ih := img("a")
	serial := ensure("a", r3.Serial)
	user := func(expected int64, action service.Action) *service.ApplyResult {
		s, h := spec(t, function("m:g", map[string]any{"image": ih}))
		return mustApply(t, c, service.ApplyRequest{Project: "p", Address: "function.g", Action: action, Spec: s, Hash: h, DependsOn: []string{"image.i"}, ExpectedSerial: expected})
	}
	g1 := user(serial, service.ActionCreate)
	got, err = c.CompareValues(ctx, "p", []service.ValueToCompare{{Address: "image.i", Pointer: isens[0], Value: []byte(`"b"`)}})
	if err != nil || got[0] != service.Different {
		t.Fatalf("image value compared = %v, %v; want different", got, err)
	}
	serial = ensure("b", g1.Serial)
	g2 := user(serial, service.ActionUpdate)
	if g2.Version != 2 || g2.Reused {
		t.Fatalf("function on the image with another sensitive value: version %d reused %v, want a new version 2", g2.Version, g2.Reused)
	}
	got, err = c.CompareValues(ctx, "p", []service.ValueToCompare{
		{Address: "function.g", Pointer: "/image" + isens[0], Value: []byte(`"a"`), Revision: 1},
		{Address: "function.g", Pointer: "/image" + isens[0], Value: []byte(`"a"`), Revision: 2},
	})
	if want := []service.Comparison{service.Equal, service.Different}; err != nil || !cmp.Equal(got, want) {
		t.Errorf("CompareValues of the image's value by version = %v, %v; want %v", got, err, want)
	}
	serial = ensure("a", g2.Serial)
	if g3 := user(serial, service.ActionUpdate); g3.Version != 1 || !g3.Reused {
		t.Fatalf("the image's value put back: version %d reused %v, want version 1 reused", g3.Version, g3.Reused)
	}
	// The service checks a sensitive spec's hash is the one made without
	// its values.
	bad := sensitiveApply(t, "function.h", service.ActionCreate, fn("x"), sens, 0)
	bad.Hash = schema.Hash(bad.Spec)
	if _, err := c.Apply(ctx, bad); !errors.Is(err, service.ErrInvalid) {
		t.Errorf("a sensitive spec hashed with its value = %v, want invalid", err)
	}
}

// TestItem8SensitiveSealedAtRest: issue 8 item 8. The database (and its
// -wal and -shm files) holds no sensitive value in the clear, nor its
// sha256; the service still compares it and reads it back for versions.
func TestItem8SensitiveSealedAtRest(t *testing.T) {
	ctx := context.Background()
	db := testDB(t)
	c := open(t, db)
	const canary = "Zq7canaryX-sensitive"
	sens := []string{"/env/T"}
	r := mustApply(t, c, sensitiveApply(t, "function.f", service.ActionCreate, function("m:f", map[string]any{"env": map[string]any{"T": canary}}), sens, 0))
	is, _ := spec(t, map[string]any{"from": "python:3", "steps": []any{map[string]any{"run": map[string]any{"commands": []any{"echo " + canary}}}}})
	ih := "sha256:" + strings.Repeat("cd", 32)
	if _, err := c.EnsureImage(ctx, service.ImageRequest{Project: "p", Address: "image.i", Hash: ih, Spec: is, Sensitive: []string{"/steps/0/run/commands/0"}, ExpectedSerial: r.Serial}); err != nil {
		t.Fatal(err)
	}
	got, err := c.CompareValues(ctx, "p", []service.ValueToCompare{
		{Address: "function.f", Pointer: "/env/T", Value: []byte(`"` + canary + `"`)},
		{Address: "image.i", Pointer: "/steps/0/run/commands/0", Value: []byte(`"echo ` + canary + `"`)},
	})
	if err != nil || got[0] != service.Equal || got[1] != service.Equal {
		t.Fatalf("CompareValues = %v, %v; want both equal", got, err)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if s := string(st.Lookup("function.f").Spec); !strings.Contains(s, `"T":"(sensitive)"`) {
		t.Errorf("state spec %s, want the value replaced", s)
	}
	sum := sha256.Sum256([]byte(canary))
	h := hex.EncodeToString(sum[:])
	for name, b := range storedBytes(t, db) {
		if bytes.Contains(b, []byte(canary)) || bytes.Contains(b, []byte(h[:8])) || bytes.Contains(b, []byte(hex.EncodeToString([]byte(canary)))) {
			t.Errorf("%s holds the sensitive value or its sha256", name)
		}
	}
}
