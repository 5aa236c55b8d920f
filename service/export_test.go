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

// SetAfterChunks makes s call f after each transaction of an upload's
// chunks commits.
func SetAfterChunks(s *Server, f func(project, digest string, chunks int)) { s.afterChunks = f }

// Uploads is how many uploads s runs.
func Uploads(s *Server) int {
	s.uploads.mu.Lock()
	defer s.uploads.mu.Unlock()
	n := 0
	for _, c := range s.uploads.slots {
		n += len(c)
	}
	return n
}

// ClientConn is the connection a client of OpenEmbedded calls on.
func ClientConn(c *Client) *grpc.ClientConn { return c.conn }
