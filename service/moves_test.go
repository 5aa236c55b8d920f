package service_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/service"
)

// TestMoveKeepsIdentity: issue 10: moves. MoveResource renames a function
// in one call: its id, versions and created time stay, the resources that
// depend on it name the new address (depends_on and pins), the old
// address is free, and a change planned before the move is stale.
func TestMoveKeepsIdentity(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	s := mustApply(t, c, applyReq(t, "p", "secret.key", service.ActionCreate, map[string]any{"from_env": "KEY"}, 0)).Serial
	put, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.key", Value: []byte("v1"), ExpectedSerial: s})
	if err != nil {
		t.Fatal(err)
	}
	s = put.Serial
	req := applyReq(t, "p", "function.old", service.ActionCreate, function("m.run"), s)
	req.DependsOn = []string{"secret.key"}
	first := mustApply(t, c, req)
	req = applyReq(t, "p", "function.old", service.ActionUpdate, function("m.run", source("2")), first.Serial)
	req.DependsOn = []string{"secret.key"}
	second := mustApply(t, c, req)
	ev := applyReq(t, "p", "sandbox.user", service.ActionCreate, sandbox(nil), second.Serial)
	ev.DependsOn = []string{"function.old"}
	s = mustApply(t, c, ev).Serial

	mv, err := c.Move(ctx, service.MoveRequest{Project: "p", From: "function.old", To: "function.new", ExpectedSerial: s})
	if err != nil {
		t.Fatalf("Move() = %v", err)
	}
	if mv.Resource == nil || mv.Resource.ID == "" || mv.Resource.ID != first.Resource.ID || mv.Resource.Version != 2 || mv.Resource.Name != "new" {
		t.Fatalf("Move() resource = %+v, want id %q at version 2", mv.Resource, first.Resource.ID)
	}
	if !cmp.Equal(mv.Dependants, []string{"sandbox.user"}) {
		t.Errorf("Move() dependants = %v, want [sandbox.user]", mv.Dependants)
	}
	vs, err := c.Versions(ctx, "p", "function.new")
	if err != nil || len(vs) != 2 {
		t.Fatalf("Versions(function.new) = %v, %v; want the 2 old versions", vs, err)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if st.Lookup("function.old") != nil {
		t.Errorf("function.old is still in the state")
	}
	if u := st.Lookup("sandbox.user"); u == nil || !cmp.Equal(u.DependsOn, []string{"function.new"}) || len(u.Pins) != 1 || u.Pins[0].Address != "function.new" {
		t.Errorf("sandbox.user = %+v, want it to depend on and pin function.new", u)
	}
	// The same content again reuses version 2: the key moved with it.
	req = applyReq(t, "p", "function.new", service.ActionUpdate, function("m.run", source("2")), mv.Serial)
	req.DependsOn = []string{"secret.key"}
	if again := mustApply(t, c, req); again.Version != 2 || again.Changed {
		t.Errorf("Apply(same content) after the move = version %d changed %v, want version 2 unchanged", again.Version, again.Changed)
	}
	// Planned before the move: stale.
	stale := applyReq(t, "p", "function.old", service.ActionUpdate, function("m.x"), s)
	if _, err := c.Apply(ctx, stale); err == nil {
		t.Errorf("Apply(function.old) planned before the move = nil error, want refused")
	}
}

// TestMoveRefusals: issue 10: moves. A move onto an existing address,
// from one that does not exist, to another kind, or of an image, is
// refused and changes nothing.
func TestMoveRefusals(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	s := mustApply(t, c, applyReq(t, "p", "volume.a", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)).Serial
	s = mustApply(t, c, applyReq(t, "p", "volume.b", service.ActionCreate, map[string]any{"size": "1Gi"}, s)).Serial
	for _, tc := range []struct {
		from, to string
		want     error
	}{
		{"volume.a", "volume.b", service.ErrAlreadyExists},
		{"volume.zzz", "volume.c", service.ErrNotFound},
		{"volume.a", "sandbox.a", service.ErrInvalid},
		{"image.a", "image.b", service.ErrInvalid},
	} {
		if _, err := c.Move(ctx, service.MoveRequest{Project: "p", From: tc.from, To: tc.to, ExpectedSerial: s}); !errors.Is(err, tc.want) {
			t.Errorf("Move(%s, %s) = %v, want %v", tc.from, tc.to, err, tc.want)
		}
	}
	if st, _ := c.GetState(ctx, "p"); st.Serial != s {
		t.Errorf("serial %d after refused moves, want %d", st.Serial, s)
	}
}

// TestForgetAndAdopt: issue 10: forgetting, adoption. A forgotten volume
// stays on the service in project "-" with its id; another project adopts
// it under another name; a resource others depend on is not forgotten.
func TestForgetAndAdopt(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	v := mustApply(t, c, applyReq(t, "a", "volume.cache", service.ActionCreate, map[string]any{"size": "1Gi"}, 0))
	mount := sandbox(map[string]any{"volume_mounts": []any{map[string]any{"volume": map[string]any{"ref": "volume.cache"}, "path": "/c"}}})
	req := applyReq(t, "a", "sandbox.dev", service.ActionCreate, mount, v.Serial)
	req.DependsOn = []string{"volume.cache"}
	s := mustApply(t, c, req).Serial
	_, err := c.Forget(ctx, service.TransferRequest{Project: "a", Address: "volume.cache", ExpectedSerial: s})
	var de *service.DependantsError
	if !errors.As(err, &de) || !cmp.Equal(de.Dependants, []string{"sandbox.dev"}) {
		t.Fatalf("Forget(volume.cache) with a dependant = %v, want it refused naming sandbox.dev", err)
	}
	d, err := c.Delete(ctx, service.DeleteRequest{Project: "a", Address: "sandbox.dev", ExpectedSerial: s})
	if err != nil {
		t.Fatal(err)
	}
	f, err := c.Forget(ctx, service.TransferRequest{Project: "a", Address: "volume.cache", ExpectedSerial: d.Serial})
	if err != nil {
		t.Fatalf("Forget() = %v", err)
	}
	if f.Resource.ID != v.Resource.ID {
		t.Errorf("forgotten id %q, want %q", f.Resource.ID, v.Resource.ID)
	}
	if st, _ := c.GetState(ctx, "a"); st.Lookup("volume.cache") != nil {
		t.Errorf("project a still has volume.cache")
	}
	resp, err := c.ReadState(ctx, service.StateRequest{Project: "b", Unowned: []string{"volume.cache", "volume.none"}})
	if err != nil || len(resp.Unowned) != 1 || resp.Unowned[0].ID != v.Resource.ID {
		t.Fatalf("ReadState(unowned volume.cache) = %+v, %v; want the forgotten volume", resp, err)
	}
	ad, err := c.Adopt(ctx, service.TransferRequest{Project: "b", Address: "volume.data", ID: "cache"})
	if err != nil {
		t.Fatalf("Adopt() = %v", err)
	}
	if ad.Resource.ID != v.Resource.ID || ad.Resource.Address != "volume.data" {
		t.Errorf("adopted %+v, want volume.data with id %q", ad.Resource, v.Resource.ID)
	}
	if st, _ := c.GetState(ctx, service.Unowned); st.Lookup("volume.cache") != nil {
		t.Errorf("project - still has volume.cache after the adoption")
	}
	if _, err := c.Adopt(ctx, service.TransferRequest{Project: "b", Address: "volume.other", ID: "cache"}); !errors.Is(err, service.ErrNotFound) {
		t.Errorf("Adopt() of what - no longer has = %v, want not found", err)
	}
}

// TestUnownedReadAndAdoptWithProjectToken: issue 10: adoption. A token
// that names only its own project (not "-") reads the unowned resources
// its GetState names, also when its state is unchanged, adopts one and
// forgets one; it cannot read "-" as a whole.
func TestUnownedReadAndAdoptWithProjectToken(t *testing.T) {
	ctx := context.Background()
	cert, pool := selfSigned(t)
	const tokenSDK = "platform-sdk-token-0123456789"
	tokens, err := service.ParseTokens("tokens", []byte(tokenA+" a alice\n"+tokenSDK+" - sdk\n"))
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, lis, "", service.WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}), service.WithTokens(tokens))
	dial := func(token string) *service.Client {
		c, err := service.Dial(lis.Addr().String(), service.WithToken(token),
			service.WithTLSConfig(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}),
			service.WithGRPCOptions(autoLeasing()...))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	sdk, a := dial(tokenSDK), dial(tokenA)
	mustApply(t, sdk, applyReq(t, service.Unowned, "volume.build-cache", service.ActionCreate, map[string]any{"size": "1Gi"}, 0))
	if _, err := a.GetState(ctx, service.Unowned); !errors.Is(err, service.ErrPermissionDenied) {
		t.Errorf("GetState(-) with a token of project a = %v, want permission denied", err)
	}
	s := mustApply(t, a, applyReq(t, "a", "volume.own", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)).Serial
	resp, err := a.ReadState(ctx, service.StateRequest{Project: "a", KnownSerial: s, Unowned: []string{"volume.build-cache"}})
	if err != nil || !resp.Unchanged || len(resp.Unowned) != 1 || resp.Unowned[0].Address != "volume.build-cache" {
		t.Fatalf("ReadState(a, known serial, unowned) = %+v, %v; want unchanged with the unowned volume", resp, err)
	}
	if _, err := a.ReadState(ctx, service.StateRequest{Project: "a", Unowned: []string{"image.x"}}); !errors.Is(err, service.ErrInvalid) {
		t.Errorf("ReadState(unowned image) = %v, want invalid", err)
	}
	if _, err := a.Adopt(ctx, service.TransferRequest{Project: "a", Address: "volume.cache", ID: "build-cache", ExpectedSerial: s}); err != nil {
		t.Fatalf("Adopt() with a token of project a = %v", err)
	}
	if _, err := a.Forget(ctx, service.TransferRequest{Project: "a", Address: "volume.own", ExpectedSerial: s + 1}); err != nil {
		t.Fatalf("Forget() with a token of project a = %v", err)
	}
	st, err := sdk.GetState(ctx, service.Unowned)
	if err != nil || st.Lookup("volume.own") == nil || st.Lookup("volume.build-cache") != nil {
		t.Errorf("GetState(-) = %v, %v; want volume.own and not volume.build-cache", st, err)
	}
}

