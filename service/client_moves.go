package service

import (
	"context"

	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// StateOption adds to the one GetState call of GetStateComparing.
type StateOption func(*StateRequest)

// WithData resolves the data sources (issue 10) in the same call; the
// answers are the state's Data.
func WithData(lookups ...DataLookup) StateOption {
	return func(r *StateRequest) { r.Data = append(r.Data, lookups...) }
}

// WithUnowned reads the unowned resources (project "-") at addrs in the
// same call (State.Unowned): the candidates of a plan's imports (issue 10).
func WithUnowned(addrs ...string) StateOption {
	return func(r *StateRequest) { r.Unowned = append(r.Unowned, addrs...) }
}

// MoveRequest renames a resource of a project, keeping its identity,
// versions, secret revisions and history (issue 10: moves).
type MoveRequest struct {
	Project  string
	From, To string
	// PreventDestroyAt is where the configuration declares the protection
	// of the resource at To ("file:line:col"), recorded when the resource
	// is protected; "" keeps the recorded one.
	PreventDestroyAt string

	ExpectedSerial int64
	IdempotencyKey string
	LeaseID        string
}

// MoveResult is what a move did.
type MoveResult struct {
	// Resource is the resource at its new address; nil when only secret
	// revisions were stored at the old one.
	Resource *Resource
	Serial   int64
	// Dependants now name the new address.
	Dependants []string
}

// Move renames a resource.
func (c *Client) Move(ctx context.Context, req MoveRequest) (*MoveResult, error) {
	resp, err := c.resources.MoveResource(ctx, &ccv1.MoveResourceRequest{Project: req.Project, From: req.From, To: req.To, PreventDestroyAt: req.PreventDestroyAt,
		ExpectedSerial: req.ExpectedSerial, IdempotencyKey: req.IdempotencyKey, LeaseId: req.LeaseID})
	if err != nil {
		return nil, fromStatus(err)
	}
	out := &MoveResult{Serial: resp.GetSerial(), Dependants: resp.GetDependants()}
	if r := resp.GetResource(); r != nil {
		res := resourceFromProto(r)
		out.Resource = &res
	}
	return out, nil
}

// TransferRequest hands a resource to the unowned resources (Forget) or
// takes one from them (Adopt, with ID its name there).
type TransferRequest struct {
	Project string
	Address string
	// ID is, for Adopt, the unowned resource's name ("build-cache" for
	// the unowned volume.build-cache).
	ID string
	// ExpectedHash is, for Adopt, the hash the unowned resource had when
	// the import was planned ("" to adopt whatever it has): a resource
	// changed since is refused as stale.
	ExpectedHash string

	ExpectedSerial int64
	IdempotencyKey string
	LeaseID        string
}

// TransferResult is the resource where it went.
type TransferResult struct {
	Resource Resource
	Serial   int64
}

// Forget hands a resource of the project to the unowned resources: the
// service keeps it, the project no longer owns it.
func (c *Client) Forget(ctx context.Context, req TransferRequest) (*TransferResult, error) {
	resp, err := c.resources.ForgetResource(ctx, &ccv1.ForgetResourceRequest{Project: req.Project, Address: req.Address,
		ExpectedSerial: req.ExpectedSerial, IdempotencyKey: req.IdempotencyKey, LeaseId: req.LeaseID})
	if err != nil {
		return nil, fromStatus(err)
	}
	return &TransferResult{Resource: resourceFromProto(resp.GetForgotten()), Serial: resp.GetSerial()}, nil
}

// Adopt hands the unowned resource KIND.ID to the project at Address.
func (c *Client) Adopt(ctx context.Context, req TransferRequest) (*TransferResult, error) {
	resp, err := c.resources.AdoptResource(ctx, &ccv1.AdoptResourceRequest{Project: req.Project, Address: req.Address, Id: req.ID, ExpectedHash: req.ExpectedHash,
		ExpectedSerial: req.ExpectedSerial, IdempotencyKey: req.IdempotencyKey, LeaseId: req.LeaseID})
	if err != nil {
		return nil, fromStatus(err)
	}
	return &TransferResult{Resource: resourceFromProto(resp.GetResource()), Serial: resp.GetSerial()}, nil
}
