package service_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/durationpb"

	"cc.dev/cc/service"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// autoLeaseUser is the holder autoLease takes leases as.
const autoLeaseUser = "test-auto-lease"

// autoLeaser gives every mutation without a lease_id the lease of its
// project's lock, taking it (for an hour) the first time, as an apply
// would: the tests that use it check other things than locking, and every
// mutation needs a live lease (issue 8 item 4). A lease that a test's clock
// let expire, or one left in the database by an earlier server of the same
// test, is taken again. Its unary interceptor serves ResourceService's
// calls, its stream interceptor UploadBlob's header (issue 10: an upload
// is a mutation too); both share the leases, so that the uploads and the
// mutations of one client hold the same lock.
type autoLeaser struct {
	mu     sync.Mutex
	leases map[string]string
}

// autoLease is the unary interceptor of a new autoLeaser, for clients that
// upload nothing.
func autoLease() grpc.UnaryClientInterceptor { return (&autoLeaser{}).unary() }

// autoLeasing is the dial options of a new autoLeaser: its unary and its
// stream interceptors.
func autoLeasing() []grpc.DialOption { return (&autoLeaser{}).dialOptions() }

func (l *autoLeaser) dialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithUnaryInterceptor(l.unary()), grpc.WithStreamInterceptor(l.stream())}
}

// take takes the project's lease, taking over one of ours left by an
// earlier connection.
func (l *autoLeaser) take(ctx context.Context, cc *grpc.ClientConn, project string) (string, error) {
	req := &ccv1.LockRequest{Project: project, Holder: &ccv1.Holder{User: autoLeaseUser, Host: "test"}, Ttl: durationpb.New(3600e9)}
	resp := &ccv1.LockResponse{}
	err := cc.Invoke(ctx, ccv1.ProjectService_Lock_FullMethodName, req, resp)
	if err != nil {
		var held *ccv1.LockHeld
		for _, d := range status.Convert(err).Details() {
			if h, ok := d.(*ccv1.LockHeld); ok {
				held = h
			}
		}
		if held == nil || held.GetLease().GetHolder().GetUser() != autoLeaseUser {
			return "", err
		}
		// Ours, from an earlier connection: take it over.
		if err := cc.Invoke(ctx, ccv1.ProjectService_Unlock_FullMethodName, &ccv1.UnlockRequest{Project: project, Force: true}, &ccv1.UnlockResponse{}); err != nil {
			return "", err
		}
		if err := cc.Invoke(ctx, ccv1.ProjectService_Lock_FullMethodName, req, resp); err != nil {
			return "", err
		}
	}
	if l.leases == nil {
		l.leases = map[string]string{}
	}
	l.leases[project] = resp.GetLease().GetId()
	return resp.GetLease().GetId(), nil
}

// get returns the project's lease, taking one unless it has one other
// than stale.
func (l *autoLeaser) get(ctx context.Context, cc *grpc.ClientConn, project, stale string) (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if id := l.leases[project]; id != "" && id != stale {
		return id, nil
	}
	return l.take(ctx, cc, project)
}

func (l *autoLeaser) unary() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if b, ok := req.(*ccv1.ApplyBatchRequest); ok && b.GetProject() != "" {
			return l.batch(ctx, b, func() error { return invoker(ctx, method, req, reply, cc, opts...) }, cc)
		}
		m, ok := req.(interface {
			proto.Message
			GetProject() string
			GetLeaseId() string
		})
		if !ok || !strings.HasPrefix(method, "/cc.v1.ResourceService/") || m.GetLeaseId() != "" || m.GetProject() == "" {
			return invoker(ctx, method, req, reply, cc, opts...)
		}
		project := m.GetProject()
		id, err := l.get(ctx, cc, project, "")
		if err != nil {
			return err
		}
		field := m.ProtoReflect().Descriptor().Fields().ByName("lease_id")
		set := func(id string) {
			m.ProtoReflect().Set(field, protoreflect.ValueOfString(id))
		}
		set(id)
		err = invoker(ctx, method, req, reply, cc, opts...)
		if r := leaseRefused(err); r != nil && (r.GetReason() == service.LeaseExpired || r.GetReason() == service.LeaseReleased ||
			(r.GetReason() == service.LeaseHeld && r.GetHolder().GetUser() == autoLeaseUser)) {
			if id, err = l.get(ctx, cc, project, id); err != nil {
				return err
			}
			set(id)
			err = invoker(ctx, method, req, reply, cc, opts...)
		}
		set("")
		return err
	}
}