// TestAdoptExpectedHash: issue 10: adoption. An import planned against an
// unowned resource that changed since is refused as stale.
func TestAdoptExpectedHash(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	v1 := mustApply(t, c, applyReq(t, service.Unowned, "volume.x", service.ActionCreate, map[string]any{"size": "1Gi"}, 0))
	mustApply(t, c, applyReq(t, service.Unowned, "volume.x", service.ActionUpdate, map[string]any{"size": "2Gi"}, v1.Serial))
	if _, err := c.Adopt(ctx, service.TransferRequest{Project: "p", Address: "volume.x", ID: "x", ExpectedHash: v1.Resource.Hash}); !errors.Is(err, service.ErrStale) {
		t.Fatalf("Adopt() of a changed resource = %v, want stale", err)
	}
	if _, err := c.Adopt(ctx, service.TransferRequest{Project: "p", Address: "volume.x", ID: "x", ExpectedHash: "nope"}); !errors.Is(err, service.ErrInvalid) {
		t.Errorf("Adopt() with a bad hash = %v, want invalid", err)
	}
}

// TestForgetRefusedWhenUnownedHasIt: issue 10: forgetting. A resource is
// not forgotten while the unowned resources have one at its address: both
// stay as they are.
func TestForgetRefusedWhenUnownedHasIt(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	mustApply(t, c, applyReq(t, service.Unowned, "volume.cache", service.ActionCreate, map[string]any{"size": "5Gi"}, 0))
	s := mustApply(t, c, applyReq(t, "a", "volume.cache", service.ActionCreate, map[string]any{"size": "1Gi"}, 0)).Serial
	if _, err := c.Forget(ctx, service.TransferRequest{Project: "a", Address: "volume.cache", ExpectedSerial: s}); !errors.Is(err, service.ErrAlreadyExists) {
		t.Fatalf("Forget() onto an unowned volume.cache = %v, want already exists", err)
	}
	st, err := c.GetState(ctx, "a")
	if err != nil || st.Lookup("volume.cache") == nil || st.Serial != s {
		t.Errorf("project a after the refusal: %+v, %v", st, err)
	}
}

