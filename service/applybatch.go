package service

import (
	"context"
	"fmt"
	"time"

	spb "google.golang.org/genproto/googleapis/rpc/status"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// MaxBatchCalls bounds the calls of one ApplyBatch.
const MaxBatchCalls = 1000

// ApplyBatch makes the EnsureImage and ApplyResource calls of one project
// (issue 13: a call per resource cost more than the work). Each call is
// checked and prepared as alone; those that pass run in one batch of the
// committer, in their order, so they commit together and are answered
// only once durable. A call refused before or in the transaction is
// answered with its status; the others are not affected by it.
func (a *resourceAPI) ApplyBatch(ctx context.Context, req *ccv1.ApplyBatchRequest) (*ccv1.ApplyBatchResponse, error) {
	calls := req.GetCalls()
	if len(calls) > MaxBatchCalls {
		return nil, status.Errorf(codes.InvalidArgument, "ApplyBatch of %d calls: at most %d", len(calls), MaxBatchCalls)
	}
	project := req.GetProject()
	if !validProject(project) {
		return nil, status.Errorf(codes.InvalidArgument, "project %q is not NAME or NAME/ENV (lowercase DNS labels)", project)
	}
	for i, c := range calls {
		if c.GetCall() == nil {
			return nil, status.Errorf(codes.InvalidArgument, "ApplyBatch call %d is empty", i)
		}
		if got := batchCallProject(c); got != project {
			return nil, status.Errorf(codes.InvalidArgument, "ApplyBatch call %d is for project %q, the batch for %q", i, got, project)
		}
	}
	start := time.Now()
	p, _ := ctx.Value(principalKey{}).(*principal)
	errs := make([]error, len(calls))
	resps := make([]proto.Message, len(calls))
	var ps []*pending
	var at []int
	for i, c := range calls {
		var pend *pending
		pend, resps[i], errs[i] = a.prepareCall(ctx, c)
		if errs[i] == nil {
			ps = append(ps, pend)
			at = append(at, i)
		}
	}
	a.s.commits.doAll(ps)
	for j, pend := range ps {
		errs[at[j]] = pend.err
	}
	resp := &ccv1.ApplyBatchResponse{Results: make([]*ccv1.BatchResult, len(calls))}
	for i, c := range calls {
		resp.Results[i] = batchResult(resps[i], errs[i])
		// Each call is logged as alone, with its address.
		a.s.logCall(ctx, batchCallMethod(c), p, project, batchCallAddress(c), start, errs[i])
	}
	return resp, nil
}

// prepareCall checks one call of a batch and returns its mutation and the
// response it fills.
func (a *resourceAPI) prepareCall(ctx context.Context, c *ccv1.BatchCall) (*pending, proto.Message, error) {
	switch c := c.GetCall().(type) {
	case *ccv1.BatchCall_EnsureImage:
		p, resp, err := a.ensureImage(ctx, c.EnsureImage)
		return p, resp, err
	case *ccv1.BatchCall_ApplyResource:
		p, resp, err := a.applyResource(ctx, c.ApplyResource)
		return p, resp, err
	}
	return nil, nil, status.Error(codes.InvalidArgument, "ApplyBatch call of no known kind")
}

// batchResult is the answer to one call: its response, or its status
// with the details it has alone.
func batchResult(resp proto.Message, err error) *ccv1.BatchResult {
	if err != nil {
		st := status.Convert(err).Proto()
		return &ccv1.BatchResult{Result: &ccv1.BatchResult_Error{Error: &ccv1.CallStatus{
			Code: st.GetCode(), Message: st.GetMessage(), Details: st.GetDetails()}}}
	}
	switch r := resp.(type) {
	case *ccv1.EnsureImageResponse:
		return &ccv1.BatchResult{Result: &ccv1.BatchResult_EnsureImage{EnsureImage: r}}
	case *ccv1.ApplyResourceResponse:
		return &ccv1.BatchResult{Result: &ccv1.BatchResult_ApplyResource{ApplyResource: r}}
	}
	return &ccv1.BatchResult{Result: &ccv1.BatchResult_Error{Error: &ccv1.CallStatus{
		Code: int32(codes.Internal), Message: "internal error"}}}
}

func batchCallProject(c *ccv1.BatchCall) string {
	if r := c.GetEnsureImage(); r != nil {
		return r.GetProject()
	}
	return c.GetApplyResource().GetProject()
}

func batchCallAddress(c *ccv1.BatchCall) string {
	if r := c.GetEnsureImage(); r != nil {
		return r.GetAddress()
	}
	return c.GetApplyResource().GetAddress()
}

func batchCallMethod(c *ccv1.BatchCall) string {
	if c.GetEnsureImage() != nil {
		return ccv1.ResourceService_EnsureImage_FullMethodName
	}
	return ccv1.ResourceService_ApplyResource_FullMethodName
}

// BatchCall is one call of an ApplyBatch: an image to ensure or a
// resource to apply, exactly one of the two.
type BatchCall struct {
	Image *ImageRequest
	Apply *ApplyRequest
}

// BatchResult answers one BatchCall: what EnsureImage or Apply would have
// returned for it alone, the result or the error.
type BatchResult struct {
	Image *ImageResult
	Apply *ApplyResult
	Err   error
}

// ApplyBatch makes calls, every one of them for project, in one request:
// the service commits them together and answers each as alone (cc.proto).
// The error is the request's own (the service stopped answering, or
// refused the batch as a whole); the results, one for each call, are then
// nil. A service without ApplyBatch refuses it with codes.Unimplemented.
func (c *Client) ApplyBatch(ctx context.Context, project string, calls []BatchCall) ([]BatchResult, error) {
	req := &ccv1.ApplyBatchRequest{Project: project, Calls: make([]*ccv1.BatchCall, len(calls))}
	for i, call := range calls {
		switch {
		case call.Image != nil && call.Apply == nil:
			req.Calls[i] = &ccv1.BatchCall{Call: &ccv1.BatchCall_EnsureImage{EnsureImage: call.Image.proto()}}
		case call.Apply != nil && call.Image == nil:
			req.Calls[i] = &ccv1.BatchCall{Call: &ccv1.BatchCall_ApplyResource{ApplyResource: call.Apply.proto()}}
		default:
			return nil, fmt.Errorf("batch call %d: want exactly one of Image and Apply", i)
		}
	}
	resp, err := c.resources.ApplyBatch(ctx, req)
	if err != nil {
		return nil, fromStatus(err)
	}
	if len(resp.GetResults()) != len(calls) {
		return nil, fmt.Errorf("the service answered %d calls of %d", len(resp.GetResults()), len(calls))
	}
	out := make([]BatchResult, len(calls))
	for i, r := range resp.GetResults() {
		out[i] = batchResultFromProto(r, calls[i].Image != nil)
	}
	return out, nil
}

// batchResultFromProto is the result of one call, an image call when
// image, refusing an answer of the other kind.
func batchResultFromProto(r *ccv1.BatchResult, image bool) BatchResult {
	switch x := r.GetResult().(type) {
	case *ccv1.BatchResult_Error:
		if x.Error.GetCode() == int32(codes.OK) {
			break // an error that is no error
		}
		st := &spb.Status{Code: x.Error.GetCode(), Message: x.Error.GetMessage(), Details: x.Error.GetDetails()}
		return BatchResult{Err: fromStatus(status.FromProto(st).Err())}
	case *ccv1.BatchResult_EnsureImage:
		if image {
			return BatchResult{Image: imageResult(x.EnsureImage)}
		}
	case *ccv1.BatchResult_ApplyResource:
		if !image {
			return BatchResult{Apply: applyResult(x.ApplyResource)}
		}
	}
	return BatchResult{Err: &Error{Code: codes.Internal, Msg: "the service answered a batch call with the wrong kind of result"}}
}
