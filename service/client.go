package service

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"

	ccv1 "cc.dev/cc/service/proto/cc/v1"
	"cc.dev/cc/state"
)

// Client calls a cc service. Its methods return the typed errors of this
// package (NotFoundError, StaleError, LockedError, LeaseError,
// DependantsError, CycleError, UnauthenticatedError, PermissionDeniedError,
// MissingBlobsError, *Error) for service failures.
// It is safe for concurrent use.
type Client struct {
	conn      *grpc.ClientConn // nil when the caller owns the connection
	projects  ccv1.ProjectServiceClient
	blobs     ccv1.BlobServiceClient
	resources ccv1.ResourceServiceClient
	health    healthpb.HealthClient
}

// DialOption configures Dial.
type DialOption func(*dialConfig) error

type dialConfig struct {
	token string
	tls   *tls.Config
	extra []grpc.DialOption
}

// WithToken sends token as "authorization: Bearer TOKEN" on every call.
func WithToken(token string) DialOption {
	return func(c *dialConfig) error {
		if token == "" {
			return errors.New("empty token")
		}
		c.token = token
		return nil
	}
}

// WithTLSConfig connects with TLS. Without it the connection is plain,
// which only a local server without --tls-cert accepts.
func WithTLSConfig(cfg *tls.Config) DialOption {
	return func(c *dialConfig) error {
		if cfg == nil {
			return errors.New("nil TLS configuration")
		}
		c.tls = cfg
		return nil
	}
}

// WithGRPCOptions adds gRPC dial options (interceptors, for instance).
func WithGRPCOptions(opts ...grpc.DialOption) DialOption {
	return func(c *dialConfig) error {
		c.extra = append(c.extra, opts...)
		return nil
	}
}

// maxStateSize bounds a state read: a project's whole state is one message.
const maxStateSize = 1 << 30

// Dial connects to the service at target: "host:port",
// "unix:///path/to/socket", "dns:///name:port", or a list of replicas
// "host:port,host:port" (IsReplicaList). Calls go round robin over the
// addresses a target resolves to that are connected: those of a list, or
// every record of a DNS name. It does not wait for the connection.
func Dial(target string, opts ...DialOption) (*Client, error) {
	var c dialConfig
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	grpcTarget, gopts, err := replicaTarget(target)
	if err != nil {
		return nil, err
	}
	gopts = append(gopts, grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxStateSize)))
	if c.tls != nil {
		gopts = append(gopts, grpc.WithTransportCredentials(credentials.NewTLS(c.tls)))
	} else {
		gopts = append(gopts, grpc.WithTransportCredentials(insecure.NewCredentials()))
	}
	if c.token != "" {
		gopts = append(gopts, grpc.WithPerRPCCredentials(bearer(c.token)))
	}
	gopts = append(gopts, c.extra...)
	conn, err := grpc.NewClient(grpcTarget, gopts...)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", target, err)
	}
	cl := NewClient(conn)
	cl.conn = conn
	return cl, nil
}

// NewClient uses a connection the caller owns; Close does not close it.
func NewClient(conn grpc.ClientConnInterface) *Client {
	return &Client{
		projects:  ccv1.NewProjectServiceClient(conn),
		blobs:     ccv1.NewBlobServiceClient(conn),
		resources: ccv1.NewResourceServiceClient(conn),
		health:    healthpb.NewHealthClient(conn),
	}
}

// Close closes the connection Dial made.
func (c *Client) Close() error {
	if c.conn == nil {
		return nil
	}
	return c.conn.Close()
}

type bearer string

func (b bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

// RequireTransportSecurity is false so that a token also works over a unix
// socket or loopback; over the network, use TLS.
func (bearer) RequireTransportSecurity() bool { return false }

// Ping checks that the service answers and is serving.
func (c *Client) Ping(ctx context.Context) error {
	resp, err := c.health.Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		return fromStatus(err)
	}
	if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		return &Error{Code: codes.Unavailable, Msg: "service is " + resp.GetStatus().String()}
	}
	return nil
}