// stream gives an upload's header without a lease_id the project's lease.
// A stream cannot be sent again: a lease found stale is not retried.
func (l *autoLeaser) stream() grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		s, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil || method != ccv1.BlobService_UploadBlob_FullMethodName {
			return s, err
		}
		return &leasedUpload{ClientStream: s, l: l, cc: cc}, nil
	}
}

// leasedUpload is an upload stream whose header autoLeaser completes.
type leasedUpload struct {
	grpc.ClientStream
	l  *autoLeaser
	cc *grpc.ClientConn
}

func (u *leasedUpload) SendMsg(m any) error {
	req, ok := m.(*ccv1.UploadBlobRequest)
	if h := req.GetHeader(); ok && h != nil && h.GetLeaseId() == "" && h.GetProject() != "" {
		id, err := u.l.get(u.Context(), u.cc, h.GetProject(), "")
		if err != nil {
			return err
		}
		h = proto.Clone(h).(*ccv1.UploadBlobRequest_Header)
		h.LeaseId = id
		m = &ccv1.UploadBlobRequest{Part: &ccv1.UploadBlobRequest_Header_{Header: h}}
	}
	return u.ClientStream.SendMsg(m)
}

func leaseRefused(err error) *ccv1.LeaseRefused {
	for _, d := range status.Convert(err).Details() {
		if r, ok := d.(*ccv1.LeaseRefused); ok {
			return r
		}
	}
	return nil
}

// openEmbedded is service.OpenEmbedded with autoLease.
func openEmbedded(ctx context.Context, dbPath string, opts ...service.Option) (*service.Client, func() error, error) {
	return service.OpenEmbeddedDial(ctx, dbPath, autoLeasing(), withKey(dbPath, opts)...)
}

// openWith runs an embedded server on a database in a temporary directory
// (or dbPath), its client's connection made with dial.
func openWith(t testing.TB, dbPath string, dial []grpc.DialOption, opts ...service.Option) *service.Client {
	t.Helper()
	if dbPath == "" {
		dbPath = testDB(t)
	}
	c, closeFn, err := service.OpenEmbeddedDial(context.Background(), dbPath, dial, withKey(dbPath, opts)...)
	if err != nil {
		t.Fatalf("OpenEmbedded() = %v", err)
	}
	t.Cleanup(func() {
		if err := closeFn(); err != nil {
			t.Errorf("close embedded server: %v", err)
		}
	})
	return c
}

// openRaw runs an embedded server whose client sends requests as they are,
// without autoLease.
func openRaw(t testing.TB, dbPath string, opts ...service.Option) *service.Client {
	t.Helper()
	return openWith(t, dbPath, nil, opts...)
}

// batch gives the calls of an ApplyBatch without a lease_id (if any) the
// lease of the batch's project, for one invoke (not retried: a test's batch sees
// its lease refused as it is).
func (l *autoLeaser) batch(ctx context.Context, b *ccv1.ApplyBatchRequest, invoke func() error, cc *grpc.ClientConn) error {
	var id string
	var set []interface{ ProtoReflect() protoreflect.Message }
	for _, c := range b.GetCalls() {
		var m interface {
			ProtoReflect() protoreflect.Message
			GetLeaseId() string
		}
		if r := c.GetEnsureImage(); r != nil {
			m = r
		} else if r := c.GetApplyResource(); r != nil {
			m = r
		}
		if m != nil && m.GetLeaseId() == "" {
			if id == "" {
				var err error
				if id, err = l.get(ctx, cc, b.GetProject(), ""); err != nil {
					return err
				}
			}
			m.ProtoReflect().Set(m.ProtoReflect().Descriptor().Fields().ByName("lease_id"), protoreflect.ValueOfString(id))
			set = append(set, m)
		}
	}
	err := invoke()
	for _, m := range set {
		m.ProtoReflect().Clear(m.ProtoReflect().Descriptor().Fields().ByName("lease_id"))
	}
	return err
}