// TestMoveResealsValues: issue 10: moves. A function's sensitive value and
// a secret's value, sealed for their place, still compare equal after the
// move and to another project; the same content again at the new address
// reuses the version made with the value (its key was made anew there).
func TestMoveResealsValues(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	fn := function("m.run", map[string]any{"env": map[string]any{"TOKEN": "tok-1"}})
	s := mustApply(t, c, sensitiveApply(t, "function.old", service.ActionCreate, fn, []string{"/env/TOKEN"}, 0)).Serial
	s = mustApply(t, c, applyReq(t, "p", "secret.a", service.ActionCreate, map[string]any{"from_env": "A"}, s)).Serial
	put, err := c.PutSecretValue(ctx, service.SecretRequest{Project: "p", Address: "secret.a", Value: []byte("secret-1"), ExpectedSerial: s})
	if err != nil {
		t.Fatal(err)
	}
	mv, err := c.Move(ctx, service.MoveRequest{Project: "p", From: "function.old", To: "function.new", ExpectedSerial: put.Serial})
	if err != nil {
		t.Fatal(err)
	}
	mv2, err := c.Move(ctx, service.MoveRequest{Project: "p", From: "secret.a", To: "secret.b", ExpectedSerial: mv.Serial})
	if err != nil {
		t.Fatal(err)
	}
	got, err := c.CompareValues(ctx, "p", []service.ValueToCompare{
		{Address: "function.new", Pointer: "/env/TOKEN", Value: []byte(`"tok-1"`)},
		{Address: "secret.b", Value: []byte("secret-1")},
	})
	if err != nil || len(got) != 2 || got[0] != service.Equal || got[1] != service.Equal {
		t.Fatalf("CompareValues() after the moves = %v, %v; want both equal", got, err)
	}
	again := mustApply(t, c, sensitiveApply(t, "function.new", service.ActionUpdate, fn, []string{"/env/TOKEN"}, mv2.Serial))
	if again.Version != 1 || again.Changed {
		t.Errorf("the same content at the new address: version %d changed %v, want version 1 unchanged", again.Version, again.Changed)
	}
	// To the unowned resources and into another project: still equal.
	if _, err := c.Forget(ctx, service.TransferRequest{Project: "p", Address: "secret.b", ExpectedSerial: again.Serial}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Adopt(ctx, service.TransferRequest{Project: "q", Address: "secret.c", ID: "b"}); err != nil {
		t.Fatal(err)
	}
	if got, err := c.CompareValues(ctx, "q", []service.ValueToCompare{{Address: "secret.c", Value: []byte("secret-1")}}); err != nil || got[0] != service.Equal {
		t.Errorf("CompareValues(q secret.c) = %v, %v; want equal", got, err)
	}
}
