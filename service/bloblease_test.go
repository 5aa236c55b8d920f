package service_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"cc.dev/cc/service"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// blobLeaseFixture is a server without autoLease, on a test clock, and a
// blob to upload into project p.
type blobLeaseFixture struct {
	t    *testing.T
	clk  *clock
	c    *service.Client
	data []byte
}

func newBlobLeaseFixture(t *testing.T) *blobLeaseFixture {
	clk := newClock()
	return &blobLeaseFixture{t: t, clk: clk, c: openRaw(t, "", service.WithClock(clk.Now)), data: bytes.Repeat([]byte("blob "), 1000)}
}

func (f *blobLeaseFixture) upload(leaseID string) error {
	_, err := f.c.UploadBlob(context.Background(), service.BlobUpload{Project: "p", Digest: digest(f.data), Size: int64(len(f.data)), LeaseID: leaseID}, bytes.NewReader(f.data))
	return err
}

func (f *blobLeaseFixture) lock(user string, ttl time.Duration) service.Lease {
	f.t.Helper()
	l, _, err := f.c.Lock(context.Background(), "p", service.Holder{User: user, Host: "h"}, ttl)
	if err != nil {
		f.t.Fatal(err)
	}
	return l
}

// refused checks that err is a LeaseError of project p with reason, and
// that the blob was not stored.
func (f *blobLeaseFixture) refused(what string, err error, reason string) *service.LeaseError {
	f.t.Helper()
	var le *service.LeaseError
	if !errors.As(err, &le) || !errors.Is(err, service.ErrLeaseRefused) || le.Reason != reason || le.Project != "p" {
		f.t.Fatalf("%s = %v (%T), want a *LeaseError for project p with reason %q", what, err, err, reason)
	}
	missing, err := f.c.MissingBlobs(context.Background(), "p", []string{digest(f.data)})
	if err != nil || len(missing) != 1 {
		f.t.Fatalf("%s: MissingBlobs() = %v, %v; want the refused blob missing", what, missing, err)
	}
	return le
}

// TestUploadBlobNeedsLease: issue 10 (blob lease). An upload is a mutation:
// without a live lease of its own it is refused like ApplyResource (none,
// held naming the holder but not its lease id, released, expired) and
// stores nothing; under the lease it is stored.
func TestUploadBlobNeedsLease(t *testing.T) {
	f := newBlobLeaseFixture(t)
	f.refused("UploadBlob() without a lease", f.upload(""), service.LeaseNone)

	alice := f.lock("alice", time.Minute)
	le := f.refused("UploadBlob() under another's lock", f.upload("not-alices"), service.LeaseHeld)
	if le.Holder.User != "alice" || strings.Contains(le.Error(), alice.ID) {
		t.Fatalf("held refusal %q (holder %+v): want alice named, her lease id not shown", le, le.Holder)
	}
	if err := f.c.Unlock(context.Background(), "p", alice.ID); err != nil {
		t.Fatal(err)
	}
	f.refused("UploadBlob() with a released lease", f.upload(alice.ID), service.LeaseReleased)

	bob := f.lock("bob", time.Minute)
	f.clk.Advance(2 * time.Minute)
	f.refused("UploadBlob() with an expired lease", f.upload(bob.ID), service.LeaseExpired)

	carol := f.lock("carol", time.Hour)
	if err := f.upload(carol.ID); err != nil {
		t.Fatalf("UploadBlob() under the lease = %v", err)
	}
	if missing, err := f.c.MissingBlobs(context.Background(), "p", []string{digest(f.data)}); err != nil || len(missing) != 0 {
		t.Fatalf("MissingBlobs() after the upload = %v, %v; want none", missing, err)
	}
}

// TestUploadBlobLeaseCheckedBeforeData: issue 10 (blob lease). A caller
// without the lease is refused on its header, before the server waits for
// its data: the header alone, announcing more bytes than are ever sent,
// gets the lease refusal, not a size mismatch.
func TestUploadBlobLeaseCheckedBeforeData(t *testing.T) {
	f := newBlobLeaseFixture(t)
	stream, err := ccv1.NewBlobServiceClient(service.ClientConn(f.c)).UploadBlob(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h := &ccv1.UploadBlobRequest_Header{Project: "p", Digest: digest(f.data), Size: 1 << 20}
	if err := stream.Send(&ccv1.UploadBlobRequest{Part: &ccv1.UploadBlobRequest_Header_{Header: h}}); err != nil {
		t.Fatal(err)
	}
	_, err = stream.CloseAndRecv()
	r := leaseRefused(err)
	if r == nil || r.GetReason() != service.LeaseNone {
		t.Fatalf("UploadBlob(header only, no lease) = %v; want a LeaseRefused detail with reason none", err)
	}
}

// TestUploadBlobLeaseLostMidStream: issue 10 (blob lease). A lease that
// expires, or is released by force, while the data streams stores nothing:
// the lease is checked again in the transaction that registers the blob.
func TestUploadBlobLeaseLostMidStream(t *testing.T) {
	for _, tc := range []struct {
		name   string
		lose   func(f *blobLeaseFixture)
		reason string
	}{
		{"expired", func(f *blobLeaseFixture) { f.clk.Advance(2 * time.Minute) }, service.LeaseExpired},
		{"force-unlocked", func(f *blobLeaseFixture) {
			if _, err := f.c.ForceUnlock(context.Background(), "p"); err != nil {
				f.t.Fatal(err)
			}
		}, service.LeaseReleased},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newBlobLeaseFixture(t)
			l := f.lock("alice", time.Minute)
			stream, err := ccv1.NewBlobServiceClient(service.ClientConn(f.c)).UploadBlob(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			h := &ccv1.UploadBlobRequest_Header{Project: "p", Digest: digest(f.data), Size: int64(len(f.data)), LeaseId: l.ID}
			send := func(m *ccv1.UploadBlobRequest) {
				t.Helper()
				if err := stream.Send(m); err != nil {
					t.Fatal(err)
				}
			}
			send(&ccv1.UploadBlobRequest{Part: &ccv1.UploadBlobRequest_Header_{Header: h}})
			half := len(f.data) / 2
			send(&ccv1.UploadBlobRequest{Part: &ccv1.UploadBlobRequest_Data{Data: f.data[:half]}})
			// The header was accepted (the server is waiting for data) before
			// the lease is lost: give it the time to read the header.
			time.Sleep(100 * time.Millisecond)
			tc.lose(f)
			send(&ccv1.UploadBlobRequest{Part: &ccv1.UploadBlobRequest_Data{Data: f.data[half:]}})
			_, err = stream.CloseAndRecv()
			if r := leaseRefused(err); r == nil || r.GetReason() != tc.reason {
				t.Fatalf("UploadBlob() losing its lease mid-stream = %v; want a LeaseRefused detail with reason %q", err, tc.reason)
			}
			if missing, err := f.c.MissingBlobs(context.Background(), "p", []string{digest(f.data)}); err != nil || len(missing) != 1 {
				t.Fatalf("MissingBlobs() after the refused upload = %v, %v; want it missing", missing, err)
			}
			if _, err := f.c.ReadBlob(context.Background(), "p", digest(f.data), 0); !errors.Is(err, service.ErrNotFound) {
				t.Fatalf("ReadBlob() of the refused blob = %v, want not found", err)
			}
		})
	}
}
