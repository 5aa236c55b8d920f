package service_test

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/grpc/codes"

	"cc.dev/cc/service"
)

// TestItem8GetStateAnswersComparisons: issue 8 item 8. GetState compares
// the local values it is given in the same read, so that an unchanged plan
// needs no other call: for each value, how it compares with the current
// one at its place, and which revisions of a secret, or versions of a
// function (its own values and, under "/image", its image's), hold an
// equal value. The answers come with an unchanged response too, and for a
// project the service has never written.
func TestItem8GetStateAnswersComparisons(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	var serial int64
	for _, v := range []string{"one", "two", "one"} {
		res, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.k", Value: []byte(v), ExpectedSerial: serial})
		if err != nil {
			t.Fatal(err)
		}
		serial = res.Serial
	}
	sens := []string{"/env/T"}
	fn := func(v string) map[string]any {
		return function("m:f", map[string]any{"env": map[string]any{"T": v}})
	}
	r := mustApply(t, c, sensitiveApply(t, "function.f", service.ActionCreate, fn("one"), sens, serial))
	r = mustApply(t, c, sensitiveApply(t, "function.f", service.ActionUpdate, fn("two"), sens, r.Serial))
	// An image with a sensitive value, and a function running it, made
	// with "a" (version 1) and then "b" (version 2).
	isens := []string{"/steps/0/env/vars/K"}
	ih := "sha256:" + "ab" + string(bytes.Repeat([]byte("0"), 62))
	ensure := func(v string, expected int64) int64 {
		s, _ := spec(t, map[string]any{"from": "python:3", "steps": []any{map[string]any{"env": map[string]any{"vars": map[string]any{"K": v}}}}})
		res, err := c.EnsureImage(ctx, service.ImageRequest{Project: "p", Address: "image.i", Hash: ih, Spec: s, Sensitive: isens, ExpectedSerial: expected})
		if err != nil {
			t.Fatal(err)
		}
		return res.Serial
	}
	user := func(expected int64, action service.Action) *service.ApplyResult {
		s, h := spec(t, function("m:g", map[string]any{"image": ih}))
		return mustApply(t, c, service.ApplyRequest{Project: "p", Address: "function.g", Action: action, Spec: s, Hash: h, DependsOn: []string{"image.i"}, ExpectedSerial: expected})
	}
	g := user(ensure("a", r.Serial), service.ActionCreate)
	g = user(ensure("b", g.Serial), service.ActionUpdate)
	if g.Version != 2 {
		t.Fatalf("function.g at version %d, want 2", g.Version)
	}

	vals := []service.ValueToCompare{
		{Address: "secret.k", Value: []byte("one")},
		{Address: "secret.k", Value: []byte("two")},
		{Address: "secret.k", Value: []byte("guess")},
		{Address: "secret.none", Value: []byte("one")},
		{Address: "function.f", Pointer: "/env/T", Value: []byte(`"one"`)},
		{Address: "function.f", Pointer: "/env/T", Value: []byte(`"two"`)},
		{Address: "function.f", Pointer: "/handler", Value: []byte(`"m:f"`)}, // not sensitive: not compared
		{Address: "image.i", Pointer: isens[0], Value: []byte(`"b"`)},
		{Address: "image.i", Pointer: isens[0], Value: []byte(`"a"`)},
		{Address: "function.g", Pointer: "/image" + isens[0], Value: []byte(`"a"`)},
		{Address: "function.g", Pointer: "/image" + isens[0], Value: []byte(`"b"`)},
		{Address: "function.none", Pointer: "/env/T", Value: []byte(`"one"`)},
	}
	want := []service.ValueMatch{
		{Comparison: service.Equal, EqualRevisions: []int64{1, 3}},
		{Comparison: service.Different, EqualRevisions: []int64{2}},
		{Comparison: service.Different},
		{Comparison: service.Absent},
		{Comparison: service.Different, EqualRevisions: []int64{1}},
		{Comparison: service.Equal, EqualRevisions: []int64{2}},
		{Comparison: service.Absent},
		{Comparison: service.Equal},
		{Comparison: service.Different},
		{Comparison: service.Absent, EqualRevisions: []int64{1}}, // not the function's own value: only its versions'
		{Comparison: service.Absent, EqualRevisions: []int64{2}},
		{Comparison: service.Absent},
	}
	st, got, err := c.GetStateComparing(ctx, "p", vals)
	if err != nil {
		t.Fatal(err)
	}
	if st == nil || st.Serial != g.Serial || st.Lookup("function.g") == nil {
		t.Fatalf("GetStateComparing state = %+v, want the state at serial %d", st, g.Serial)
	}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("GetStateComparing matches (-want +got):\n%s", d)
	}
	// Known serial: no state, the same answers.
	res, err := c.ReadState(ctx, service.StateRequest{Project: "p", KnownSerial: st.Serial, Compare: vals})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Unchanged || res.State != nil || res.Serial != st.Serial {
		t.Errorf("ReadState(known serial) unchanged %v state %v serial %d, want unchanged at %d", res.Unchanged, res.State, res.Serial, st.Serial)
	}
	if d := cmp.Diff(want, res.Matches, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("ReadState(known serial) matches (-want +got):\n%s", d)
	}
	// A project never written: every value absent.
	res, err = c.ReadState(ctx, service.StateRequest{Project: "fresh", Compare: vals[:2]})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]service.ValueMatch{{Comparison: service.Absent}, {Comparison: service.Absent}}, res.Matches, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("ReadState(fresh) matches (-want +got):\n%s", d)
	}
	// No values, no matches; a secret's value at a resource that is not
	// a secret is refused as CompareValues refuses it.
	if res, err = c.ReadState(ctx, service.StateRequest{Project: "p"}); err != nil || res.Matches != nil || res.State == nil {
		t.Errorf("ReadState without values = %+v, %v; want the state and no matches", res, err)
	}
	if _, _, err := c.GetStateComparing(ctx, "p", []service.ValueToCompare{{Address: "function.f", Value: []byte("x")}}); !errors.Is(err, service.ErrInvalid) {
		t.Errorf("a function compared without a pointer = %v, want invalid", err)
	}
}

