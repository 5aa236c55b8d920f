package service_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/service"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// lockedClient is a client of a new service, holding a lease of project.
func lockedClient(t *testing.T, project string) (*service.Client, service.Lease) {
	t.Helper()
	_, c, _ := serveUnix(t, t.TempDir())
	lease, _, err := c.Lock(context.Background(), project, service.Holder{User: "u", Host: "h"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return c, lease
}

// leased is req with the lease id.
func leased(req service.ApplyRequest, id string) service.ApplyRequest {
	req.LeaseID = id
	return req
}

// TestApplyBatchAnswersEachAsAlone: issue 13, a batched apply. The calls
// of one ApplyBatch commit in one transaction; each failing one gets the
// error it gets alone (with its details: a *StaleError is one), takes
// nothing of the others with it, and writes nothing; an idempotency key
// replays the same answer alone and in a batch, either way round.
func TestApplyBatchAnswersEachAsAlone(t *testing.T) {
	ctx := context.Background()
	srv, c, _ := serveUnix(t, t.TempDir())
	lease, _, err := c.Lock(ctx, "p", service.Holder{User: "u", Host: "h"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	first := leased(applyReq(t, "p", "volume.a", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	first.IdempotencyKey = "k-a"
	firstRes := mustApply(t, c, first)

	img, h := spec(t, map[string]any{"from": "python:3.12-slim@sha256:abc", "steps": []any{}})
	dup := leased(applyReq(t, "p", "volume.a", service.ActionCreate, volume("2Gi"), 1), lease.ID)
	stale := leased(applyReq(t, "p", "volume.a", service.ActionUpdate, volume("3Gi"), 0), lease.ID)
	stale.ExpectedSerial = 0
	bad := leased(applyReq(t, "p", "volume.bad", service.ActionCreate, map[string]any{"size": "lots"}, 1), lease.ID)
	fn := leased(applyReq(t, "p", "function.f", service.ActionCreate, function("main.run"), 1), lease.ID)
	fn.IdempotencyKey = "k-f"
	vol := leased(applyReq(t, "p", "volume.b", service.ActionCreate, volume("1Gi"), 1), lease.ID)
	image := service.ImageRequest{Project: "p", Address: "image.base", Hash: h, Spec: img, ExpectedSerial: 1, LeaseID: lease.ID}

	// What the failing ones get alone (none of them writes).
	var alone []error
	for _, r := range []service.ApplyRequest{dup, stale, bad} {
		_, err := c.Apply(ctx, r)
		if err == nil {
			t.Fatalf("Apply(%s) alone succeeded, want it refused", r.Address)
		}
		alone = append(alone, err)
	}

	b := holdFirstBatch(t, srv, 0, nil)
	calls := []service.BatchCall{{Image: &image}, {Apply: &dup}, {Apply: &vol}, {Apply: &stale}, {Apply: &fn}, {Apply: &bad}, {Apply: &first}}
	res, err := c.ApplyBatch(ctx, "p", calls)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != len(calls) {
		t.Fatalf("%d results for %d calls", len(res), len(calls))
	}
	for i, want := range map[int]error{1: alone[0], 5: alone[2]} {
		if got := res[i].Err; got == nil || got.Error() != want.Error() || fmt.Sprintf("%T", got) != fmt.Sprintf("%T", want) {
			t.Errorf("call %d in a batch = %v (%T), want %v (%T) as alone", i, got, got, want, want)
		}
	}
	// Stale as alone, the project then at serial 3 (after the batch's
	// image and volume.b).
	var se *service.StaleError
	if !errors.As(alone[1], &se) {
		t.Fatalf("the stale update alone = %v, want a *StaleError", alone[1])
	}
	want := *se
	want.ProjectSerial = 3
	if !errors.As(res[3].Err, &se) || *se != want {
		t.Errorf("the stale update in a batch = %#v, want %#v", res[3].Err, want)
	}
	if res[0].Err != nil || res[0].Image == nil || !res[0].Image.Created || res[0].Image.Serial != 2 {
		t.Errorf("the image in a batch = %+v, want it created at serial 2", res[0])
	}
	if res[2].Err != nil || res[2].Apply == nil || res[2].Apply.Serial != 3 || res[4].Err != nil || res[4].Apply.Serial != 4 {
		t.Errorf("the creates in a batch = %+v and %+v, want serials 3 and 4, in the batch's order", res[2], res[4])
	}
	if res[6].Err != nil || cmp.Diff(firstRes, res[6].Apply) != "" {
		t.Errorf("the key of an earlier call in a batch = %+v, %v; want its first answer %+v", res[6].Apply, res[6].Err, firstRes)
	}
	if len(b.commits) != 1 || b.commits[0] != 4 {
		t.Errorf("commits of %v mutations, want the 4 that succeeded in one transaction", b.commits)
	}
	// The key of a call in the batch replays alone, writing nothing.
	again := mustApply(t, c, fn)
	if diff := cmp.Diff(res[4].Apply, again); diff != "" {
		t.Errorf("the batch's call again alone (-batch +alone):\n%s", diff)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if st.Serial != 4 || len(st.Resources) != 4 || st.Lookup("volume.bad") != nil {
		t.Errorf("state at serial %d with %d resources, want 4 and 4 (volume.a, image.base, volume.b, function.f)", st.Serial, len(st.Resources))
	}
	if r := st.Lookup("volume.a"); r == nil || r.Serial != 1 {
		t.Errorf("volume.a = %+v, want it untouched at serial 1", r)
	}
}

// TestApplyBatchRefusals: issue 13. A batch is refused whole, writing
// nothing, when one of its calls names another project than the batch
// (whose project is the one authorized: a token for one project cannot
// reach another through it), when it is empty of a call, or too long; a
// call without the project's live lease is refused alone.
func TestApplyBatchRefusals(t *testing.T) {
	ctx := context.Background()
	_, c, conn := serveUnix(t, t.TempDir())
	lease, _, err := c.Lock(ctx, "p", service.Holder{User: "u", Host: "h"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	ok := leased(applyReq(t, "p", "volume.a", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	other := leased(applyReq(t, "q", "volume.b", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	if _, err := c.ApplyBatch(ctx, "p", []service.BatchCall{{Apply: &ok}, {Apply: &other}}); !errors.Is(err, service.ErrInvalid) {
		t.Errorf("ApplyBatch(a call of project q in a batch of p) = %v, want invalid", err)
	}
	if _, err := c.ApplyBatch(ctx, "q", []service.BatchCall{{Apply: &ok}}); !errors.Is(err, service.ErrInvalid) {
		t.Errorf("ApplyBatch(a call of project p in a batch of q) = %v, want invalid", err)
	}
	rc := ccv1.NewResourceServiceClient(conn)
	if _, err := rc.ApplyBatch(ctx, &ccv1.ApplyBatchRequest{Project: ""}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("ApplyBatch(no project, no call) = %v, want InvalidArgument", err)
	}
	if _, err := rc.ApplyBatch(ctx, &ccv1.ApplyBatchRequest{Project: "p", Calls: []*ccv1.BatchCall{{}}}); status.Code(err) != codes.InvalidArgument {
		t.Errorf("ApplyBatch(an empty call) = %v, want InvalidArgument", err)
	}
	long := make([]service.BatchCall, service.MaxBatchCalls+1)
	for i := range long {
		long[i].Apply = &ok
	}
	if _, err := c.ApplyBatch(ctx, "p", long); !errors.Is(err, service.ErrInvalid) {
		t.Errorf("ApplyBatch(%d calls) = %v, want invalid", len(long), err)
	}
	if _, err := c.ApplyBatch(ctx, "p", []service.BatchCall{{}}); err == nil {
		t.Error("ApplyBatch(a call of neither kind) succeeded")
	}
	unleased := ok
	unleased.LeaseID = "not-the-lease"
	res, err := c.ApplyBatch(ctx, "p", []service.BatchCall{{Apply: &unleased}, {Apply: &ok}})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res[0].Err, service.ErrLeaseRefused) || res[1].Err != nil {
		t.Errorf("ApplyBatch(without the lease, with it) = %v, %v; want the first refused, the second done", res[0].Err, res[1].Err)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if st.Serial != 1 || len(st.Resources) != 1 {
		t.Errorf("state at serial %d with %d resources, want only the leased call's", st.Serial, len(st.Resources))
	}
	if st, err := c.GetState(ctx, "q"); err != nil || st.Serial != 0 {
		t.Errorf("project q at serial %d (%v), want untouched", st.Serial, err)
	}
}

// TestBatchForgetsWhatAFailedCallRead: issue 13. The calls of one batch
// share what their transaction read of the project row, the lease and
// absent rows (txFacts). A call that fails is rolled back, and what it
// wrote with it: the project row it made for a new project. The call
// after it makes the row again (the project has its serial and lineage),
// as it would alone.
func TestBatchForgetsWhatAFailedCallRead(t *testing.T) {
	ctx := context.Background()
	c, lease := lockedClient(t, "fresh")
	missing := leased(applyReq(t, "fresh", "volume.none", service.ActionUpdate, volume("1Gi"), 0), lease.ID)
	vol := leased(applyReq(t, "fresh", "volume.b", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	res, err := c.ApplyBatch(ctx, "fresh", []service.BatchCall{{Apply: &missing}, {Apply: &vol}})
	if err != nil {
		t.Fatal(err)
	}
	if !errors.Is(res[0].Err, service.ErrNotFound) || res[1].Err != nil {
		t.Fatalf("batch = %v, %v; want NotFound for the update of a resource never made, then the create", res[0].Err, res[1].Err)
	}
	st, err := c.GetState(ctx, "fresh")
	if err != nil {
		t.Fatal(err)
	}
	if st.Serial != 1 || st.Lineage == "" || len(st.Resources) != 1 {
		t.Fatalf("state after the batch: serial %d, lineage %q, %d resources; want serial 1, a lineage, volume.b", st.Serial, st.Lineage, len(st.Resources))
	}
}

// TestBatchSeesWhatAnEarlierCallWrote: issue 13. A call of a batch that
// protects a resource makes the transaction forget that the resource had
// no protection (txFacts): a replace after it in the same batch is
// refused, as it is alone.
func TestBatchSeesWhatAnEarlierCallWrote(t *testing.T) {
	ctx := context.Background()
	c, lease := lockedClient(t, "p")
	create := leased(applyReq(t, "p", "volume.x", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	protect := leased(applyReq(t, "p", "volume.x", service.ActionUpdate, volume("1Gi"), 1), lease.ID)
	protect.PreventDestroy, protect.PreventDestroyAt = true, "main.hcl:1:1"
	replace := leased(applyReq(t, "p", "volume.x", service.ActionReplace, volume("2Gi"), 2), lease.ID)
	res, err := c.ApplyBatch(ctx, "p", []service.BatchCall{{Apply: &create}, {Apply: &protect}, {Apply: &replace}})
	if err != nil {
		t.Fatal(err)
	}
	var pe *service.ProtectedError
	if res[0].Err != nil || res[1].Err != nil || !errors.As(res[2].Err, &pe) {
		t.Fatalf("batch = %v, %v, %v; want the create, the protection, then the replace refused as protected", res[0].Err, res[1].Err, res[2].Err)
	}
}

// TestProtectionsPastWhatATransactionReadsWhole: issue 13. A transaction
// reads a project's protections whole (txFacts) when there are at most
// 1,000 of them; past that, one at a time, with the same answers: a
// replace of any protected resource is refused, and a resource without
// protection is replaced.
func TestProtectionsPastWhatATransactionReadsWhole(t *testing.T) {
	ctx := context.Background()
	c, lease := lockedClient(t, "p")
	create := func(from, to int) {
		t.Helper()
		var calls []service.BatchCall
		for i := from; i < to; i++ {
			r := leased(applyReq(t, "p", fmt.Sprintf("volume.v-%d", i), service.ActionCreate, volume("1Gi"), 0), lease.ID)
			r.PreventDestroy, r.PreventDestroyAt = true, fmt.Sprintf("main.hcl:%d:1", i+1)
			calls = append(calls, service.BatchCall{Apply: &r})
		}
		res, err := c.ApplyBatch(ctx, "p", calls)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range res {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
	}
	create(0, 1000)
	create(1000, 1001)
	plain := leased(applyReq(t, "p", "volume.plain", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	mustApply(t, c, plain)
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	var pe *service.ProtectedError
	for _, addr := range []string{"volume.v-0", "volume.v-1000"} {
		r := leased(applyReq(t, "p", addr, service.ActionReplace, volume("2Gi"), st.Serial), lease.ID)
		if _, err := c.Apply(ctx, r); !errors.As(err, &pe) || pe.Address != addr {
			t.Errorf("replace %s of 1,001 protected = %v, want refused as protected", addr, err)
		}
	}
	r := leased(applyReq(t, "p", "volume.plain", service.ActionReplace, volume("2Gi"), st.Serial), lease.ID)
	if _, err := c.Apply(ctx, r); err != nil {
		t.Errorf("replace of volume.plain, not protected = %v", err)
	}
}

// TestBatchLooksUpKeysAndBlobsOnce: issue 13. A batch looks up the
// idempotency keys and blobs of all its calls before it runs them
// (prefetch); what a call writes is seen by the calls after it. A key
// used twice in one batch replays the first answer, or is refused for a
// different request, as in two batches; a call naming a blob the project
// lacks is refused while another with an uploaded blob is applied.
func TestBatchLooksUpKeysAndBlobsOnce(t *testing.T) {
	ctx := context.Background()
	c, lease := lockedClient(t, "p")
	blob := []byte("the data")
	have := fmt.Sprintf("sha256:%x", sha256.Sum256(blob))
	lacks := fmt.Sprintf("sha256:%x", sha256.Sum256([]byte("never uploaded")))
	if _, err := c.UploadBlob(ctx, service.BlobUpload{Project: "p", Digest: have, Size: int64(len(blob)), LeaseID: lease.ID}, bytes.NewReader(blob)); err != nil {
		t.Fatal(err)
	}
	a := leased(applyReq(t, "p", "volume.a", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	a.IdempotencyKey, a.Blobs = "k-a", []string{have}
	other := leased(applyReq(t, "p", "volume.b", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	other.IdempotencyKey = "k-a"
	missing := leased(applyReq(t, "p", "volume.c", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	missing.Blobs = []string{have, lacks}
	res, err := c.ApplyBatch(ctx, "p", []service.BatchCall{{Apply: &a}, {Apply: &a}, {Apply: &missing}, {Apply: &other}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || res[1].Err != nil {
		t.Fatalf("a call and its retry in one batch = %v, %v; want both answered", res[0].Err, res[1].Err)
	}
	if res[0].Apply.Serial != res[1].Apply.Serial || res[0].Apply.Resource.ID != res[1].Apply.Resource.ID {
		t.Errorf("the retry in the batch = serial %d, id %s; want the first answer (serial %d, id %s)",
			res[1].Apply.Serial, res[1].Apply.Resource.ID, res[0].Apply.Serial, res[0].Apply.Resource.ID)
	}
	if !errors.Is(res[3].Err, service.ErrInvalid) {
		t.Errorf("the key used again for another request in the batch = %v, want refused as invalid", res[2].Err)
	}
	var mb *service.MissingBlobsError
	if !errors.As(res[2].Err, &mb) || len(mb.Digests) != 1 || mb.Digests[0] != lacks {
		t.Errorf("a call naming a blob never uploaded = %v, want missing blobs [%s]", res[2].Err, lacks)
	}
	st, err := c.GetState(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if st.Serial != 1 || len(st.Resources) != 1 {
		t.Errorf("after the batch: serial %d, %d resources; want serial 1 with volume.a alone", st.Serial, len(st.Resources))
	}
}

// TestBatchWalksTheGraphItWrote: issue 13. A batch remembers the
// dependencies of the resources it read and wrote (txFacts.deps): a call
// that closes a cycle with what an earlier call of the same batch wrote
// is refused, as it is in the next batch.
func TestBatchWalksTheGraphItWrote(t *testing.T) {
	ctx := context.Background()
	c, lease := lockedClient(t, "p")
	a := leased(applyReq(t, "p", "volume.a", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	b := leased(applyReq(t, "p", "volume.b", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	cOnA := leased(applyReq(t, "p", "volume.c", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	cOnA.DependsOn = []string{"volume.a"} // the batch reads volume.a's dependencies: none
	aOnB := leased(applyReq(t, "p", "volume.a", service.ActionUpdate, volume("1Gi"), 2), lease.ID)
	aOnB.DependsOn = []string{"volume.b"}
	bOnA := leased(applyReq(t, "p", "volume.b", service.ActionUpdate, volume("1Gi"), 2), lease.ID)
	bOnA.DependsOn = []string{"volume.a"}
	res, err := c.ApplyBatch(ctx, "p", []service.BatchCall{{Apply: &a}, {Apply: &b}, {Apply: &cOnA}, {Apply: &aOnB}, {Apply: &bOnA}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || res[1].Err != nil || res[2].Err != nil || res[3].Err != nil {
		t.Fatalf("batch = %v, %v, %v, %v; want the creates and volume.a's new dependency applied", res[0].Err, res[1].Err, res[2].Err, res[3].Err)
	}
	if !errors.Is(res[4].Err, service.ErrCycle) {
		t.Errorf("volume.b depending on volume.a, which now depends on it, in the same batch = %v, want a cycle refused", res[4].Err)
	}
}

// TestBatchCreatesOnce: issue 13. A batch looks up the resources its
// calls write before it runs them (prefetch): one it creates is there for
// the calls after it, and a second create of it is refused as alone.
func TestBatchCreatesOnce(t *testing.T) {
	ctx := context.Background()
	c, lease := lockedClient(t, "p")
	first := leased(applyReq(t, "p", "volume.n", service.ActionCreate, volume("1Gi"), 0), lease.ID)
	again := leased(applyReq(t, "p", "volume.n", service.ActionCreate, volume("2Gi"), 2), lease.ID)
	img, h := spec(t, map[string]any{"from": "python:3.12-slim@sha256:abc", "steps": []any{}})
	image := service.ImageRequest{Project: "p", Address: "image.base", Hash: h, Spec: img, LeaseID: lease.ID}
	imageAgain := image
	imageAgain.ExpectedSerial = 2
	res, err := c.ApplyBatch(ctx, "p", []service.BatchCall{{Apply: &first}, {Image: &image}, {Apply: &again}, {Image: &imageAgain}})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Err != nil || res[1].Err != nil || !errors.Is(res[2].Err, service.ErrAlreadyExists) || res[3].Err != nil {
		t.Fatalf("batch = %v, %v, %v, %v; want the create, the image, the second create refused, the image again", res[0].Err, res[1].Err, res[2].Err, res[3].Err)
	}
	if !res[1].Image.Created || res[3].Image.Created || res[3].Image.Changed {
		t.Errorf("the image ensured twice in one batch: created %v, then created %v changed %v; want it made once", res[1].Image.Created, res[3].Image.Created, res[3].Image.Changed)
	}
}
