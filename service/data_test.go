package service_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"

	"cc.dev/cc/service"
	"cc.dev/cc/state"
)

// TestIssue10DataSourcesResolveInGetState: GetState resolves data sources
// against the unowned resources (project "-") in its one read, also when
// the project's state is unchanged: current and pinned versions, a
// secret's revision, and absent ones.
func TestIssue10DataSourcesResolveInGetState(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	d1 := mustApply(t, c, applyReq(t, service.Unowned, "dataset.build-evals", service.ActionCreate, dataset("aa"), 0))
	d2 := mustApply(t, c, applyReq(t, service.Unowned, "dataset.build-evals", service.ActionUpdate, dataset("bb"), d1.Serial))
	vol := mustApply(t, c, applyReq(t, service.Unowned, "volume.build-cache", service.ActionCreate, map[string]any{"size": "1Gi"}, d2.Serial))
	if _, err := c.PutSecretValue(ctx, service.SecretRequest{Project: service.Unowned, Address: "secret.openai", Value: []byte("v"), ExpectedSerial: vol.Serial}); err != nil {
		t.Fatal(err)
	}
	lookups := []service.DataLookup{
		{Kind: "dataset", Name: "build-evals"},
		{Kind: "dataset", Name: "build-evals", Version: 1},
		{Kind: "dataset", Name: "build-evals", Version: 9},
		{Kind: "volume", Name: "build-cache"},
		{Kind: "secret", Name: "openai"},
		{Kind: "function", Name: "nope"},
	}
	want := []state.DataResult{
		{Found: true, Address: "dataset.build-evals", Hash: d2.Resource.Hash, Version: 2},
		{Found: true, Address: "dataset.build-evals", Hash: d1.Resource.Hash, Version: 1},
		{},
		{Found: true, Address: "volume.build-cache", Hash: vol.Resource.Hash},
		{Found: true, Address: "secret.openai", Version: 1},
		{},
	}
	resp, err := c.ReadState(ctx, service.StateRequest{Project: "p", Data: lookups})
	if err != nil {
		t.Fatal(err)
	}
	var got []state.DataResult
	for i, d := range resp.Data {
		if d.DataLookup != lookups[i] {
			t.Errorf("answer %d is for %+v, want %+v", i, d.DataLookup, lookups[i])
		}
		got = append(got, d.DataResult)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("data resolved (-want +got):\n%s", diff)
	}
	// The project exists at serial 1; an unchanged read answers too.
	mustApply(t, c, applyReq(t, "p", "volume.own", service.ActionCreate, map[string]any{"size": "1Gi"}, 0))
	again, err := c.ReadState(ctx, service.StateRequest{Project: "p", KnownSerial: 1, Data: lookups[:1]})
	if err != nil || !again.Unchanged || len(again.Data) != 1 || again.Data[0].DataResult != want[0] {
		t.Fatalf("unchanged ReadState = %+v, %v; want unchanged with the dataset resolved", again, err)
	}
	for _, bad := range []service.DataLookup{{Kind: "sandbox", Name: "x"}, {Kind: "volume", Name: "Bad_Name"}, {Kind: "volume", Name: "x", Version: 2}, {Kind: "dataset", Name: "x", Version: -1}} {
		if _, err := c.ReadState(ctx, service.StateRequest{Project: "p", Data: []service.DataLookup{bad}}); !errors.Is(err, service.ErrInvalid) {
			t.Errorf("ReadState(data %+v) = %v, want invalid argument", bad, err)
		}
	}
}

