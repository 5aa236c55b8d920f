package service

import (
	"context"

	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// FieldPatch sets (Value: JSON) or removes (Value nil or "null") the
// field at a JSON pointer of a spec.
type FieldPatch struct {
	Pointer string
	Value   []byte
}

// PatchRequest changes fields of a resource's spec outside cc, as a
// platform SDK would (issue 10, drift). It takes no lease: the platform
// does not honour cc's lock.
type PatchRequest struct {
	Project string
	Address string
	Set     []FieldPatch
	// ExpectedSerial, when non-zero, refuses the change if the resource
	// changed after it.
	ExpectedSerial int64
	IdempotencyKey string
}

// DriftResult is what a change made outside cc did: the resource as it
// is now, the serial, and the record kept (nil when nothing changed).
type DriftResult struct {
	Resource Resource
	Serial   int64
	Drift    *Drift
}

// PatchResource changes fields of a resource's spec outside cc, keeping
// a drift record with the caller's token name and the time.
func (c *Client) PatchResource(ctx context.Context, req PatchRequest) (*DriftResult, error) {
	preq := &ccv1.PatchResourceRequest{Project: req.Project, Address: req.Address, ExpectedSerial: req.ExpectedSerial, IdempotencyKey: req.IdempotencyKey}
	for _, f := range req.Set {
		preq.Set = append(preq.Set, &ccv1.FieldPatch{Pointer: f.Pointer, Value: f.Value})
	}
	resp, err := c.resources.PatchResource(ctx, preq)
	if err != nil {
		return nil, fromStatus(err)
	}
	return driftResult(resp.GetResource(), resp.GetSerial(), resp.GetDrift()), nil
}

// TerminateSandbox stops a sandbox outside cc, as the platform's console
// would, keeping a drift record.
func (c *Client) TerminateSandbox(ctx context.Context, project, address string) (*DriftResult, error) {
	resp, err := c.resources.TerminateSandbox(ctx, &ccv1.TerminateSandboxRequest{Project: project, Address: address})
	if err != nil {
		return nil, fromStatus(err)
	}
	return driftResult(resp.GetResource(), resp.GetSerial(), resp.GetDrift()), nil
}

func driftResult(r *ccv1.Resource, serial int64, d *ccv1.Drift) *DriftResult {
	out := &DriftResult{Resource: resourceFromProto(r), Serial: serial}
	if d != nil {
		x := driftFromProto(d)
		out.Drift = &x
	}
	return out
}

// AcceptDriftRequest accepts what the service has as the project's state
// (cc apply --refresh-only), with the caller's lease.
type AcceptDriftRequest struct {
	Project        string
	ExpectedSerial int64
	IdempotencyKey string
	LeaseID        string
}

// AcceptDrift clears the project's drift records and records the expiry
// of its expired sandboxes; it returns the serial and what it accepted.
func (c *Client) AcceptDrift(ctx context.Context, req AcceptDriftRequest) (int64, []Drift, error) {
	resp, err := c.resources.AcceptDrift(ctx, &ccv1.AcceptDriftRequest{Project: req.Project, ExpectedSerial: req.ExpectedSerial,
		IdempotencyKey: req.IdempotencyKey, LeaseId: req.LeaseID})
	if err != nil {
		return 0, nil, fromStatus(err)
	}
	var out []Drift
	for _, d := range resp.GetAccepted() {
		out = append(out, driftFromProto(d))
	}
	return resp.GetSerial(), out, nil
}