// GetState reads a project's whole state in one call. A project never
// written has an empty state at serial 0.
func (c *Client) GetState(ctx context.Context, project string) (*State, error) {
	resp, err := c.projects.GetState(ctx, &ccv1.GetStateRequest{Project: project})
	if err != nil {
		return nil, fromStatus(err)
	}
	return stateFromProto(resp), nil
}

// GetStateIfChanged reads a project's state unless its serial is still
// known; then it returns nil and changed false.
func (c *Client) GetStateIfChanged(ctx context.Context, project string, known int64) (st *State, changed bool, err error) {
	resp, err := c.projects.GetState(ctx, &ccv1.GetStateRequest{Project: project, KnownSerial: known})
	if err != nil {
		return nil, false, fromStatus(err)
	}
	if resp.GetUnchanged() {
		return nil, false, nil
	}
	return stateFromProto(resp), true, nil
}

// StateRequest is one GetState call: a project, the serial the caller
// knows (0: none) and local values to compare with the service's in the
// same read (at most 10,000, each counted against the caller's rate limit
// of comparisons, as CompareValues'; see GetStateComparing).
type StateRequest struct {
	Project     string
	KnownSerial int64
	Compare     []ValueToCompare
	// Data are data sources to resolve in the same read (issue 10): at
	// most 1,000.
	Data []DataLookup
	// Unowned are addresses of unowned resources (project "-") to read in
	// the same call: the candidates of imports (at most 1,000).
	Unowned []string
}

// StateResponse is a GetState answer. State is nil when Unchanged (the
// project is still at KnownSerial); Matches answer the request's values
// in their order either way. Matches is nil when the request had values
// but the service did not compare them (a service older than that).
type StateResponse struct {
	State     *State
	Serial    int64
	Unchanged bool
	Matches   []ValueMatch
	// Data answer the request's Data in order, also when Unchanged.
	Data []state.DataResolved
	// Unowned are the unowned resources the request named that the
	// service has, also when Unchanged (and in State.Unowned otherwise).
	Unowned []Resource
}

// ValueMatch is how a local value compares with the service's.
type ValueMatch struct {
	// Comparison is what CompareValues answers for the value: with the
	// current value at its place (or that of its Revision).
	Comparison Comparison
	// EqualRevisions are, oldest first, the revisions of a secret whose
	// value equals it (Pointer ""), or the versions of a function or
	// dataset made with an equal value at Pointer.
	EqualRevisions []int64
}

// ReadState makes one GetState call.
func (c *Client) ReadState(ctx context.Context, req StateRequest) (*StateResponse, error) {
	preq := &ccv1.GetStateRequest{Project: req.Project, KnownSerial: req.KnownSerial, Unowned: req.Unowned}
	for _, v := range req.Compare {
		preq.Compare = append(preq.Compare, compareValueProto(v))
	}
	for _, l := range req.Data {
		preq.Data = append(preq.Data, &ccv1.DataLookup{Kind: string(l.Kind), Name: l.Name, Version: l.Version})
	}
	resp, err := c.projects.GetState(ctx, preq)
	if err != nil {
		return nil, fromStatus(err)
	}
	out := &StateResponse{Serial: resp.GetSerial(), Unchanged: resp.GetUnchanged()}
	if len(req.Data) > 0 {
		if len(resp.GetData()) != len(req.Data) {
			return nil, fmt.Errorf("read the state of project %s: %d data sources resolved of %d (a service older than data sources?)", req.Project, len(resp.GetData()), len(req.Data))
		}
		for i, d := range resp.GetData() {
			out.Data = append(out.Data, state.DataResolved{DataLookup: req.Data[i],
				DataResult: DataResult{Found: d.GetFound(), Address: d.GetAddress(), Hash: d.GetHash(), Version: d.GetVersion()}})
		}
	}
	for _, r := range resp.GetUnowned() {
		out.Unowned = append(out.Unowned, resourceFromProto(r))
	}
	if !out.Unchanged {
		out.State = stateFromProto(resp)
		out.State.Data = out.Data
		out.State.Unowned = out.Unowned
	}
	switch ms := resp.GetMatches(); {
	case len(ms) == 0:
		// No values, or a service that does not compare them.
	case len(ms) != len(req.Compare):
		return nil, fmt.Errorf("read the state of project %s: %d comparisons answered for %d values", req.Project, len(ms), len(req.Compare))
	default:
		out.Matches = make([]ValueMatch, len(ms))
		for i, m := range ms {
			out.Matches[i] = ValueMatch{Comparison: comparisonFromProto(m.GetComparison()), EqualRevisions: m.GetEqualRevisions()}
		}
	}
	return out, nil
}

