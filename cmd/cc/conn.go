package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/mattn/go-isatty"

	"cc.dev/cc/applier"
	"cc.dev/cc/service"
)

// stateDir is where the embedded default keeps a project's state, in its
// root.
const stateDir = service.StateDir

// serviceFlags say which service holds a project's state.
type serviceFlags struct {
	server   string
	tls      bool
	ca       string
	insecure bool
	// env is --env: the environment whose state to use (environments.go).
	env string
}

func (f *serviceFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.server, "server", "", "use the cc service at `ADDR` (HOST:PORT, unix:///PATH, dns:///NAME:PORT for every address a name has, or replicas HOST:PORT,HOST:PORT,... on one database, called round robin, a call that finds one gone retried on another; default $CC_SERVER, else the embedded state in .cc/state.db of the project root); $CC_TOKEN is its token")
	fs.BoolVar(&f.tls, "tls", false, "connect to --server with TLS, checking its certificate against the system's roots")
	fs.StringVar(&f.ca, "ca", "", "connect to --server with TLS, checking its certificate against the CA certificates in `FILE` (PEM)")
	fs.BoolVar(&f.insecure, "insecure", false, "connect without TLS to a --server on another machine, sending $CC_TOKEN and secret values in clear")
	registerEnv(fs, &f.env)
}

// embeddedOptions are added to the embedded server's options: tests count
// and fail calls with interceptors around it.
var embeddedOptions []service.Option

// conn is an open service.
type conn struct {
	client *service.Client
	// where describes it for messages: "the embedded state in
	// DIR/.cc/state.db" or "the cc service at ADDR".
	where string
	// server is the address, "" for the embedded default; tls says it
	// is dialled with TLS.
	server string
	tls    bool
	close  func() error
}

// connect opens the service holding the state of the project at root:
// --server (or $CC_SERVER) with $CC_TOKEN, or the embedded default.
func (e *env) connect(f serviceFlags, root string) (*conn, error) {
	server := f.server
	if server == "" {
		server = e.getenv("CC_SERVER")
	}
	if server == "" {
		if f.tls || f.ca != "" {
			return nil, errors.New("--tls and --ca go with --server (or CC_SERVER)")
		}
		dir := filepath.Join(root, stateDir)
		opts := append([]service.Option{service.WithSync(service.SyncNormal)}, embeddedOptions...)
		c, closeFn, err := service.OpenProject(e.ctx, root, opts...)
		if err != nil {
			return nil, fmt.Errorf("open the embedded state in %s: %w", dir, err)
		}
		if !service.StateDirIgnored(root) {
			fmt.Fprintf(e.stderr, "cc: warning: %s does not keep everything in %s out of git (cc writes a line * there): git add could take the secret key and the state; put a line * in it, and no line beginning with !\n",
				filepath.Join(dir, ".gitignore"), dir)
		}
		return &conn{client: c, where: "the embedded state in " + filepath.Join(dir, "state.db"), close: closeFn}, nil
	}
	if service.IsReplicaList(server) {
		if _, err := service.ReplicaAddrs(server); err != nil {
			return nil, fmt.Errorf("--server: %w", err)
		}
	}
	secure := f.tls || f.ca != ""
	if !secure && !f.insecure && !isLocal(server) {
		return nil, fmt.Errorf("refusing to connect to %s without TLS: it is not on this machine, and $CC_TOKEN and secret values would cross the network in clear; pass --tls or --ca FILE (or --insecure to send them in clear anyway)", server)
	}
	var opts []service.DialOption
	if tok := e.getenv("CC_TOKEN"); tok != "" {
		opts = append(opts, service.WithToken(tok))
	}
	if f.tls || f.ca != "" {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if host, _, err := net.SplitHostPort(server); err == nil && !service.IsReplicaList(server) {
			// A list's replicas are each checked against their own
			// host name (service.Dial).
			cfg.ServerName = host
		}
		if f.ca != "" {
			pem, err := os.ReadFile(f.ca)
			if err != nil {
				return nil, fmt.Errorf("--ca: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("--ca %s: no PEM certificate in it", f.ca)
			}
			cfg.RootCAs = pool
		}
		opts = append(opts, service.WithTLSConfig(cfg))
	}
	c, err := service.Dial(server, opts...)
	if err != nil {
		return nil, err
	}
	cn := &conn{client: c, where: "the cc service at " + server, server: server, tls: f.tls || f.ca != "", close: c.Close}
	e.cn = cn
	return cn, nil
}

// explain puts what a failed call means, when the service stopped
// answering, in place of gRPC's transport text ("rpc error: code =
// Unavailable desc = ...").
func (cn *conn) explain(err error) error {
	if prefix, reason, ok := tlsFailure(err); ok && cn.server != "" {
		return cn.handshakeFailed(prefix, reason)
	}
	if applier.ServiceLost(err) && cn.server != "" {
		// Issue 12: an unreachable --server, in words.
		return cn.unreachable(err)
	}
	if applier.ServiceLost(err) {
		return fmt.Errorf("%s is not answering (is it running, at that address?)", cn.where)
	}
	return err
}

// explainRead is explain for cc plan, which names the project whose state
// could not be read even when the service stopped answering.
func (cn *conn) explainRead(err error) error {
	var re *applier.ReadError
	if errors.As(err, &re) {
		return fmt.Errorf("read the state of project %s: %w", re.Project, cn.explain(re.Err))
	}
	return cn.explain(err)
}

// isLocal reports whether a service address is on this machine: a unix
// socket, localhost, or a loopback address (127.0.0.0/8, ::1); a list of
// replicas is when each of them is. Nothing is resolved: a name other
// than localhost is another machine.
func isLocal(server string) bool {
	if service.IsReplicaList(server) {
		for _, a := range strings.Split(server, ",") {
			if !isLocal(strings.TrimSpace(a)) {
				return false
			}
		}
		return true
	}
	if strings.HasPrefix(server, "unix:") || strings.HasPrefix(server, "unix-abstract:") {
		return true
	}
	host := server
	if scheme, rest, ok := strings.Cut(server, ":"); ok && strings.HasPrefix(rest, "//") && !strings.Contains(scheme, "/") {
		// A gRPC target, SCHEME://[AUTHORITY]/ENDPOINT.
		_, endpoint, _ := strings.Cut(rest[2:], "/")
		host = endpoint
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// isTerminal reports whether a stream is a terminal; tests replace it.
var isTerminal = func(v any) bool {
	f, ok := v.(interface{ Fd() uintptr })
	if !ok {
		return false
	}
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// color reports whether to colour output to w: as --color or --no-color
// says, else only a terminal, and never with NO_COLOR set or TERM=dumb.
func (e *env) color(w io.Writer) bool {
	if e.colorOn || e.colorOff {
		return e.colorOn
	}
	return isTerminal(w) && e.getenv("NO_COLOR") == "" && e.getenv("TERM") != "dumb"
}
