package servicetest

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// RefuseCalls is a server interceptor for tests that inject failures into
// the EnsureImage and ApplyResource calls a service gets, whether they
// come alone or in an ApplyBatch (issue 13): refuse is asked of each, with
// its method (ccv1's full method name of the call alone) and request; a
// call it returns an error for fails with that error, and the others go
// on as they would. Every other call passes untouched.
func RefuseCalls(refuse func(method string, req proto.Message) error) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (any, error) {
		switch r := req.(type) {
		case *ccv1.EnsureImageRequest, *ccv1.ApplyResourceRequest:
			if err := refuse(info.FullMethod, r.(proto.Message)); err != nil {
				return nil, err
			}
		case *ccv1.ApplyBatchRequest:
			return refuseInBatch(ctx, r, next, refuse)
		}
		return next(ctx, req)
	}
}

// refuseInBatch sends the calls of req that refuse lets through and
// answers the others with their errors, in their places.
func refuseInBatch(ctx context.Context, req *ccv1.ApplyBatchRequest, next grpc.UnaryHandler, refuse func(string, proto.Message) error) (any, error) {
	refused := make([]error, len(req.GetCalls()))
	kept := &ccv1.ApplyBatchRequest{Project: req.GetProject()}
	for i, c := range req.GetCalls() {
		method, call := ccv1.ResourceService_ApplyResource_FullMethodName, proto.Message(c.GetApplyResource())
		if r := c.GetEnsureImage(); r != nil {
			method, call = ccv1.ResourceService_EnsureImage_FullMethodName, r
		}
		if refused[i] = refuse(method, call); refused[i] == nil {
			kept.Calls = append(kept.Calls, c)
		}
	}
	resp, err := next(ctx, kept)
	if err != nil {
		return nil, err
	}
	got := resp.(*ccv1.ApplyBatchResponse).GetResults()
	out := &ccv1.ApplyBatchResponse{}
	for _, err := range refused {
		if err == nil {
			out.Results, got = append(out.Results, got[0]), got[1:]
			continue
		}
		st := status.Convert(err).Proto()
		out.Results = append(out.Results, &ccv1.BatchResult{Result: &ccv1.BatchResult_Error{Error: &ccv1.CallStatus{
			Code: st.GetCode(), Message: st.GetMessage(), Details: st.GetDetails()}}})
	}
	return out, nil
}
