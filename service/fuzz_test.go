package service_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"cc.dev/cc/schema"
	"cc.dev/cc/service"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// fuzzMethods are the unary calls FuzzServer makes, by its first byte.
var fuzzMethods = []struct {
	name string
	req  func() proto.Message
	resp func() proto.Message
}{
	{ccv1.ProjectService_GetState_FullMethodName, func() proto.Message { return &ccv1.GetStateRequest{} }, func() proto.Message { return &ccv1.GetStateResponse{} }},
	{ccv1.ProjectService_Lock_FullMethodName, func() proto.Message { return &ccv1.LockRequest{} }, func() proto.Message { return &ccv1.LockResponse{} }},
	{ccv1.ProjectService_RenewLock_FullMethodName, func() proto.Message { return &ccv1.RenewLockRequest{} }, func() proto.Message { return &ccv1.RenewLockResponse{} }},
	{ccv1.ProjectService_Unlock_FullMethodName, func() proto.Message { return &ccv1.UnlockRequest{} }, func() proto.Message { return &ccv1.UnlockResponse{} }},
	{ccv1.BlobService_FindMissingBlobs_FullMethodName, func() proto.Message { return &ccv1.FindMissingBlobsRequest{} }, func() proto.Message { return &ccv1.FindMissingBlobsResponse{} }},
	{ccv1.BlobService_ReadBlob_FullMethodName, func() proto.Message { return &ccv1.ReadBlobRequest{} }, func() proto.Message { return &ccv1.ReadBlobResponse{} }},
	{ccv1.ResourceService_EnsureImage_FullMethodName, func() proto.Message { return &ccv1.EnsureImageRequest{} }, func() proto.Message { return &ccv1.EnsureImageResponse{} }},
	{ccv1.ResourceService_ApplyResource_FullMethodName, func() proto.Message { return &ccv1.ApplyResourceRequest{} }, func() proto.Message { return &ccv1.ApplyResourceResponse{} }},
	{ccv1.ResourceService_DeleteResource_FullMethodName, func() proto.Message { return &ccv1.DeleteResourceRequest{} }, func() proto.Message { return &ccv1.DeleteResourceResponse{} }},
	{ccv1.ResourceService_ListVersions_FullMethodName, func() proto.Message { return &ccv1.ListVersionsRequest{} }, func() proto.Message { return &ccv1.ListVersionsResponse{} }},
	{ccv1.ResourceService_Rollback_FullMethodName, func() proto.Message { return &ccv1.RollbackRequest{} }, func() proto.Message { return &ccv1.RollbackResponse{} }},
	{ccv1.ResourceService_PutSecretValue_FullMethodName, func() proto.Message { return &ccv1.PutSecretValueRequest{} }, func() proto.Message { return &ccv1.PutSecretValueResponse{} }},
	{ccv1.ResourceService_CompareValues_FullMethodName, func() proto.Message { return &ccv1.CompareValuesRequest{} }, func() proto.Message { return &ccv1.CompareValuesResponse{} }},
	// issue 10, drift: the changes made outside cc.
	{ccv1.ResourceService_PatchResource_FullMethodName, func() proto.Message { return &ccv1.PatchResourceRequest{} }, func() proto.Message { return &ccv1.PatchResourceResponse{} }},
	{ccv1.ResourceService_TerminateSandbox_FullMethodName, func() proto.Message { return &ccv1.TerminateSandboxRequest{} }, func() proto.Message { return &ccv1.TerminateSandboxResponse{} }},
	{ccv1.ResourceService_AcceptDrift_FullMethodName, func() proto.Message { return &ccv1.AcceptDriftRequest{} }, func() proto.Message { return &ccv1.AcceptDriftResponse{} }},
	// issue 10: moves, forgetting, adoption (appended: the corpus names methods by index).
	{ccv1.ResourceService_MoveResource_FullMethodName, func() proto.Message { return &ccv1.MoveResourceRequest{} }, func() proto.Message { return &ccv1.MoveResourceResponse{} }},
	{ccv1.ResourceService_ForgetResource_FullMethodName, func() proto.Message { return &ccv1.ForgetResourceRequest{} }, func() proto.Message { return &ccv1.ForgetResourceResponse{} }},
	{ccv1.ResourceService_AdoptResource_FullMethodName, func() proto.Message { return &ccv1.AdoptResourceRequest{} }, func() proto.Message { return &ccv1.AdoptResourceResponse{} }},
	// issue 12: outputs (appended).
	{ccv1.ResourceService_SetOutputs_FullMethodName, func() proto.Message { return &ccv1.SetOutputsRequest{} }, func() proto.Message { return &ccv1.SetOutputsResponse{} }},
	// issue 13: batches (appended).
	{ccv1.ResourceService_ApplyBatch_FullMethodName, func() proto.Message { return &ccv1.ApplyBatchRequest{} }, func() proto.Message { return &ccv1.ApplyBatchResponse{} }},
}

