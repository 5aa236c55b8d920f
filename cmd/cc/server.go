package main

import (
	"context"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"google.golang.org/grpc"

	"cc.dev/cc/service"
)

// defaultListen is where cc server listens unless told otherwise.
const defaultListen = "127.0.0.1:7433"

func init() {
	register(&command{
		name:    "server",
		args:    "[--listen ADDR] [--db FILE|URL] [--tls-cert FILE --tls-key FILE] [--tokens FILE [--insecure]] [--secret-key-file FILE]",
		summary: "run the reference cc service on a SQLite or PostgreSQL database",
		help: `Server runs the reference cc service: the cc.v1 gRPC API that plan and apply
use, with gRPC health checking and server reflection, keeping every
project's state in the database --db (created and migrated on first start).
It serves until interrupted (SIGINT or SIGTERM), then lets the calls in
progress finish.

--db is a SQLite FILE, or a PostgreSQL URL (postgres://USER:PASSWORD@HOST/DB
or postgresql://...), for a team: several cc server replicas on one
PostgreSQL database serve the same projects, one write transaction at a
time across them (a PostgreSQL advisory lock), so leases, serials and
idempotency keys hold whichever replica a call reaches. Without --db, $CC_DB
is used, else cc-state.db. A URL's password is never logged nor printed.
With a URL, --secret-key-file is required: every replica uses the same key.

--listen is HOST:PORT, or unix:///PATH for a unix socket. Without --tokens,
only clients on this machine (loopback, unix socket) are served. With
--tokens FILE, every call needs "authorization: Bearer TOKEN" with a token
from FILE, and a token may only touch its own projects. Each line of FILE is

	TOKEN PROJECTS [NAME]

TOKEN is the token itself (at least 16 characters) or sha256:HEX of it;
PROJECTS is a comma-separated list of projects, or * for all; NAME labels
the token in logs. Lines starting with # are comments. Use --tls-cert and
--tls-key whenever tokens cross a network: with --tokens, a listen address
other than loopback or a unix socket needs TLS, unless --insecure says to
accept tokens in plain text.

Health checking (grpc.health.v1) is served without a token, so standard
probes work; server reflection needs a token unless --public-reflection.

An upload is spooled beside the database (FILE-spool/; on PostgreSQL in a
directory of the server's own under $TMPDIR) and stored, in chunks in the
database, in short transactions, so that it never stalls other projects; a blob may be at
most --max-blob-size, and one token runs at most --max-uploads-per-token
uploads at once (others wait).

Secret values are encrypted at rest with AES-256-GCM under the key in
--secret-key-file (64 hex digits); without it the key is FILE.key beside
the database, generated with mode 0600 on first start. Keep the key with
backups of the database: without it no secret value can be read. To
replace the key, see cc server rotate-key --help.

Each call is logged to stderr (method, project, address, code, duration);
secret values never are. --sync full (the default) makes every mutation
reach the disk before it is acknowledged (mutations arriving together share
one commit and one fsync); --sync normal survives a crash of the server but
may lose the last mutations to a power cut. --sync applies to SQLite; on
PostgreSQL a commit is as durable as the database's synchronous_commit.`,
		run: runServer,
	})
}

func runServer(e *env, args []string) int {
	if len(args) > 0 && args[0] == "rotate-key" {
		return runServerRotateKey(e, args[1:]) // serverkey.go
	}
	c := commands["server"]
	fs := e.flags(c)
	f := defineServerFlags(fs)
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() > 0 {
		return e.usageError(c, "unexpected argument %q", fs.Arg(0))
	}
	s, rc := f.settings(e, c)
	if rc >= 0 {
		return rc
	}
	opts, err := f.options(s)
	if err != nil {
		fmt.Fprintf(e.stderr, "cc server: %v\n", err)
		return exitError
	}
	network, address := splitListen(*f.listen)
	if network == "unix" && address == "" {
		return e.usageError(c, "--listen %q: no socket path", *f.listen)
	}
	return serve(e, f, s, network, address, opts)
}

// serverFlags are cc server's flags.
type serverFlags struct {
	listen, db, certFile, keyFile, tokensFile, secretKeyFile *string
	syncMode, logFormat, maxBlob                             *string
	insecure, publicReflection                               *bool
	maxUploads                                               *int
}

