package service_test

import (
	"context"
	"net"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
)

// TestReflectionAndHealth lists the services as grpcurl does, through the
// standard reflection client, and checks health for each cc.v1 service.
func TestReflectionAndHealth(t *testing.T) {
	ctx := context.Background()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serve(t, lis, "")
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	stream, err := reflectionpb.NewServerReflectionClient(conn).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{}}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	sort.Strings(names)
	want := []string{
		"cc.v1.BlobService",
		"cc.v1.ProjectService",
		"cc.v1.ResourceService",
		"grpc.health.v1.Health",
		"grpc.reflection.v1.ServerReflection",
		"grpc.reflection.v1alpha.ServerReflection",
	}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Fatalf("services (-want +got):\n%s", diff)
	}
	// The file descriptors are there too, so a client can call by name.
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{FileContainingSymbol: "cc.v1.ResourceService"}}); err != nil {
		t.Fatal(err)
	}
	fresp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if len(fresp.GetFileDescriptorResponse().GetFileDescriptorProto()) == 0 {
		t.Fatalf("no file descriptor for cc.v1.ResourceService: %v", fresp)
	}
	stream.CloseSend()

	health := healthpb.NewHealthClient(conn)
	for _, svc := range []string{"", "cc.v1.ProjectService", "cc.v1.BlobService", "cc.v1.ResourceService"} {
		r, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: svc})
		if err != nil || r.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health %q = %v, %v; want SERVING", svc, r.GetStatus(), err)
		}
	}
}
