package main

import (
	"context"
	"io"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
)

// recorder records the latency of every gRPC call its interceptors see,
// by method.
type recorder struct {
	mu       sync.Mutex
	byMethod map[string][]time.Duration
	failed   map[string]int
}

func newRecorder() *recorder {
	return &recorder{byMethod: map[string][]time.Duration{}, failed: map[string]int{}}
}

// add records one call of the full method name ("/cc.v1.CC/Apply").
func (r *recorder) add(fullMethod string, d time.Duration, err error) {
	m := methodName(fullMethod)
	r.mu.Lock()
	defer r.mu.Unlock()
	r.byMethod[m] = append(r.byMethod[m], d)
	if err != nil {
		r.failed[m]++
	}
}

// methodName is the method of a full gRPC method name, without its
// service.
func methodName(full string) string {
	if i := strings.LastIndex(full, "/"); i >= 0 {
		return full[i+1:]
	}
	return full
}

// dialOptions are the interceptors that time a client's calls.
func (r *recorder) dialOptions() []grpc.DialOption {
	return []grpc.DialOption{grpc.WithChainUnaryInterceptor(r.unary), grpc.WithChainStreamInterceptor(r.stream)}
}

// unary times a unary call, from its start to its answer.
func (r *recorder) unary(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
	start := time.Now()
	err := invoker(ctx, method, req, reply, cc, opts...)
	r.add(method, time.Since(start), err)
	return err
}

// stream times a streaming call, from its start to its last message
// received (the answer of a client stream, the end of a server stream).
func (r *recorder) stream(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	start := time.Now()
	s, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		r.add(method, time.Since(start), err)
		return nil, err
	}
	t := &timedStream{ClientStream: s, serverStreams: desc.ServerStreams}
	t.done = func(err error) { r.add(method, time.Since(start), err) }
	return t, nil
}

// timedStream reports the end of a stream once.
type timedStream struct {
	grpc.ClientStream
	serverStreams bool
	once          sync.Once
	done          func(error)
}

func (s *timedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err != nil || !s.serverStreams {
		s.once.Do(func() {
			if err == io.EOF {
				err = nil
			}
			s.done(err)
		})
	}
	return err
}

// calls are the recorded calls: every latency, and those of each method.
type calls struct {
	all      []time.Duration
	byMethod map[string][]time.Duration
	failed   int
}

// snapshot sorts what was recorded.
func (r *recorder) snapshot() calls {
	r.mu.Lock()
	defer r.mu.Unlock()
	c := calls{byMethod: map[string][]time.Duration{}}
	for m, ds := range r.byMethod {
		s := slices.Clone(ds)
		slices.Sort(s)
		c.byMethod[m] = s
		c.all = append(c.all, ds...)
		c.failed += r.failed[m]
	}
	slices.Sort(c.all)
	return c
}

// percentile is the nearest-rank p-th percentile (0 < p <= 100) of
// sorted durations; 0 for none.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}