// GetStateComparing reads a project's state and compares local values
// with the service's in the same call and snapshot: one call for up to
// 10,000 values (the service's rate limit of comparisons a minute, so
// more fail with it unless the limit has refilled). More are compared in
// further calls that name the serial read, so that every answer is of
// one state; if it changed in between, all are read again. The matches
// are nil when the service does not compare values in GetState (one older
// than that): the caller takes every local value as changed.
//
// Options ask for more in the same first call (WithData, WithUnowned).
func (c *Client) GetStateComparing(ctx context.Context, project string, vals []ValueToCompare, opts ...StateOption) (*State, []ValueMatch, error) {
	const perCall = 10_000
	for attempt := 0; ; attempt++ {
		req := StateRequest{Project: project, Compare: vals[:min(len(vals), perCall)]}
		for _, o := range opts {
			o(&req)
		}
		first, err := c.ReadState(ctx, req)
		if err != nil {
			return nil, nil, err
		}
		matches := first.Matches
		changed := false
		for at := perCall; at < len(vals) && matches != nil && !changed; at += perCall {
			next, err := c.ReadState(ctx, StateRequest{Project: project, KnownSerial: first.Serial, Compare: vals[at:min(len(vals), at+perCall)]})
			if err != nil {
				return nil, nil, err
			}
			changed = next.Serial != first.Serial
			if next.Matches == nil {
				matches = nil
				break
			}
			matches = append(matches, next.Matches...)
		}
		if !changed || attempt == 2 {
			if changed {
				return nil, nil, fmt.Errorf("read the state of project %s: it kept changing while %d local values were compared; try again", project, len(vals))
			}
			return first.State, matches, nil
		}
	}
}

func compareValueProto(v ValueToCompare) *ccv1.CompareValue {
	return &ccv1.CompareValue{Address: v.Address, Pointer: v.Pointer, Value: v.Value, Revision: v.Revision}
}

func comparisonFromProto(c ccv1.Comparison) Comparison {
	switch c {
	case ccv1.Comparison_COMPARISON_EQUAL:
		return Equal
	case ccv1.Comparison_COMPARISON_DIFFERENT:
		return Different
	default:
		return Absent
	}
}

func stateFromProto(resp *ccv1.GetStateResponse) *State {
	st := &State{Project: resp.GetProject(), Lineage: resp.GetLineage(), Serial: resp.GetSerial()}
	st.Resources = make([]Resource, 0, len(resp.GetResources()))
	for _, r := range resp.GetResources() {
		st.Resources = append(st.Resources, resourceFromProto(r))
	}
	for _, im := range resp.GetImages() {
		st.Images = append(st.Images, imageFromProto(im))
	}
	for _, v := range resp.GetSecretValues() {
		st.SecretValues = append(st.SecretValues, secretValueFromProto(v))
	}
	if l := resp.GetLock(); l != nil {
		lease := leaseFromProto(l)
		st.Lock = &lease
	}
	for _, d := range resp.GetDrift() {
		st.Drift = append(st.Drift, driftFromProto(d))
	}
	st.Outputs = outputsFromProto(resp.GetOutputs())
	return st
}

// Lock takes the project's lease for ttl (0 means the server's default,
// a minute) and returns it with the project's serial. A live lease of
// another holder gives a *LockedError naming it (without its id).
func (c *Client) Lock(ctx context.Context, project string, h Holder, ttl time.Duration) (Lease, int64, error) {
	res, err := c.Acquire(ctx, project, h, ttl)
	if err != nil {
		return Lease{}, 0, err
	}
	return res.Lease, res.Serial, nil
}