// TestItem8GetStateComparisonsRateLimited: issue 8 item 8. The values a
// GetState compares count against the same limit as CompareValues':
// 10,000 a minute per caller, at most 10,000 a call. A GetState without
// values takes nothing from it. (An embedded server has no such limit:
// TestEmbeddedComparisonsUnlimited.)
func TestItem8GetStateComparisonsRateLimited(t *testing.T) {
	ctx := context.Background()
	clk := newClock()
	c := servedWithSecret(t, clk)
	batch := make([]service.ValueToCompare, 5000)
	for i := range batch {
		batch[i] = service.ValueToCompare{Address: "secret.k", Value: []byte("guess")}
	}
	if _, _, err := c.GetStateComparing(ctx, "p", batch); err != nil {
		t.Fatal(err)
	}
	if _, err := c.CompareValues(ctx, "p", batch); err != nil {
		t.Fatal(err)
	}
	exhausted := func(what string, err error) {
		t.Helper()
		var se *service.Error
		if !errors.As(err, &se) || se.Code != codes.ResourceExhausted {
			t.Errorf("%s = %v, want RESOURCE_EXHAUSTED", what, err)
		}
	}
	_, _, err := c.GetStateComparing(ctx, "p", batch[:1])
	exhausted("GetState's 10,001st comparison in a minute", err)
	_, err = c.CompareValues(ctx, "p", batch[:1])
	exhausted("CompareValues after GetState's", err)
	if st, err := c.GetState(ctx, "p"); err != nil || st.SecretValue("secret.k") == nil {
		t.Errorf("GetState without values, the limit spent = %v, %v; want the state", st, err)
	}
	if _, err := c.ReadState(ctx, service.StateRequest{Project: "p", Compare: make([]service.ValueToCompare, 10_001)}); !errors.Is(err, service.ErrInvalid) {
		t.Errorf("10,001 values in one GetState = %v, want invalid", err)
	}
	clk.Advance(30 * time.Second)
	if _, _, err := c.GetStateComparing(ctx, "p", batch); err != nil {
		t.Fatalf("after half a minute, half the limit: %v", err)
	}
	_, err = c.ReadState(ctx, service.StateRequest{Project: "p", KnownSerial: 1, Compare: batch[:1]})
	exhausted("an unchanged GetState's comparison beyond the limit", err)
}

// TestEmbeddedComparisonsUnlimited: an embedded server, which only its own
// process reaches, does not rate-limit comparisons: that process opened
// the database and its key, so a limit kept nothing from it, and a plan
// of a project with more than 10,000 sensitive values (three calls of
// 10,000 at most) was refused.
func TestEmbeddedComparisonsUnlimited(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	if _, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.k", Value: []byte("v")}); err != nil {
		t.Fatal(err)
	}
	vals := make([]service.ValueToCompare, 25_000)
	for i := range vals {
		vals[i] = service.ValueToCompare{Address: "secret.k", Value: []byte("v")}
	}
	for round := range 2 {
		_, ms, err := c.GetStateComparing(ctx, "p", vals)
		if err != nil {
			t.Fatalf("round %d: %d values: %v", round, len(vals), err)
		}
		if len(ms) != len(vals) || ms[len(ms)-1].Comparison != service.Equal {
			t.Fatalf("round %d: %d matches, the last %+v", round, len(ms), ms[len(ms)-1])
		}
	}
	if _, err := c.CompareValues(ctx, "p", vals[:10_000]); err != nil {
		t.Fatalf("CompareValues after 50,000 in GetState: %v", err)
	}
}

// servedWithSecret is a client of a server on a unix socket (not embedded:
// its comparisons are rate-limited) on clk, whose project p has secret.k
// set to "v".
func servedWithSecret(t *testing.T, clk *clock) *service.Client {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	serve(t, listenUnix(t, dir+"/s"), testDB(t), service.WithClock(clk.Now))
	c, err := service.Dial("unix://" + dir + "/s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	l, _, err := c.Lock(ctx, "p", service.Holder{User: "u", Host: "h"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.k", Value: []byte("v"), LeaseID: l.ID}); err != nil {
		t.Fatal(err)
	}
	return c
}
