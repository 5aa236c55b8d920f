package service

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/reflection"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// idempotencyTTL is how long idempotency keys are kept.
const idempotencyTTL = 7 * 24 * time.Hour

// Server is the reference server: the cc.v1 API over a SQLite database,
// with health checking and server reflection.
type Server struct {
	st       *store
	keys     *keys
	tokens   *Tokens
	log      *slog.Logger
	now      func() time.Time
	grpc     *grpc.Server
	health   *health.Server
	spoolDir string
	maxBlob  int64
	pubRefl  bool
	uploads  *uploadLimit
	// compares rate-limits value comparisons (CompareValues, and those
	// GetState makes) per caller, but on an embedded server (inProcess):
	// its one caller is the process that opened the database and its key
	// file, holding every value anyway, and a plan of a project with more
	// than 10,000 sensitive values was refused there.
	compares  limiter
	inProcess bool
	// blobLocks makes uploads of one project's blob store it one at a time.
	blobLocks keyLocks
	// afterChunks, when set (in tests), is called after each transaction
	// of an upload's chunks commits.
	afterChunks func(project, digest string, chunks int)
	// commits runs every mutation in group commits (batch.go).
	commits *committer
}

// Option configures a Server.
type Option func(*config) error

type config struct {
	keyFile string
	tokens  *Tokens
	tls     *tls.Config
	log     *slog.Logger
	now     func() time.Time
	sync    Sync
	maxBlob int64
	uploads int
	pubRefl bool
	unary   []grpc.UnaryServerInterceptor
	stream  []grpc.StreamServerInterceptor
}

// WithSecretKeyFile sets the file holding the key that encrypts secret
// values (64 hex digits). Without it the key is DefaultSecretKeyFile(db),
// generated with mode 0600 on first start, on SQLite; a PostgreSQL
// database needs it (its replicas share the key).
func WithSecretKeyFile(path string) Option {
	return func(c *config) error {
		if path == "" {
			return errors.New("empty secret key file name")
		}
		c.keyFile = path
		return nil
	}
}

// WithTokens makes every call need one of the tokens, and each token see
// only its projects. Without tokens only local clients (loopback, unix
// socket, in-process) are served.
func WithTokens(t *Tokens) Option {
	return func(c *config) error {
		if t == nil {
			return errors.New("nil tokens")
		}
		c.tokens = t
		return nil
	}
}

// WithTLS serves TLS with the given configuration.
func WithTLS(cfg *tls.Config) Option {
	return func(c *config) error {
		if cfg == nil {
			return errors.New("nil TLS configuration")
		}
		c.tls = cfg
		return nil
	}
}

// WithLogger logs each call (method, project, address, code, duration) to
// l. The default discards logs.
func WithLogger(l *slog.Logger) Option {
	return func(c *config) error {
		if l == nil {
			return errors.New("nil logger")
		}
		c.log = l
		return nil
	}
}

// WithClock replaces time.Now, for lease expiry in tests.
func WithClock(now func() time.Time) Option {
	return func(c *config) error {
		if now == nil {
			return errors.New("nil clock")
		}
		c.now = now
		return nil
	}
}

// WithSync sets how commits reach the disk (default SyncNormal).
func WithSync(s Sync) Option {
	return func(c *config) error {
		if s != SyncNormal && s != SyncFull {
			return fmt.Errorf("unknown sync mode %d", s)
		}
		c.sync = s
		return nil
	}
}

// DefaultMaxBlobSize is the largest blob a server takes unless
// WithMaxBlobSize says otherwise.
const DefaultMaxBlobSize = 1 << 30

// DefaultMaxUploadsPerToken is how many uploads one token may run at once
// unless WithMaxUploadsPerToken says otherwise.
const DefaultMaxUploadsPerToken = 4

// WithMaxBlobSize limits an uploaded blob's size (default
// DefaultMaxBlobSize, 1 GiB).
func WithMaxBlobSize(n int64) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("max blob size %d: want > 0", n)
		}
		c.maxBlob = n
		return nil
	}
}

// WithMaxUploadsPerToken limits how many uploads each token (or, without
// tokens, all local clients together) may run at once (default
// DefaultMaxUploadsPerToken); more are refused with RESOURCE_EXHAUSTED.
func WithMaxUploadsPerToken(n int) Option {
	return func(c *config) error {
		if n <= 0 {
			return fmt.Errorf("max uploads per token %d: want > 0", n)
		}
		c.uploads = n
		return nil
	}
}

// WithPublicReflection serves gRPC server reflection without a token.
// Health checking is always served without one.
func WithPublicReflection() Option {
	return func(c *config) error {
		c.pubRefl = true
		return nil
	}
}

// WithUnaryInterceptor wraps every unary call of the server in i,
// outermost, before authentication: to count or fail calls in tests
// around the real server.
func WithUnaryInterceptor(i grpc.UnaryServerInterceptor) Option {
	return func(c *config) error {
		if i == nil {
			return errors.New("nil interceptor")
		}
		c.unary = append(c.unary, i)
		return nil
	}
}

