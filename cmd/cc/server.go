package main

import (
	"context"
	"crypto/tls"
	"errors"
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
		args:    "[--listen ADDR] [--db FILE] [--tls-cert FILE --tls-key FILE] [--tokens FILE [--insecure]] [--secret-key-file FILE]",
		summary: "run the reference cc service on a SQLite database",
		help: `Server runs the reference cc service: the cc.v1 gRPC API that plan and apply
use, with gRPC health checking and server reflection, keeping every
project's state in the SQLite database --db (created and migrated on first
start). It serves until interrupted (SIGINT or SIGTERM), then lets the calls
in progress finish.

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

An upload is spooled beside the database (FILE-spool/) and stored in short
transactions, so that it never stalls other projects; a blob may be at
most --max-blob-size, and one token runs at most --max-uploads-per-token
uploads at once (others wait).

Secret values are encrypted at rest with AES-256-GCM under the key in
--secret-key-file (64 hex digits); without it the key is FILE.key beside
the database, generated with mode 0600 on first start. Keep the key with
backups of the database: without it no secret value can be read.

Each call is logged to stderr (method, project, address, code, duration);
secret values never are. --sync full (the default) makes every mutation
reach the disk before it is acknowledged; --sync normal survives a crash of
the server but may lose the last mutations to a power cut.`,
		run: runServer,
	})
}

func runServer(e *env, args []string) int {
	c := commands["server"]
	fs := e.flags(c)
	listen := fs.String("listen", defaultListen, "serve on `ADDR`: HOST:PORT or unix:///PATH")
	db := fs.String("db", "cc-state.db", "the SQLite database `FILE`")
	certFile := fs.String("tls-cert", "", "serve TLS with the certificate chain in `FILE` (PEM)")
	keyFile := fs.String("tls-key", "", "the TLS private key in `FILE` (PEM)")
	tokensFile := fs.String("tokens", "", "require bearer tokens from `FILE`; each sees only its projects")
	secretKeyFile := fs.String("secret-key-file", "", "the key that encrypts secret values, 64 hex digits in `FILE` (default: the database's name + .key)")
	syncMode := fs.String("sync", "full", "commit durability: full (fsync each mutation) or normal")
	logFormat := fs.String("log-format", "text", "log format: text or json")
	insecure := fs.Bool("insecure", false, "with --tokens, accept tokens in plain text on a non-loopback address (no TLS)")
	publicReflection := fs.Bool("public-reflection", false, "serve gRPC server reflection without a token")
	maxBlob := fs.String("max-blob-size", "1Gi", "the largest blob an upload may store: `SIZE` in bytes, or with Ki, Mi, Gi or Ti")
	maxUploads := fs.Int("max-uploads-per-token", service.DefaultMaxUploadsPerToken, "how many uploads one token runs at once (`N`)")
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	if fs.NArg() > 0 {
		return e.usageError(c, "unexpected argument %q", fs.Arg(0))
	}
	if (*certFile == "") != (*keyFile == "") {
		return e.usageError(c, "--tls-cert and --tls-key go together")
	}
	sync, err := service.ParseSync(*syncMode)
	if err != nil {
		return e.usageError(c, "--%v", err)
	}
	var handler slog.Handler
	switch *logFormat {
	case "text":
		handler = slog.NewTextHandler(e.stderr, nil)
	case "json":
		handler = slog.NewJSONHandler(e.stderr, nil)
	default:
		return e.usageError(c, "--log-format %q: want text or json", *logFormat)
	}
	log := slog.New(handler)
	blobLimit, ok := parseByteSize(*maxBlob)
	if !ok || blobLimit <= 0 {
		return e.usageError(c, "--max-blob-size %q: want a positive size in bytes, or with Ki, Mi, Gi or Ti", *maxBlob)
	}
	if *maxUploads <= 0 {
		return e.usageError(c, "--max-uploads-per-token %d: want at least 1", *maxUploads)
	}

	opts := []service.Option{service.WithLogger(log), service.WithSync(sync), service.WithMaxBlobSize(blobLimit), service.WithMaxUploadsPerToken(*maxUploads)}
	if *publicReflection {
		opts = append(opts, service.WithPublicReflection())
	}
	if *secretKeyFile != "" {
		opts = append(opts, service.WithSecretKeyFile(*secretKeyFile))
	}
	if *tokensFile != "" {
		tokens, err := service.LoadTokens(*tokensFile)
		if err != nil {
			fmt.Fprintf(e.stderr, "cc server: %v\n", err)
			return exitError
		}
		opts = append(opts, service.WithTokens(tokens))
	}
	if *certFile != "" {
		cert, err := tls.LoadX509KeyPair(*certFile, *keyFile)
		if err != nil {
			fmt.Fprintf(e.stderr, "cc server: TLS: %v\n", err)
			return exitError
		}
		opts = append(opts, service.WithTLS(&tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}))
	}

	network, address := "tcp", *listen
	if p, ok := strings.CutPrefix(*listen, "unix://"); ok {
		network, address = "unix", p
	} else if p, ok := strings.CutPrefix(*listen, "unix:"); ok {
		network, address = "unix", p
	}
	if network == "unix" && address == "" {
		return e.usageError(c, "--listen %q: no socket path", *listen)
	}

	ctx, stop := signal.NotifyContext(e.ctx, syscall.SIGTERM)
	defer stop()
	srv, err := service.Open(ctx, *db, opts...)
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
	if network == "tcp" {
		if ta, ok := lis.Addr().(*net.TCPAddr); ok && !ta.IP.IsLoopback() {
			switch {
			case *tokensFile == "":
				log.Warn("without --tokens only clients on this machine are served; others get Unauthenticated", "listen", lis.Addr().String())
			case *certFile == "" && !*insecure:
				lis.Close()
				fmt.Fprintf(e.stderr, "cc server: --listen %s is not a loopback address: tokens would cross the network in plain text; give --tls-cert and --tls-key, or --insecure to accept that\n", *listen)
				return exitError
			case *certFile == "":
				log.Warn("--insecure: tokens cross the network in plain text", "listen", lis.Addr().String())
			}
		}
	}
	log.Info("serving", "listen", listenString(lis), "db", *db, "tls", *certFile != "", "tokens", *tokensFile != "", "sync", sync.String())

	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	select {
	case err := <-served:
		if err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			fmt.Fprintf(e.stderr, "cc server: %v\n", err)
			return exitError
		}
	case <-ctx.Done():
		log.Info("stopping: waiting for calls in progress (10s at most)")
		sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		srv.Stop(sctx)
		cancel()
		<-served
	}
	if err := srv.Close(); err != nil {
		fmt.Fprintf(e.stderr, "cc server: %v\n", err)
		return exitError
	}
	log.Info("stopped")
	return exitOK
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