// Locked is a lease just taken and the project's state when it was.
type Locked struct {
	Lease  Lease
	Serial int64
	// Lineage is the project's lineage (State.Lineage): "" for a project
	// the service has never written.
	Lineage string
}

// Acquire is Lock, returning the project's lineage too.
func (c *Client) Acquire(ctx context.Context, project string, h Holder, ttl time.Duration) (*Locked, error) {
	req := &ccv1.LockRequest{Project: project, Holder: holderToProto(h)}
	if ttl != 0 {
		req.Ttl = durationpb.New(ttl)
	}
	resp, err := c.projects.Lock(ctx, req)
	if err != nil {
		return nil, fromStatus(err)
	}
	return &Locked{Lease: leaseFromProto(resp.GetLease()), Serial: resp.GetSerial(), Lineage: resp.GetLineage()}, nil
}

// RenewLock extends the lease to ttl from now.
func (c *Client) RenewLock(ctx context.Context, project, leaseID string, ttl time.Duration) (Lease, error) {
	req := &ccv1.RenewLockRequest{Project: project, LeaseId: leaseID}
	if ttl != 0 {
		req.Ttl = durationpb.New(ttl)
	}
	resp, err := c.projects.RenewLock(ctx, req)
	if err != nil {
		return Lease{}, fromStatus(err)
	}
	return leaseFromProto(resp.GetLease()), nil
}

// Unlock releases the caller's lease.
func (c *Client) Unlock(ctx context.Context, project, leaseID string) error {
	_, err := c.projects.Unlock(ctx, &ccv1.UnlockRequest{Project: project, LeaseId: leaseID})
	return fromStatus(err)
}

// ForceUnlock releases whatever lease the project has, and returns it (nil
// when there was none).
func (c *Client) ForceUnlock(ctx context.Context, project string) (*Lease, error) {
	resp, err := c.projects.Unlock(ctx, &ccv1.UnlockRequest{Project: project, Force: true})
	if err != nil {
		return nil, fromStatus(err)
	}
	if resp.GetReleased() == nil {
		return nil, nil
	}
	l := leaseFromProto(resp.GetReleased())
	return &l, nil
}

// MissingBlobs returns those of digests the project lacks, sorted.
func (c *Client) MissingBlobs(ctx context.Context, project string, digests []string) ([]string, error) {
	resp, err := c.blobs.FindMissingBlobs(ctx, &ccv1.FindMissingBlobsRequest{Project: project, Digests: digests})
	if err != nil {
		return nil, fromStatus(err)
	}
	return resp.GetMissing(), nil
}

const uploadChunk = 256 << 10

// BlobUpload is a blob to upload: its project, digest ("sha256:" + hex)
// and size, and the lease it is uploaded under.
type BlobUpload struct {
	Project string
	Digest  string
	Size    int64
	// LeaseID is the caller's live lease of the project's lock: an upload
	// is a mutation, refused (ErrLeaseRefused) without it.
	LeaseID string
}

// UploadBlob streams up.Size bytes from r as the blob with up.Digest,
// under up.LeaseID. The service verifies the digest and size, and the
// lease both before it reads the data and when it records the blob;
// existed reports that it already had the blob.
func (c *Client) UploadBlob(ctx context.Context, up BlobUpload, r io.Reader) (existed bool, err error) {
	digest := up.Digest
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.blobs.UploadBlob(ctx)
	if err != nil {
		return false, fromStatus(err)
	}
	header := &ccv1.UploadBlobRequest{Part: &ccv1.UploadBlobRequest_Header_{Header: &ccv1.UploadBlobRequest_Header{Project: up.Project, Digest: digest, Size: up.Size, LeaseId: up.LeaseID}}}
	if err := stream.Send(header); err != nil && err != io.EOF {
		return false, fromStatus(err)
	}
	buf := make([]byte, uploadChunk)
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			// io.EOF from Send means the server has answered already
			// (it had the blob, or refused it): CloseAndRecv tells.
			if err := stream.Send(&ccv1.UploadBlobRequest{Part: &ccv1.UploadBlobRequest_Data{Data: buf[:n]}}); err != nil {
				if err == io.EOF {
					break
				}
				return false, fromStatus(err)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return false, fmt.Errorf("upload %s: %w", digest, rerr)
		}
	}
	resp, err := stream.CloseAndRecv()
	if err != nil {
		return false, fromStatus(err)
	}
	return resp.GetExisted(), nil
}