func methodIndex(name string) byte {
	for i, m := range fuzzMethods {
		if m.name == name {
			return byte(i)
		}
	}
	panic(name)
}

// FuzzServer sends random requests through the real server (its
// interceptors and handlers, over bufconn, on a SQLite file): the first
// byte picks the call, flags the second, and the rest is the request's
// protobuf encoding. Unless the flags say otherwise, the request is about
// project fz and expects its current serial. Mutations carry the lease autoLease holds, unless the
// input names one, and their spec's hash is made to match it when the
// flags say so, so that specs themselves are explored. No input may crash
// the server (a recovered panic is an Internal error, and fails), and no
// accepted state may hold a spec that schema.ValidateSpec refuses, a
// reference its dependencies do not name, a dependency on what the project
// lacks, or a cycle (issue 8 acceptance 4).
func FuzzServer(f *testing.F) {
	seed := func(method string, flags byte, m proto.Message) {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{methodIndex(method), flags}, b...))
	}
	imgSpec := mustCanonical(f, map[string]any{"from": "busybox"})
	img := schema.Hash(imgSpec)
	vol := mustCanonical(f, volume("1Gi"))
	fn := mustCanonical(f, map[string]any{"image": schema.Hash(imgSpec), "source": map[string]any{"paths": []string{"src"}, "digest": schema.Hash([]byte("src"))},
		"handler": "main.run", "timeout": "300s", "retries": 0})
	seed(ccv1.ProjectService_GetState_FullMethodName, 0, &ccv1.GetStateRequest{Project: "fz"})
	seed(ccv1.ProjectService_GetState_FullMethodName, 0, &ccv1.GetStateRequest{Project: "fz", KnownSerial: 1, Compare: []*ccv1.CompareValue{
		{Address: "secret.s", Value: []byte("v")}, {Address: "function.g", Pointer: "/handler", Value: []byte(`"main.run"`)}, {Address: "function.f", Pointer: "/image/x", Value: []byte(`1`)}}})
	seed(ccv1.ResourceService_CompareValues_FullMethodName, 0, &ccv1.CompareValuesRequest{Project: "fz", Values: []*ccv1.CompareValue{{Address: "function.g", Pointer: "/handler", Value: []byte(`"main.run"`), Revision: 1}}})
	seed(ccv1.ResourceService_EnsureImage_FullMethodName, 1, &ccv1.EnsureImageRequest{Project: "fz", Address: "image.base", Spec: imgSpec, Hash: img})
	seed(ccv1.ResourceService_ApplyResource_FullMethodName, 1, &ccv1.ApplyResourceRequest{Project: "fz", Address: "volume.v", Action: ccv1.Action_ACTION_CREATE, Spec: vol, Hash: schema.Hash(vol)})
	seed(ccv1.ResourceService_ApplyResource_FullMethodName, 1, &ccv1.ApplyResourceRequest{Project: "fz", Address: "function.f", Action: ccv1.Action_ACTION_CREATE, Spec: fn, Hash: schema.Hash(fn),
		DependsOn: []string{"image.base"}})
	seed(ccv1.ResourceService_ApplyResource_FullMethodName, 1, &ccv1.ApplyResourceRequest{Project: "fz", Address: "function.g", Action: ccv1.Action_ACTION_UPDATE, Spec: fn, Hash: schema.Hash(fn),
		DependsOn: []string{"function.f"}, Sensitive: []string{"/handler"}})
	seed(ccv1.ResourceService_DeleteResource_FullMethodName, 0, &ccv1.DeleteResourceRequest{Project: "fz", Address: "image.base"})
	seed(ccv1.ResourceService_PutSecretValue_FullMethodName, 0, &ccv1.PutSecretValueRequest{Project: "fz", Address: "secret.s", Value: []byte("v")})
	seed(ccv1.ResourceService_Rollback_FullMethodName, 0, &ccv1.RollbackRequest{Project: "fz", Address: "function.f", Version: 1})
	seed(ccv1.ResourceService_ListVersions_FullMethodName, 0, &ccv1.ListVersionsRequest{Project: "fz", Address: "function.f"})
	seed(ccv1.ProjectService_Unlock_FullMethodName, 0, &ccv1.UnlockRequest{Project: "fz", Force: true})
	seed(ccv1.BlobService_ReadBlob_FullMethodName, 0, &ccv1.ReadBlobRequest{Project: "fz", Digest: schema.Hash([]byte("x"))})
	seed(ccv1.ResourceService_MoveResource_FullMethodName, 1, &ccv1.MoveResourceRequest{Project: "fz", From: "function.f", To: "function.h"})
	seed(ccv1.ResourceService_ForgetResource_FullMethodName, 1, &ccv1.ForgetResourceRequest{Project: "fz", Address: "volume.v"})
	seed(ccv1.ResourceService_AdoptResource_FullMethodName, 1, &ccv1.AdoptResourceRequest{Project: "fz", Address: "volume.w", Id: "v"})
	seed(ccv1.ProjectService_GetState_FullMethodName, 0, &ccv1.GetStateRequest{Project: "fz", Unowned: []string{"volume.v", "function.f"}})
	seed(ccv1.ResourceService_SetOutputs_FullMethodName, 0, &ccv1.SetOutputsRequest{Project: "fz", Outputs: []*ccv1.Output{{Name: "url", Value: []byte(`"x"`)}, {Name: "t", Value: []byte(`1`), Sensitive: true}}})
	seed(ccv1.ResourceService_ApplyBatch_FullMethodName, 1, &ccv1.ApplyBatchRequest{Project: "fz", Calls: []*ccv1.BatchCall{
		{Call: &ccv1.BatchCall_EnsureImage{EnsureImage: &ccv1.EnsureImageRequest{Project: "fz", Address: "image.base", Spec: imgSpec, Hash: img}}},
		{Call: &ccv1.BatchCall_ApplyResource{ApplyResource: &ccv1.ApplyResourceRequest{Project: "fz", Address: "function.f", Action: ccv1.Action_ACTION_CREATE, Spec: fn, Hash: schema.Hash(fn),
			DependsOn: []string{"image.base"}}}},
		{Call: &ccv1.BatchCall_ApplyResource{ApplyResource: &ccv1.ApplyResourceRequest{Project: "fz", Address: "volume.v", Action: ccv1.Action_ACTION_CREATE, Spec: vol, Hash: schema.Hash(vol)}}},
	}})

	c, closeFn, err := openEmbedded(context.Background(), testDB(f))
	if err != nil {
		f.Fatal(err)
	}
	conn := service.ClientConn(c)
	f.Cleanup(func() { closeFn() })
	if _, err := c.GetState(context.Background(), "fz"); err != nil {
		f.Fatal(err)
	}

	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) < 2 {
			return
		}
		m := fuzzMethods[int(in[0])%len(fuzzMethods)]
		flags := in[1]
		req := m.req()
		if err := proto.Unmarshal(in[2:], req); err != nil {
			return
		}
		r := req.ProtoReflect()
		fields := r.Descriptor().Fields()
		fuzzFixup(c, r, flags)
		if b, ok := req.(*ccv1.ApplyBatchRequest); ok {
			for _, call := range b.GetCalls() {
				if x := call.GetEnsureImage(); x != nil {
					fuzzFixup(c, x.ProtoReflect(), flags)
				} else if x := call.GetApplyResource(); x != nil {
					fuzzFixup(c, x.ProtoReflect(), flags)
				}
			}
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		err := conn.Invoke(ctx, m.name, req, m.resp())
		if code := status.Code(err); code == codes.Internal || code == codes.Unknown || code == codes.DeadlineExceeded {
			t.Fatalf("%s(%v) = %v", m.name, req, err)
		}
		if err != nil {
			return
		}
		switch m.name {
		case ccv1.ResourceService_EnsureImage_FullMethodName, ccv1.ResourceService_ApplyResource_FullMethodName, ccv1.ResourceService_ApplyBatch_FullMethodName:
		default:
			return
		}
		project := r.Get(fields.ByName("project")).String()
		st, err := c.GetState(context.Background(), project)
		if err != nil {
			t.Fatal(err)
		}
		checkGraphState(t, st)
	})
}

