package service

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/test/bufconn"
)

// OpenEmbedded runs the reference server in this process on the database at
// dbPath (creating its directory, mode 0700, if needed) and returns a client
// for it. Calls go through the same gRPC server, interceptors and handlers
// as over the network, on an in-memory connection. The returned function
// stops the server and closes the database.
func OpenEmbedded(ctx context.Context, dbPath string, opts ...Option) (*Client, func() error, error) {
	return openEmbedded(ctx, dbPath, nil, opts...)
}

// openEmbedded is OpenEmbedded with more options for the client's
// connection.
func openEmbedded(ctx context.Context, dbPath string, dial []grpc.DialOption, opts ...Option) (*Client, func() error, error) {
	if !IsPostgres(dbPath) {
		if err := os.MkdirAll(filepath.Dir(dbPath), 0o700); err != nil {
			return nil, nil, fmt.Errorf("state directory: %w", err)
		}
	}
	srv, err := Open(ctx, dbPath, opts...)
	if err != nil {
		return nil, nil, err
	}
	srv.inProcess = true // served on lis alone, which only this process reaches
	lis := bufconn.Listen(1 << 20)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	conn, err := grpc.NewClient("passthrough:///embedded", append([]grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxStateSize)),
	}, dial...)...)
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	cl := NewClient(conn)
	cl.conn = conn
	closeFn := func() error {
		errs := []error{conn.Close()}
		srv.Stop(context.Background())
		if err := <-served; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			errs = append(errs, err)
		}
		errs = append(errs, srv.st.close())
		return errors.Join(errs...)
	}
	return cl, closeFn, nil
}