// Blob is the first bytes of a stored blob.
type Blob struct {
	Digest string
	// Size is the whole blob's size; Data is all of it unless Truncated.
	Size      int64
	Data      []byte
	Truncated bool
}

// ReadBlob returns the first limit bytes of a blob (1 MiB when limit is 0,
// at most 4 MiB). A blob the project lacks gives a *NotFoundError.
func (c *Client) ReadBlob(ctx context.Context, project, digest string, limit int64) (*Blob, error) {
	resp, err := c.blobs.ReadBlob(ctx, &ccv1.ReadBlobRequest{Project: project, Digest: digest, Limit: limit})
	if err != nil {
		return nil, fromStatus(err)
	}
	return &Blob{Digest: resp.GetDigest(), Size: resp.GetSize(), Data: resp.GetData(), Truncated: resp.GetTruncated()}, nil
}

// ImageRequest ensures an image at an address.
type ImageRequest struct {
	Project   string
	Address   string // "image.name"
	Hash      string
	Spec      json.RawMessage // canonical JSON whose sha256 is Hash
	DependsOn []string
	// Sensitive are JSON pointers into Spec of values never to be shown.
	Sensitive []string

	ExpectedSerial int64
	IdempotencyKey string
	LeaseID        string
}

// ImageResult is what EnsureImage did.
type ImageResult struct {
	Image    Image
	Resource Resource
	Serial   int64
	// Created: the image value was new to the project. Changed: the state
	// (and its serial) changed.
	Created, Changed bool
}

// EnsureImage records an image; the same hash again changes nothing.
func (c *Client) EnsureImage(ctx context.Context, req ImageRequest) (*ImageResult, error) {
	resp, err := c.resources.EnsureImage(ctx, req.proto())
	if err != nil {
		return nil, fromStatus(err)
	}
	return imageResult(resp), nil
}

func (req *ImageRequest) proto() *ccv1.EnsureImageRequest {
	return &ccv1.EnsureImageRequest{
		Project: req.Project, Address: req.Address, Hash: req.Hash, Spec: req.Spec, DependsOn: req.DependsOn,
		ExpectedSerial: req.ExpectedSerial, IdempotencyKey: req.IdempotencyKey, LeaseId: req.LeaseID,
		Sensitive: req.Sensitive,
	}
}

func imageResult(resp *ccv1.EnsureImageResponse) *ImageResult {
	return &ImageResult{Image: imageFromProto(resp.GetImage()), Resource: resourceFromProto(resp.GetResource()),
		Serial: resp.GetSerial(), Created: resp.GetCreated(), Changed: resp.GetChanged()}
}

// ApplyRequest creates, updates or replaces a resource. A replace is one
// request with ActionReplace, not a delete and a create: the second of those
// would be stale against the plan's serial.
type ApplyRequest struct {
	Project   string
	Address   string
	Action    Action
	Spec      json.RawMessage // canonical JSON whose sha256 is Hash
	Hash      string
	DependsOn []string
	// Blobs are the digests of uploaded content the resource needs.
	Blobs []string
	// Sensitive are JSON pointers into Spec of values that came from
	// sensitive variables; the service keeps them so no reader shows them.
	Sensitive []string
	// NewVersion makes a new version of a function even when one with the
	// same key exists (--new-version): its image and blobs are reused.
	NewVersion bool
	// DataPins are what the data sources among DependsOn resolved to when
	// the plan was made (issue 10); the service refuses the apply when one
	// no longer does.
	DataPins []DataPin
	// PreventDestroy protects the resource from deletes and replaces from
	// then on (false unprotects it: cc's client always says which);
	// PreventDestroyAt is where that is
	// declared, "file:line:col". CreateBeforeDestroy, with ActionReplace,
	// brings the replacement up before the old one stops (cc.proto).
	PreventDestroy      bool
	PreventDestroyAt    string
	CreateBeforeDestroy bool

	// ExpectedSerial is the serial the plan was made at: the apply is
	// refused with a *StaleError if the resource changed after it.
	ExpectedSerial int64
	// IdempotencyKey makes a retry return the first answer.
	IdempotencyKey string
	LeaseID        string
}

