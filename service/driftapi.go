package service

import (
	"bytes"
	"context"
	"encoding/json"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// PatchResource changes fields of a resource's spec as a platform SDK
// would (issue 10, drift), keeping a record of it.
func (a *resourceAPI) PatchResource(ctx context.Context, req *ccv1.PatchResourceRequest) (*ccv1.PatchResourceResponse, error) {
	kind, _, err := parseAddress(req.GetAddress())
	if err != nil {
		return nil, err
	}
	if kind == schema.KindImage {
		return nil, status.Errorf(codes.InvalidArgument, "%s: an image is a value and is never changed in place", req.GetAddress())
	}
	ops, err := checkPatch(req.GetSet())
	if err != nil {
		return nil, err
	}
	resp := &ccv1.PatchResourceResponse{}
	err = a.s.observe(ctx, ccv1.ResourceService_PatchResource_FullMethodName, req, resp, func(t *mutation) error {
		cur, err := t.existing(req.GetAddress(), req.GetExpectedSerial())
		if err != nil {
			return err
		}
		spec, fields, err := t.patchSpec(cur, ops)
		if err != nil {
			return err
		}
		if len(fields) == 0 {
			resp.Resource, resp.Serial = redactedRow(cur), t.serial
			return nil
		}
		return t.writePatch(cur, kind, spec, fields, resp)
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// existing is the resource at addr, which must exist and, when expected
// is set, must not have changed after it.
func (t *mutation) existing(addr string, expected int64) (*row, error) {
	cur, err := t.resource(addr)
	if err != nil {
		return nil, dbError(err)
	}
	if cur == nil {
		return nil, status.Errorf(codes.NotFound, "project %s has no %s", t.project, addr)
	}
	if expected > 0 {
		if err := t.staleRow(addr, expected, cur); err != nil {
			return nil, err
		}
	}
	return cur, nil
}

// redactedRow is a row as a reader gets it: sensitive values redacted.
func redactedRow(r *row) *ccv1.Resource {
	p := r.proto()
	p.Spec = redactedSpec(p.Spec, p.Sensitive)
	return p
}

// patchSpec applies a patch to the resource's spec (its sensitive values
// opened) and returns the new spec with the fields it changed. A pointer
// that holds a sensitive value inside it, or is inside one, is refused: a
// sensitive value is set whole, at its own pointer, and recorded without
// its value.
func (t *mutation) patchSpec(cur *row, ops []patchOp) ([]byte, []driftField, error) {
	sens := splitLines(cur.sensitive)
	plain, err := t.unsealSpec(cur.address, cur.spec, sens)
	if err != nil {
		return nil, nil, err
	}
	v, err := decodeJSON(plain)
	if err != nil {
		return nil, nil, dbError(err)
	}
	var fields []driftField
	for _, op := range ops {
		overlap := sensitiveOverlap(op.pointer, sens)
		if overlap == "overlaps" {
			return nil, nil, status.Errorf(codes.InvalidArgument, "%s: %s overlaps a sensitive value: set it whole, at its own pointer", cur.address, logValue(op.pointer))
		}
		before := valueJSON(v, op.pointer)
		nv, ok := setAt(v, op.parts, op.value, op.remove)
		if !ok {
			return nil, nil, status.Errorf(codes.InvalidArgument, "%s: %s names no place in the spec", cur.address, logValue(op.pointer))
		}
		v = nv
		after := valueJSON(v, op.pointer)
		if bytes.Equal(before, after) {
			continue
		}
		f := driftField{Pointer: op.pointer, Before: before, After: after}
		if overlap == "equal" {
			f = driftField{Pointer: op.pointer, Sensitive: true}
		}
		fields = append(fields, f)
	}
	spec, err := schema.Canonical(v)
	if err != nil {
		return nil, nil, status.Errorf(codes.InvalidArgument, "%s: %v", cur.address, err)
	}
	if bytes.Equal(spec, plain) {
		return spec, nil, nil
	}
	return spec, fields, nil
}

// valueJSON is the canonical JSON of the value at ptr of v, nil when
// there is none.
func valueJSON(v any, ptr string) json.RawMessage {
	x, ok := schema.ValueAt(v, ptr)
	if !ok {
		return nil
	}
	b, err := schema.Canonical(x)
	if err != nil {
		return nil
	}
	return b
}

// writePatch checks the patched spec against the kind's rules, hashes it
// (without its sensitive values), stores it sealed (for a function or
// dataset as its version with that content), and records the drift.
func (t *mutation) writePatch(cur *row, kind schema.Kind, spec []byte, fields []driftField, resp *ccv1.PatchResourceResponse) error {
	sens, deps := splitLines(cur.sensitive), splitLines(cur.deps)
	if len(spec) > 16<<20 {
		return status.Error(codes.InvalidArgument, "spec larger than 16 MiB")
	}
	hash := schema.Hash(spec)
	if len(sens) > 0 {
		var err error
		if hash, err = schema.RedactedHash(spec, sens); err != nil {
			return status.Errorf(codes.InvalidArgument, "%s: %v", cur.address, err)
		}
	}
	if err := checkKindSpec(cur.address, kind, spec, deps, sens); err != nil {
		return err
	}
	sealed, err := t.sealSpec(cur.address, spec, sens)
	if err != nil {
		return err
	}
	if kind.Versioned() {
		if cur.version, _, err = t.versionOf(cur.address, hash, spec, sealed, deps, sens, false); err != nil {
			return err
		}
	}
	cur.hash, cur.spec, cur.updated, cur.serial = hash, sealed, t.now, t.bump()
	if err := t.put(cur); err != nil {
		return dbError(err)
	}
	if resp.Drift, err = t.addDrift(cur.address, DriftChanged, fields); err != nil {
		return err
	}
	resp.Resource, resp.Serial = redactedRow(cur), t.serial
	return nil
}

// TerminateSandbox stops a sandbox outside cc (issue 10, drift).
func (a *resourceAPI) TerminateSandbox(ctx context.Context, req *ccv1.TerminateSandboxRequest) (*ccv1.TerminateSandboxResponse, error) {
	kind, _, err := parseAddress(req.GetAddress())
	if err != nil {
		return nil, err
	}
	if kind != schema.KindSandbox {
		return nil, status.Errorf(codes.InvalidArgument, "%s is not a sandbox", req.GetAddress())
	}
	resp := &ccv1.TerminateSandboxResponse{}
	err = a.s.observe(ctx, ccv1.ResourceService_TerminateSandbox_FullMethodName, req, resp, func(t *mutation) error {
		cur, err := t.existing(req.GetAddress(), req.GetExpectedSerial())
		if err != nil {
			return err
		}
		st, isGone, err := t.goneRow(cur)
		if err != nil {
			return err
		}
		if isGone {
			resp.Resource, resp.Serial = redactedRow(cur), t.serial
			resp.Resource.Status = st
			return nil
		}
		cur.status, cur.updated, cur.serial = int64(ccv1.Status_STATUS_TERMINATED), t.now, t.bump()
		if err := t.put(cur); err != nil {
			return dbError(err)
		}
		if resp.Drift, err = t.addDrift(cur.address, DriftTerminated, nil); err != nil {
			return err
		}
		resp.Resource, resp.Serial = redactedRow(cur), t.serial
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}

// AcceptDrift records what the service has as the project's state (cc
// apply --refresh-only).
func (a *resourceAPI) AcceptDrift(ctx context.Context, req *ccv1.AcceptDriftRequest) (*ccv1.AcceptDriftResponse, error) {
	resp := &ccv1.AcceptDriftResponse{}
	err := a.s.mutate(ctx, ccv1.ResourceService_AcceptDrift_FullMethodName, req, resp, func(t *mutation) error {
		recs, err := stateDrift(t.ctx, t.tx.Tx, t.project, t.now)
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := t.stale(r.GetAddress(), req.GetExpectedSerial(), r.GetSerial()); err != nil {
				return err
			}
		}
		resp.Serial = t.serial
		if len(recs) == 0 {
			return nil
		}
		serial := t.bump()
		if err := t.exec("DELETE FROM drift WHERE project = ?", t.project); err != nil {
			return dbError(err)
		}
		if err := t.exec(`UPDATE resources SET status = ?, serial = ?, updated_at = ? WHERE project = ? AND expires_at > 0 AND expires_at <= ? AND status NOT IN (?, ?)`,
			int64(ccv1.Status_STATUS_EXPIRED), serial, t.now, t.project, t.now, int64(ccv1.Status_STATUS_TERMINATED), int64(ccv1.Status_STATUS_EXPIRED)); err != nil {
			return dbError(err)
		}
		resp.Serial, resp.Accepted = serial, recs
		return nil
	})
	if err != nil {
		return nil, err
	}
	return resp, nil
}
