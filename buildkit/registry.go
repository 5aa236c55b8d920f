package buildkit

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// Registry talks to image registries the way crane and ko do: credentials
// from the default keychain (docker login, credential helpers), plain HTTP
// for localhost, loopback and private addresses, and for the hosts listed in
// Insecure.
type Registry struct {
	// Insecure lists registry hosts ("myregistry:5000") to reach over plain
	// HTTP (or HTTPS without verification).
	Insecure []string
	// Keychain gives credentials; nil is authn.DefaultKeychain.
	Keychain authn.Keychain
	// Transport is the HTTP transport; nil is remote.DefaultTransport.
	Transport http.RoundTripper
	// Mirrors maps a registry ("docker.io") to a mirror host that
	// Resolve asks instead, as buildkitd's registry mirrors do.
	Mirrors map[string]string

	once   sync.Once
	pull   *remote.Puller
	pullEr error
}

// puller is one Puller for all requests, so the registry's ping and token
// are fetched once, not per request.
func (r *Registry) puller() (*remote.Puller, error) {
	r.once.Do(func() { r.pull, r.pullEr = remote.NewPuller(r.options(context.Background())...) })
	return r.pull, r.pullEr
}

// mirrored rewrites ref to its registry's mirror, if it has one.
func (r *Registry) mirrored(ref name.Reference) (name.Reference, error) {
	host := ref.Context().RegistryStr()
	m, ok := r.Mirrors[host]
	if !ok && host == name.DefaultRegistry {
		m, ok = r.Mirrors["docker.io"]
	}
	if !ok {
		return ref, nil
	}
	sep := ":"
	if _, ok := ref.(name.Digest); ok {
		sep = "@"
	}
	return r.ParseReference(m + "/" + ref.Context().RepositoryStr() + sep + ref.Identifier())
}

// IsInsecure reports whether host is reached without TLS verification.
func (r *Registry) IsInsecure(host string) bool {
	for _, h := range r.Insecure {
		if strings.EqualFold(h, host) {
			return true
		}
	}
	return false
}

// ParseReference parses ref, marking it insecure when its registry is.
func (r *Registry) ParseReference(ref string) (name.Reference, error) {
	parsed, err := name.ParseReference(ref)
	if err != nil {
		return nil, err
	}
	if r.IsInsecure(parsed.Context().RegistryStr()) {
		return name.ParseReference(ref, name.Insecure)
	}
	return parsed, nil
}

func (r *Registry) options(ctx context.Context) []remote.Option {
	kc := r.Keychain
	if kc == nil {
		kc = authn.DefaultKeychain
	}
	opts := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(kc)}
	if r.Transport != nil {
		opts = append(opts, remote.WithTransport(r.Transport))
	}
	return opts
}

// Head returns the descriptor ref names, or nil when the registry says it
// does not exist.
func (r *Registry) Head(ctx context.Context, ref string) (*v1.Descriptor, error) {
	parsed, err := r.ParseReference(ref)
	if err != nil {
		return nil, err
	}
	p, err := r.puller()
	if err != nil {
		return nil, err
	}
	desc, err := p.Head(ctx, parsed)
	if err != nil {
		if isNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	return desc, nil
}

// Resolve returns the digest ref names now: of its index when it has one,
// else of its manifest.
func (r *Registry) Resolve(ctx context.Context, ref string) (string, error) {
	parsed, err := r.ParseReference(ref)
	if err != nil {
		return "", err
	}
	if parsed, err = r.mirrored(parsed); err != nil {
		return "", err
	}
	p, err := r.puller()
	if err != nil {
		return "", err
	}
	desc, err := p.Head(ctx, parsed)
	if err != nil && !isNotFound(err) {
		// Some registries refuse HEAD; GET is what a pull does.
		var d *remote.Descriptor
		d, err = p.Get(ctx, parsed)
		if err == nil {
			desc = &d.Descriptor
		}
	}
	if err != nil {
		if isNotFound(err) {
			return "", fmt.Errorf("%s: not found", ref)
		}
		return "", err
	}
	return desc.Digest.String(), nil
}

// Image fetches the image ref names, for tests and checks.
func (r *Registry) Image(ctx context.Context, ref string) (v1.Image, error) {
	parsed, err := r.ParseReference(ref)
	if err != nil {
		return nil, err
	}
	p, err := r.puller()
	if err != nil {
		return nil, err
	}
	return remote.Image(parsed, remote.WithContext(ctx), remote.Reuse(p))
}

func isNotFound(err error) bool {
	var te *transport.Error
	if errors.As(err, &te) {
		if te.StatusCode == http.StatusNotFound {
			return true
		}
		for _, d := range te.Errors {
			if d.Code == transport.ManifestUnknownErrorCode || d.Code == transport.NameUnknownErrorCode {
				return true
			}
		}
	}
	return false
}