func defineServerFlags(fs *flag.FlagSet) *serverFlags {
	return &serverFlags{
		listen:           fs.String("listen", defaultListen, "serve on `ADDR`: HOST:PORT or unix:///PATH"),
		db:               fs.String("db", "", "the database: a SQLite `FILE` or a postgres:// URL (default $CC_DB, else cc-state.db)"),
		certFile:         fs.String("tls-cert", "", "serve TLS with the certificate chain in `FILE` (PEM)"),
		keyFile:          fs.String("tls-key", "", "the TLS private key in `FILE` (PEM)"),
		tokensFile:       fs.String("tokens", "", "require bearer tokens from `FILE`; each sees only its projects"),
		secretKeyFile:    fs.String("secret-key-file", "", "the key that encrypts secret values, 64 hex digits in `FILE` (default: the database's name + .key)"),
		syncMode:         fs.String("sync", "full", "commit durability: full (fsync each mutation) or normal"),
		logFormat:        fs.String("log-format", "text", "log format: text or json"),
		insecure:         fs.Bool("insecure", false, "with --tokens, accept tokens in plain text on a non-loopback address (no TLS)"),
		publicReflection: fs.Bool("public-reflection", false, "serve gRPC server reflection without a token"),
		maxBlob:          fs.String("max-blob-size", "1Gi", "the largest blob an upload may store: `SIZE` in bytes, or with Ki, Mi, Gi or Ti"),
		maxUploads:       fs.Int("max-uploads-per-token", service.DefaultMaxUploadsPerToken, "how many uploads one token runs at once (`N`)"),
	}
}

// serverSettings are what cc server's flags parse to.
type serverSettings struct {
	sync      service.Sync
	log       *slog.Logger
	blobLimit int64
}

// settings checks the flags that need no file, and parses them; a usage
// error's exit code is returned, or -1.
func (f *serverFlags) settings(e *env, c *command) (serverSettings, int) {
	var s serverSettings
	if (*f.certFile == "") != (*f.keyFile == "") {
		return s, e.usageError(c, "--tls-cert and --tls-key go together")
	}
	if *f.db == "" {
		*f.db = e.getenv("CC_DB")
	}
	if *f.db == "" {
		*f.db = "cc-state.db"
	}
	if service.IsPostgres(*f.db) && *f.secretKeyFile == "" {
		return s, e.usageError(c, "--db %s: a PostgreSQL database needs --secret-key-file (its replicas share the key)", service.RedactDB(*f.db))
	}
	var err error
	if s.sync, err = service.ParseSync(*f.syncMode); err != nil {
		return s, e.usageError(c, "--%v", err)
	}
	switch *f.logFormat {
	case "text":
		s.log = slog.New(slog.NewTextHandler(e.stderr, nil))
	case "json":
		s.log = slog.New(slog.NewJSONHandler(e.stderr, nil))
	default:
		return s, e.usageError(c, "--log-format %q: want text or json", *f.logFormat)
	}
	var ok bool
	if s.blobLimit, ok = parseByteSize(*f.maxBlob); !ok || s.blobLimit <= 0 {
		return s, e.usageError(c, "--max-blob-size %q: want a positive size in bytes, or with Ki, Mi, Gi or Ti", *f.maxBlob)
	}
	if *f.maxUploads <= 0 {
		return s, e.usageError(c, "--max-uploads-per-token %d: want at least 1", *f.maxUploads)
	}
	return s, -1
}

// options are the service's options for the flags, reading the tokens
// file and the TLS key pair.
func (f *serverFlags) options(s serverSettings) ([]service.Option, error) {
	opts := []service.Option{service.WithLogger(s.log), service.WithSync(s.sync), service.WithMaxBlobSize(s.blobLimit), service.WithMaxUploadsPerToken(*f.maxUploads)}
	if *f.publicReflection {
		opts = append(opts, service.WithPublicReflection())
	}
	if *f.secretKeyFile != "" {
		opts = append(opts, service.WithSecretKeyFile(*f.secretKeyFile))
	}
	if *f.tokensFile != "" {
		tokens, err := service.LoadTokens(*f.tokensFile)
		if err != nil {
			return nil, err
		}
		opts = append(opts, service.WithTokens(tokens))
	}
	if *f.certFile != "" {
		cert, err := tls.LoadX509KeyPair(*f.certFile, *f.keyFile)
		if err != nil {
			return nil, fmt.Errorf("TLS: %w", err)
		}
		opts = append(opts, service.WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}))
	}
	return opts, nil
}