// WithStreamInterceptor wraps every streaming call of the server in i,
// outermost, as WithUnaryInterceptor does for unary calls.
func WithStreamInterceptor(i grpc.StreamServerInterceptor) Option {
	return func(c *config) error {
		if i == nil {
			return errors.New("nil interceptor")
		}
		c.stream = append(c.stream, i)
		return nil
	}
}

// Open opens (creating and migrating as needed) the database at dbPath and
// returns a server ready to Serve. dbPath is a SQLite file, or a
// postgres:// or postgresql:// URL (IsPostgres), which needs
// WithSecretKeyFile: several servers on one PostgreSQL database serve the
// same projects, their writes one at a time (pgdriver.go).
func Open(ctx context.Context, dbPath string, opts ...Option) (*Server, error) {
	c := config{
		log:     slog.New(slog.DiscardHandler),
		now:     time.Now,
		maxBlob: DefaultMaxBlobSize,
		uploads: DefaultMaxUploadsPerToken,
	}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	st, err := openStore(ctx, dbPath, c.sync)
	if err != nil {
		return nil, err
	}
	keyFile, generate := c.keyFile, false
	if keyFile == "" && st.postgres() {
		st.close()
		return nil, errNoPGKey
	}
	if keyFile == "" {
		keyFile, generate = DefaultSecretKeyFile(dbPath), true
	}
	k, err := loadKeys(ctx, st, keyFile, generate)
	if err != nil {
		st.close()
		return nil, err
	}
	spoolDir, err := openSpool(ctx, st, dbPath)
	if err != nil {
		st.close()
		return nil, fmt.Errorf("open %s: %w", RedactDB(dbPath), err)
	}
	// Idempotency keys protect retries, which come within minutes.
	if _, err := st.w.ExecContext(ctx, "DELETE FROM idempotency WHERE created_at < ?", c.now().Add(-idempotencyTTL).UnixNano()); err != nil {
		st.close()
		return nil, fmt.Errorf("open %s: %w", RedactDB(dbPath), err)
	}
	s := &Server{
		st:       st,
		keys:     k,
		tokens:   c.tokens,
		log:      c.log,
		now:      c.now,
		health:   health.NewServer(),
		spoolDir: spoolDir,
		maxBlob:  c.maxBlob,
		pubRefl:  c.pubRefl,
		uploads:  newUploadLimit(c.uploads),
	}
	s.commits = &committer{s: s}
	gopts := []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(append(c.unary, s.unaryInterceptor)...),
		grpc.ChainStreamInterceptor(append(c.stream, s.streamInterceptor)...),
		grpc.MaxRecvMsgSize(maxRecvMsgSize),
		grpc.MaxHeaderListSize(maxHeaderListSize),
		grpc.InTapHandle(s.tap),
	}
	if c.tls != nil {
		gopts = append(gopts, grpc.Creds(credentials.NewTLS(c.tls)))
	}
	s.grpc = grpc.NewServer(gopts...)
	ccv1.RegisterProjectServiceServer(s.grpc, &projectAPI{s: s})
	ccv1.RegisterBlobServiceServer(s.grpc, &blobAPI{s: s})
	ccv1.RegisterResourceServiceServer(s.grpc, &resourceAPI{s: s})
	healthpb.RegisterHealthServer(s.grpc, s.health)
	reflection.Register(s.grpc)
	for name := range s.grpc.GetServiceInfo() {
		s.health.SetServingStatus(name, healthpb.HealthCheckResponse_SERVING)
	}
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	return s, nil
}

// Serve serves lis until Stop or Close. It may be called for several
// listeners.
func (s *Server) Serve(lis net.Listener) error { return s.grpc.Serve(lis) }

// Stop stops serving, letting calls in progress finish first unless ctx
// ends.
func (s *Server) Stop(ctx context.Context) {
	s.health.Shutdown()
	done := make(chan struct{})
	go func() {
		s.grpc.GracefulStop()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
		s.grpc.Stop()
		<-done
	}
}

// Close stops serving at once and closes the database.
func (s *Server) Close() error {
	s.grpc.Stop()
	return s.st.close()
}

// maxRecvMsgSize bounds a request: the largest is an ApplyResource with a
// 16 MiB spec, or a FindMissingBlobs of 100,000 digests.
const maxRecvMsgSize = 20 << 20

// maxHeaderListSize bounds a call's headers: a token and gRPC's own.
const maxHeaderListSize = 64 << 10

// public reports whether a method is served without a token: health
// checking always, so that standard probes work, and reflection when the
// server was told so.
func (s *Server) public(method string) bool {
	switch {
	case strings.HasPrefix(method, "/grpc.health.v1.Health/"):
		return true
	case strings.HasPrefix(method, "/grpc.reflection.v1.ServerReflection/"), strings.HasPrefix(method, "/grpc.reflection.v1alpha.ServerReflection/"):
		return s.pubRefl
	}
	return false
}

