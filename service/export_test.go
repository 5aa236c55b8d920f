package service

import (
	"context"

	"google.golang.org/grpc"
)

// OpenEmbeddedDial is OpenEmbedded with options for the client's
// connection, for tests.
func OpenEmbeddedDial(ctx context.Context, dbPath string, dial []grpc.DialOption, opts ...Option) (*Client, func() error, error) {
	return openEmbedded(ctx, dbPath, dial, opts...)
}