// fuzzFixup makes the request r of FuzzServer (or a call of a batch) more
// often one the service accepts, unless flags say otherwise: about the
// project the lease is for, with a spec hashed as its canonical form, and
// planned against the current serial.
func fuzzFixup(c *service.Client, r protoreflect.Message, flags byte) {
	fields := r.Descriptor().Fields()
	if flags&2 == 0 {
		if fd := fields.ByName("project"); fd != nil {
			r.Set(fd, protoreflect.ValueOfString("fz"))
		}
	}
	if flags&1 != 0 {
		if fd := fields.ByName("spec"); fd != nil {
			if canon, err := schema.Canonical(json.RawMessage(r.Get(fd).Bytes())); err == nil {
				r.Set(fd, protoreflect.ValueOfBytes(canon))
				r.Set(fields.ByName("hash"), protoreflect.ValueOfString(schema.Hash(canon)))
			}
		}
	}
	if fd := fields.ByName("expected_serial"); fd != nil && flags&4 == 0 {
		st, err := c.GetState(context.Background(), r.Get(fields.ByName("project")).String())
		if err == nil {
			r.Set(fd, protoreflect.ValueOfInt64(st.Serial))
		}
	}
}

// checkGraphState fails t unless every resource of st has a valid spec
// and dependencies the project has, without a cycle.
func checkGraphState(t *testing.T, st *service.State) {
	t.Helper()
	deps := map[string][]string{}
	for _, r := range st.Resources {
		refs, err := schema.SpecRefs(r.Kind, r.Spec)
		if err != nil {
			t.Fatalf("accepted %s with an invalid spec %s: %v", r.Address, r.Spec, err)
		}
		for _, ref := range refs {
			if !slices.Contains(r.DependsOn, ref) {
				t.Fatalf("accepted %s referring to %s without depending on it", r.Address, ref)
			}
		}
		deps[r.Address] = r.DependsOn
	}
	const (
		visiting = 1
		done     = 2
	)
	mark := map[string]int{}
	var visit func(a string, path []string)
	visit = func(a string, path []string) {
		switch mark[a] {
		case visiting:
			t.Fatalf("accepted a cycle: %v", append(path, a))
		case done:
			return
		}
		mark[a] = visiting
		for _, d := range deps[a] {
			if _, ok := deps[d]; !ok {
				t.Fatalf("accepted %s depending on %s, which the project lacks", a, d)
			}
			visit(d, append(path, a))
		}
		mark[a] = done
	}
	for a := range deps {
		visit(a, nil)
	}
}

func mustCanonical(tb testing.TB, v any) []byte {
	_, b, err := schema.HashOf(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