// unaryInterceptor authenticates, checks the size of every string of the
// request, authorizes by the request's project, recovers from panics and
// logs the call. Nothing from the request is logged for a call that is not
// authenticated.
func (s *Server) unaryInterceptor(ctx context.Context, req any, info *grpc.UnaryServerInfo, next grpc.UnaryHandler) (resp any, err error) {
	start := time.Now()
	if s.public(info.FullMethod) {
		resp, err = s.guard(ctx, func(ctx context.Context) (any, error) { return next(ctx, req) })
		s.logCall(ctx, info.FullMethod, nil, "", "", start, err)
		return resp, err
	}
	project, address := "", ""
	p, err := s.authenticate(ctx)
	if err == nil {
		if m, ok := req.(proto.Message); ok {
			err = checkStrings(m)
		}
	}
	if err == nil {
		if r, ok := req.(interface{ GetProject() string }); ok {
			project = r.GetProject()
		}
		if r, ok := req.(interface{ GetAddress() string }); ok {
			address = r.GetAddress()
		}
		ctx = context.WithValue(ctx, principalKey{}, p)
		if _, ok := req.(interface{ GetProject() string }); ok {
			err = authorize(ctx, project)
		}
	}
	if err == nil {
		resp, err = s.guard(ctx, func(ctx context.Context) (any, error) { return next(ctx, req) })
	}
	s.logCall(ctx, info.FullMethod, p, project, address, start, err)
	return resp, err
}

func (s *Server) streamInterceptor(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, next grpc.StreamHandler) error {
	start := time.Now()
	ctx := ss.Context()
	if s.public(info.FullMethod) {
		_, err := s.guard(ctx, func(context.Context) (any, error) { return nil, next(srv, ss) })
		s.logCall(ctx, info.FullMethod, nil, "", "", start, err)
		return err
	}
	p, err := s.authenticate(ctx)
	ci := &callInfo{}
	if err == nil {
		ws := &wrappedStream{ServerStream: ss, ctx: context.WithValue(context.WithValue(ctx, principalKey{}, p), callInfoKey{}, ci)}
		_, err = s.guard(ws.ctx, func(context.Context) (any, error) { return nil, next(srv, ws) })
	}
	s.logCall(ctx, info.FullMethod, p, ci.project, "", start, err)
	return err
}

// callInfo is where a stream handler notes the project it serves, for the
// log.
type callInfo struct{ project string }

type callInfoKey struct{}

// wrappedStream carries the principal and the callInfo in its context.
type wrappedStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (w *wrappedStream) Context() context.Context { return w.ctx }

// guard turns a panic into an Internal error, so that no input can bring
// the server down.
func (s *Server) guard(ctx context.Context, f func(context.Context) (any, error)) (resp any, err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic", "panic", logValue(fmt.Sprint(r)), "stack", string(debug.Stack()))
			resp, err = nil, status.Error(codes.Internal, "internal error")
		}
	}()
	return f(ctx)
}

func (s *Server) logCall(ctx context.Context, method string, p *principal, project, address string, start time.Time, err error) {
	code := status.Code(err)
	attrs := []slog.Attr{
		slog.String("method", method),
		slog.String("code", code.String()),
		slog.Duration("duration", time.Since(start)),
	}
	if project != "" {
		attrs = append(attrs, slog.String("project", logValue(project)))
	}
	if address != "" {
		attrs = append(attrs, slog.String("address", logValue(address)))
	}
	if p != nil {
		attrs = append(attrs, slog.String("token", p.name))
	}
	if pr, ok := peer.FromContext(ctx); ok && pr.Addr != nil {
		attrs = append(attrs, slog.String("peer", pr.Addr.String()))
	}
	level := slog.LevelInfo
	switch {
	case code == codes.Internal || code == codes.Unknown || code == codes.DataLoss:
		level = slog.LevelError
	case err != nil:
		level = slog.LevelWarn
	}
	if err != nil {
		// Status messages are built by this package and never hold a
		// secret value.
		attrs = append(attrs, slog.String("error", logValue(status.Convert(err).Message())))
	}
	s.log.LogAttrs(ctx, level, "call", attrs...)
}

// maxLogValue bounds each value a log line holds from a request.
const maxLogValue = 256

// logValue cuts s to maxLogValue bytes (at a rune's start), saying how long
// it was.
func logValue(s string) string {
	if len(s) <= maxLogValue {
		return s
	}
	n := maxLogValue
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s…(%d bytes)", s[:n], len(s))
}

// Unowned is the reserved project that holds the resources no project owns:
// made by a platform SDK or another tool, or forgotten by a project (issue
// 10). It is not a DNS label, so no project can be named so. A request names
// it like any project; a token may write it only when its PROJECTS list
// names "-" explicitly ("*" does not cover it).
const Unowned = "-"

// validProject reports whether s names a project a request may address: a
// project name, a project in an environment (schema.Scope, "NAME/ENV":
// issue 12), or Unowned.
func validProject(s string) bool { return s == Unowned || schema.ValidScope(s) }