// ApplyResult is what an apply did.
type ApplyResult struct {
	Resource Resource
	Serial   int64
	// Version is the resource's version for versioned kinds; Reused says
	// an existing version with the same key (the same hash and managed
	// secret values) was made current.
	Version int64
	Reused  bool
	Changed bool
	// CreatedBeforeDestroy: a replace brought the replacement up before
	// it removed the old resource.
	CreatedBeforeDestroy bool
}

// Apply creates, updates or replaces a resource.
func (c *Client) Apply(ctx context.Context, req ApplyRequest) (*ApplyResult, error) {
	resp, err := c.resources.ApplyResource(ctx, req.proto())
	if err != nil {
		return nil, fromStatus(err)
	}
	return applyResult(resp), nil
}

func (req *ApplyRequest) proto() *ccv1.ApplyResourceRequest {
	return &ccv1.ApplyResourceRequest{
		Project: req.Project, Address: req.Address, Action: req.Action, Spec: req.Spec, Hash: req.Hash,
		DependsOn: req.DependsOn, Blobs: req.Blobs, Sensitive: req.Sensitive, NewVersion: req.NewVersion, DataPins: dataPinsProto(req.DataPins),
		PreventDestroy: proto.Bool(req.PreventDestroy), PreventDestroyAt: req.PreventDestroyAt, CreateBeforeDestroy: req.CreateBeforeDestroy,
		ExpectedSerial: req.ExpectedSerial, IdempotencyKey: req.IdempotencyKey, LeaseId: req.LeaseID,
	}
}

func applyResult(resp *ccv1.ApplyResourceResponse) *ApplyResult {
	return &ApplyResult{Resource: resourceFromProto(resp.GetResource()), Serial: resp.GetSerial(), Version: resp.GetVersion(),
		Reused: resp.GetReused(), Changed: resp.GetChanged(), CreatedBeforeDestroy: resp.GetCreatedBeforeDestroy()}
}

// DeleteRequest deletes a resource, its versions and its secret revisions.
type DeleteRequest struct {
	Project string
	Address string

	ExpectedSerial int64
	IdempotencyKey string
	LeaseID        string
}

// DeleteResult is what a delete removed.
type DeleteResult struct {
	// Deleted is the resource as it was; nil when only secret revisions
	// were stored at the address.
	Deleted *Resource
	Serial  int64
}

// Delete deletes a resource. One that does not exist gives a
// *NotFoundError.
func (c *Client) Delete(ctx context.Context, req DeleteRequest) (*DeleteResult, error) {
	resp, err := c.resources.DeleteResource(ctx, &ccv1.DeleteResourceRequest{
		Project: req.Project, Address: req.Address,
		ExpectedSerial: req.ExpectedSerial, IdempotencyKey: req.IdempotencyKey, LeaseId: req.LeaseID,
	})
	if err != nil {
		return nil, fromStatus(err)
	}
	out := &DeleteResult{Serial: resp.GetSerial()}
	if d := resp.GetDeleted(); d != nil {
		r := resourceFromProto(d)
		out.Deleted = &r
	}
	return out, nil
}