// splitListen splits --listen into a network and an address for
// net.Listen: "unix:///PATH" and "unix:PATH" are unix sockets, anything
// else TCP.
func splitListen(listen string) (network, address string) {
	if p, ok := strings.CutPrefix(listen, "unix://"); ok {
		return "unix", p
	}
	if p, ok := strings.CutPrefix(listen, "unix:"); ok {
		return "unix", p
	}
	return "tcp", listen
}

// serve opens the database, listens and serves until the server stops or
// the command is interrupted, then lets the calls in progress finish.
func serve(e *env, f *serverFlags, s serverSettings, network, address string, opts []service.Option) int {
	ctx, stop := signal.NotifyContext(e.ctx, syscall.SIGTERM)
	defer stop()
	srv, err := service.Open(ctx, *f.db, opts...)
	if err != nil {
		fmt.Fprintf(e.stderr, "cc server: %v\n", err)
		return exitError
	}
	defer srv.Close()
	if network == "unix" {
		removeStaleSocket(address)
	}
	lis, err := net.Listen(network, address)
	if err != nil {
		fmt.Fprintf(e.stderr, "cc server: %v\n", err)
		return exitError
	}
	if network == "tcp" && !f.exposureAllowed(e, s.log, lis) {
		lis.Close()
		return exitError
	}
	s.log.Info("serving", "listen", listenString(lis), "db", service.RedactDB(*f.db), "tls", *f.certFile != "", "tokens", *f.tokensFile != "", "sync", s.sync.String())

	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	select {
	case err := <-served:
		if err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			fmt.Fprintf(e.stderr, "cc server: %v\n", err)
			return exitError
		}
	case <-ctx.Done():
		s.log.Info("stopping: waiting for calls in progress (10s at most)")
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		srv.Stop(sctx)
		cancel()
		<-served
	}
	if err := srv.Close(); err != nil {
		fmt.Fprintf(e.stderr, "cc server: %v\n", err)
		return exitError
	}
	s.log.Info("stopped")
	return exitOK
}

// exposureAllowed checks a TCP listener that is not on loopback: without
// tokens only local clients are served (a warning); with tokens, TLS is
// needed unless --insecure (a warning). It reports false, having said
// why, when the server must not start.
func (f *serverFlags) exposureAllowed(e *env, log *slog.Logger, lis net.Listener) bool {
	ta, ok := lis.Addr().(*net.TCPAddr)
	if !ok || ta.IP.IsLoopback() {
		return true
	}
	switch {
	case *f.tokensFile == "":
		log.Warn("without --tokens only clients on this machine are served; others get Unauthenticated", "listen", lis.Addr().String())
	case *f.certFile == "" && !*f.insecure:
		fmt.Fprintf(e.stderr, "cc server: --listen %s is not a loopback address: tokens would cross the network in plain text; give --tls-cert and --tls-key, or --insecure to accept that\n", *f.listen)
		return false
	case *f.certFile == "":
		log.Warn("--insecure: tokens cross the network in plain text", "listen", lis.Addr().String())
	}
	return true
}

// parseByteSize parses a size in bytes, or with a binary unit: "1Gi".
func parseByteSize(s string) (int64, bool) {
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}} {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = n, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, false
	}
	return n * mult, true
}

func listenString(lis net.Listener) string {
	if lis.Addr().Network() == "unix" {
		return "unix://" + lis.Addr().String()
	}
	return lis.Addr().String()
}

// removeStaleSocket removes a unix socket that a killed server left behind;
// one that a live server answers on stays, and Listen reports it in use.
func removeStaleSocket(path string) {
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&os.ModeSocket == 0 {
		return
	}
	if conn, err := net.DialTimeout("unix", path, time.Second); err == nil {
		conn.Close()
		return
	}
	os.Remove(path)
}
