package service

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net"
	"os"
	"regexp"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/tap"

	"cc.dev/cc/schema"
)

// Tokens maps bearer tokens to the projects they may touch.
type Tokens struct {
	bySum map[string]*principal // by hex sha256 of the token
}

// principal is who a token speaks for.
type principal struct {
	name     string // for logs; never the token
	all      bool
	projects map[string]bool
}

// may reports whether the principal may touch the project (a scope,
// schema.Scope); "*" covers every project but Unowned, which must be listed
// by name; a project's name covers each of its environments, and
// "NAME/ENV" only that one (issue 12: environments).
func (p *principal) may(project string) bool {
	name, _ := schema.SplitScope(project)
	return (p.all && project != Unowned) || p.projects[project] || p.projects[name]
}

var sumToken = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

// ParseTokens reads a tokens file. Each line is
//
//	TOKEN PROJECTS [NAME]
//
// where TOKEN is the bearer token itself (at least 16 characters) or
// "sha256:" + the hex sha256 of it, so that the file need not hold the
// token; PROJECTS is a comma-separated list of project names (each covering
// every environment of the project), projects in one environment
// ("NAME/ENV"), or * for all;
// "-" names the unowned resources (Unowned), which * does not cover;
// and NAME labels the token in logs (the default is the first 8 hex digits of
// its sha256). Blank lines and lines starting with # are ignored.
func ParseTokens(name string, data []byte) (*Tokens, error) {
	t := &Tokens{bySum: map[string]*principal{}}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) < 2 || len(f) > 3 {
			return nil, fmt.Errorf("%s:%d: want TOKEN PROJECTS [NAME]", name, n)
		}
		var sum string
		switch {
		case sumToken.MatchString(f[0]):
			sum = strings.TrimPrefix(f[0], "sha256:")
		case strings.HasPrefix(f[0], "sha256:"):
			return nil, fmt.Errorf("%s:%d: a sha256: token is 64 lowercase hex digits", name, n)
		case len(f[0]) < 16:
			return nil, fmt.Errorf("%s:%d: token too short: use at least 16 characters", name, n)
		default:
			s := sha256.Sum256([]byte(f[0]))
			sum = hex.EncodeToString(s[:])
		}
		if t.bySum[sum] != nil {
			return nil, fmt.Errorf("%s:%d: token listed twice", name, n)
		}
		p := &principal{name: sum[:8], projects: map[string]bool{}}
		if len(f) == 3 {
			p.name = f[2]
		}
		for _, proj := range strings.Split(f[1], ",") {
			switch {
			case proj == "*":
				p.all = true
			case validProject(proj):
				p.projects[proj] = true
			default:
				return nil, fmt.Errorf("%s:%d: %q is not a project name (a lowercase DNS label), a project in an environment (NAME/ENV), - (the unowned resources) or *", name, n, proj)
			}
		}
		t.bySum[sum] = p
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(t.bySum) == 0 {
		return nil, fmt.Errorf("%s: no tokens", name)
	}
	return t, nil
}

// LoadTokens reads and parses a tokens file.
func LoadTokens(path string) (*Tokens, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokens: %w", err)
	}
	return ParseTokens(path, data)
}

func (t *Tokens) lookup(token string) *principal {
	s := sha256.Sum256([]byte(token))
	return t.bySum[hex.EncodeToString(s[:])]
}

type principalKey struct{}

// authenticate finds who the call speaks for. Without tokens only local
// clients are served, and they may touch every project.
func (s *Server) authenticate(ctx context.Context) (*principal, error) {
	if s.tokens == nil {
		p, _ := peer.FromContext(ctx)
		if p == nil || !localAddr(p.Addr) {
			return nil, status.Error(codes.Unauthenticated, "this server serves only local clients: start it with --tokens to serve others")
		}
		return &principal{name: "local", all: true, projects: map[string]bool{Unowned: true}}, nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	return s.tokenPrincipal(md)
}

// tokenPrincipal finds whom the bearer token in md speaks for.
func (s *Server) tokenPrincipal(md metadata.MD) (*principal, error) {
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return nil, status.Error(codes.Unauthenticated, "no bearer token: send the header \"authorization: Bearer TOKEN\"")
	}
	token, ok := strings.CutPrefix(vals[0], "Bearer ")
	if !ok {
		return nil, status.Error(codes.Unauthenticated, "the authorization header is not \"Bearer TOKEN\"")
	}
	p := s.tokens.lookup(strings.TrimSpace(token))
	if p == nil {
		return nil, status.Error(codes.Unauthenticated, "unknown bearer token")
	}
	return p, nil
}

// tap refuses a call without a known token as soon as its headers arrive,
// before its request is read: an unauthenticated client costs no more than
// its headers. Calls served without a token, and servers without tokens
// (which serve local clients only, judged by the interceptors), pass.
func (s *Server) tap(ctx context.Context, info *tap.Info) (context.Context, error) {
	if s.tokens == nil || s.public(info.FullMethodName) {
		return ctx, nil
	}
	if _, err := s.tokenPrincipal(info.Header); err != nil {
		attrs := []slog.Attr{slog.String("method", logValue(info.FullMethodName)), slog.String("code", codes.Unauthenticated.String()),
			slog.String("error", status.Convert(err).Message())}
		if pr, ok := peer.FromContext(ctx); ok && pr.Addr != nil {
			attrs = append(attrs, slog.String("peer", pr.Addr.String()))
		}
		s.log.LogAttrs(ctx, slog.LevelWarn, "call", attrs...)
		return nil, err
	}
	return ctx, nil
}

// authorize refuses a project the call's principal may not touch.
func authorize(ctx context.Context, project string) error {
	p, _ := ctx.Value(principalKey{}).(*principal)
	if p == nil {
		return status.Error(codes.Unauthenticated, "unauthenticated call")
	}
	if !p.may(project) {
		return status.Errorf(codes.PermissionDenied, "token %q may not use %s", p.name, scopeWords(project))
	}
	return nil
}

// localAddr reports whether a peer is on this machine: a unix socket, a
// loopback address, or an in-process pipe.
func localAddr(a net.Addr) bool {
	switch a := a.(type) {
	case *net.UnixAddr:
		return true
	case *net.TCPAddr:
		return a.IP.IsLoopback()
	case nil:
		return false
	}
	return a.Network() == "bufconn" || a.Network() == "pipe"
}

// scopeWords names a scope in an error: project "app", or environment
// "prod" of project "app".
func scopeWords(scope string) string {
	name, env := schema.SplitScope(scope)
	if env == "" {
		return fmt.Sprintf("project %q", scope)
	}
	return fmt.Sprintf("environment %q of project %q", env, name)
}