// Versions lists a function's or dataset's versions, or a secret's
// revisions, oldest first.
func (c *Client) Versions(ctx context.Context, project, address string) ([]Version, error) {
	resp, err := c.resources.ListVersions(ctx, &ccv1.ListVersionsRequest{Project: project, Address: address})
	if err != nil {
		return nil, fromStatus(err)
	}
	out := make([]Version, 0, len(resp.GetVersions()))
	for _, v := range resp.GetVersions() {
		out = append(out, versionFromProto(v))
	}
	return out, nil
}

// RollbackRequest makes an existing version current.
type RollbackRequest struct {
	Project string
	Address string
	Version int64

	ExpectedSerial int64
	IdempotencyKey string
	LeaseID        string
}

// RollbackResult is the resource after a rollback.
type RollbackResult struct {
	Resource Resource
	Serial   int64
	Changed  bool
}

// Rollback makes an existing version of a function or dataset, or revision
// of a scaling group, current.
func (c *Client) Rollback(ctx context.Context, req RollbackRequest) (*RollbackResult, error) {
	resp, err := c.resources.Rollback(ctx, &ccv1.RollbackRequest{
		Project: req.Project, Address: req.Address, Version: req.Version,
		ExpectedSerial: req.ExpectedSerial, IdempotencyKey: req.IdempotencyKey, LeaseId: req.LeaseID,
	})
	if err != nil {
		return nil, fromStatus(err)
	}
	return &RollbackResult{Resource: resourceFromProto(resp.GetResource()), Serial: resp.GetSerial(), Changed: resp.GetChanged()}, nil
}

// SecretRequest stores a secret's value.
type SecretRequest struct {
	Project string
	Address string // "secret.name"
	Value   []byte

	ExpectedSerial int64
	IdempotencyKey string
	LeaseID        string
}

// SecretResult is the revision a value got: a new one only when it
// differs from the current one.
type SecretResult struct {
	SecretValue SecretValue
	Serial      int64
	Changed     bool
}

// PutSecretValue stores a secret's value, encrypted; no call returns it.
func (c *Client) PutSecretValue(ctx context.Context, req SecretRequest) (*SecretResult, error) {
	resp, err := c.resources.PutSecretValue(ctx, &ccv1.PutSecretValueRequest{
		Project: req.Project, Address: req.Address, Value: req.Value,
		ExpectedSerial: req.ExpectedSerial, IdempotencyKey: req.IdempotencyKey, LeaseId: req.LeaseID,
	})
	if err != nil {
		return nil, fromStatus(err)
	}
	return &SecretResult{SecretValue: secretValueFromProto(resp.GetSecretValue()), Serial: resp.GetSerial(), Changed: resp.GetChanged()}, nil
}

// Comparison is how a local value compares with the service's.
type Comparison int

const (
	// Absent: the service holds no value there.
	Absent Comparison = iota + 1
	Equal
	Different
)

// ValueToCompare is a local value to compare with the service's at a place:
// a secret's value (Pointer "") at Revision (0: the current one), or the
// value at a sensitive JSON pointer of a resource's current spec (its
// canonical JSON, schema.SensitiveValue).
type ValueToCompare struct {
	Address  string
	Pointer  string
	Value    []byte
	Revision int64
}

// CompareValues tells, for each value, whether the service's equals it,
// without either side seeing anything derived from the other's value. The
// service rate-limits comparisons (ErrResourceExhausted-like errors when
// exceeded); at most 10,000 values a call.
func (c *Client) CompareValues(ctx context.Context, project string, vals []ValueToCompare) ([]Comparison, error) {
	if len(vals) == 0 {
		return nil, nil
	}
	req := &ccv1.CompareValuesRequest{Project: project}
	for _, v := range vals {
		req.Values = append(req.Values, compareValueProto(v))
	}
	resp, err := c.resources.CompareValues(ctx, req)
	if err != nil {
		return nil, fromStatus(err)
	}
	if len(resp.GetResults()) != len(vals) {
		return nil, fmt.Errorf("compare values: %d results for %d values", len(resp.GetResults()), len(vals))
	}
	out := make([]Comparison, len(vals))
	for i, r := range resp.GetResults() {
		out[i] = comparisonFromProto(r)
	}
	return out, nil
}