// TestIssue10ApplyChecksDataPins: an apply that uses a data source sends
// what it resolved to; the service keeps it with the resource, refuses
// pins that do not match depends_on, and refuses the apply once the data
// source resolves to something else (a new revision of the dataset).
func TestIssue10ApplyChecksDataPins(t *testing.T) {
	ctx := context.Background()
	c := open(t, "")
	d1 := mustApply(t, c, applyReq(t, service.Unowned, "dataset.build-evals", service.ActionCreate, dataset("aa"), 0))
	pin := service.DataPin{Address: "data.dataset.evals", Target: "dataset.build-evals", Version: 1, Hash: d1.Resource.Hash}
	ev := applyReq(t, "p", "evaluation.e", service.ActionCreate, map[string]any{"dataset": map[string]any{"ref": "data.dataset.evals"}, "scorers": []any{}}, 0)
	ev.DependsOn = []string{"data.dataset.evals"}
	if _, err := c.Apply(ctx, ev); !errors.Is(err, service.ErrInvalid) || !strings.Contains(err.Error(), "data_pins") {
		t.Fatalf("Apply without its data pin = %v, want invalid argument naming data_pins", err)
	}
	ev.DataPins = []service.DataPin{pin}
	e := mustApply(t, c, ev)
	if diff := cmp.Diff([]service.DataPin{pin}, e.Resource.DataPins); diff != "" {
		t.Fatalf("data pins kept (-want +got):\n%s", diff)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil || !cmp.Equal(st.Lookup("evaluation.e").DataPins, []service.DataPin{pin}) {
		t.Fatalf("GetState data pins = %v, %v", st.Lookup("evaluation.e"), err)
	}
	// A new revision on the service: an apply planned before is refused.
	mustApply(t, c, applyReq(t, service.Unowned, "dataset.build-evals", service.ActionUpdate, dataset("bb"), d1.Serial))
	up := ev
	up.Action, up.ExpectedSerial = service.ActionUpdate, e.Serial
	up.Spec, up.Hash = spec(t, map[string]any{"dataset": map[string]any{"ref": "data.dataset.evals"}, "scorers": []any{}})
	_, err = c.Apply(ctx, up)
	var se *service.Error
	if !errors.As(err, &se) || se.Code != codes.FailedPrecondition || !strings.Contains(err.Error(), "data.dataset.evals") || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("Apply after a new revision = %v, want failed precondition naming data.dataset.evals and version 2", err)
	}
	// Pinned to revision 1, it still applies.
	up.DataPins = []service.DataPin{{Address: pin.Address, Target: pin.Target, Version: 1, Hash: d1.Resource.Hash, Pinned: true}}
	mustApply(t, c, up)
	for _, bad := range []service.DataPin{
		{Address: "data.dataset.evals", Target: "volume.build-evals", Version: 1, Hash: d1.Resource.Hash},
		{Address: "data.dataset.evals", Target: "dataset.build-evals", Version: 1, Hash: "md5:x"},
		{Address: "data.volume.evals", Target: "volume.x"},
	} {
		up.DataPins = []service.DataPin{bad}
		if _, err := c.Apply(ctx, up); !errors.Is(err, service.ErrInvalid) {
			t.Errorf("Apply with data pin %+v = %v, want invalid argument", bad, err)
		}
	}
}

// TestIssue10AnyTokenResolvesDataSources: a token of one project, which
// cannot read project "-", still resolves the data sources its GetState
// names (issue 10): hashes and versions, no spec or value.
func TestIssue10AnyTokenResolvesDataSources(t *testing.T) {
	ctx := context.Background()
	cert, pool := selfSigned(t)
	const tokenSDK, tokenA = "platform-sdk-token-0123456789", "project-a-token-0123456789ab"
	tokens, err := service.ParseTokens("tokens", []byte(tokenSDK+" - sdk\n"+tokenA+" a team-a\n"))
	if err != nil {
		t.Fatal(err)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, lis, "", service.WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}), service.WithTokens(tokens))
	dial := func(token string) *service.Client {
		t.Helper()
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
	v := mustApply(t, sdk, applyReq(t, service.Unowned, "volume.build-cache", service.ActionCreate, map[string]any{"size": "1Gi"}, 0))
	if _, err := a.GetState(ctx, service.Unowned); !errors.Is(err, service.ErrPermissionDenied) {
		t.Fatalf("GetState(-) with a token of project a = %v, want permission denied", err)
	}
	resp, err := a.ReadState(ctx, service.StateRequest{Project: "a", Data: []service.DataLookup{{Kind: "volume", Name: "build-cache"}}})
	if err != nil || len(resp.Data) != 1 || resp.Data[0].DataResult != (state.DataResult{Found: true, Address: "volume.build-cache", Hash: v.Resource.Hash}) {
		t.Fatalf("ReadState(a, data volume build-cache) = %+v, %v", resp, err)
	}
}
