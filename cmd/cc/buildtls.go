package main

import (
	"flag"
	"fmt"
	"strings"

	"cc.dev/cc/buildkit"
)

// buildTLSFlags are cc build's --buildkit-tls-* flags, for a shared
// buildkitd over tcp:// with TLS client certificates (issue 14: a shared
// BuildKit). They mean what buildctl's --tlscacert, --tlscert, --tlskey,
// --tlsservername and --tlsdir mean; each defaults to its $CC_BUILDKIT_TLS_*
// variable, as --buildkit defaults to $BUILDKIT_HOST.
type buildTLSFlags struct {
	ca, cert, key, serverName, dir string
}

// tlsSetting is one --buildkit-tls-* flag with its variable.
type tlsSetting struct {
	flag, env string
	val       *string
}

func (t *buildTLSFlags) settings() []tlsSetting {
	return []tlsSetting{
		{"buildkit-tls-ca", "CC_BUILDKIT_TLS_CA", &t.ca},
		{"buildkit-tls-cert", "CC_BUILDKIT_TLS_CERT", &t.cert},
		{"buildkit-tls-key", "CC_BUILDKIT_TLS_KEY", &t.key},
		{"buildkit-tls-server-name", "CC_BUILDKIT_TLS_SERVER_NAME", &t.serverName},
		{"buildkit-tls-dir", "CC_BUILDKIT_TLS_DIR", &t.dir},
	}
}

func (t *buildTLSFlags) register(fs *flag.FlagSet) {
	usage := map[string]string{
		"buildkit-tls-ca":          "check buildkitd's certificate against the CA certificates in PEM `FILE` (default $CC_BUILDKIT_TLS_CA, else the system's roots)",
		"buildkit-tls-cert":        "present the client certificate in PEM `FILE` to a buildkitd started with --tlscacert; needs --buildkit-tls-key (default $CC_BUILDKIT_TLS_CERT)",
		"buildkit-tls-key":         "the client certificate's private key, PEM `FILE` (default $CC_BUILDKIT_TLS_KEY)",
		"buildkit-tls-server-name": "the `NAME` buildkitd's certificate must hold (default $CC_BUILDKIT_TLS_SERVER_NAME, else the --buildkit address's host)",
		"buildkit-tls-dir":         "take the CA, certificate and key from `DIR`, as buildctl --tlsdir: ca.pem or ca.crt, cert.pem or tls.crt, key.pem or tls.key (default $CC_BUILDKIT_TLS_DIR)",
	}
	for _, s := range t.settings() {
		fs.StringVar(s.val, s.flag, "", usage[s.flag])
	}
}

// resolve fills the settings not given as flags from their variables and
// returns the TLS to reach the buildkitd at addr with, checked: a TLS
// setting with an address that is not tcp://, a certificate without its
// key, a file that does not read or parse are errors that name the flag
// (or variable) they came from.
func (t *buildTLSFlags) resolve(e *env, addr string) (buildkit.TLS, error) {
	src := map[*string]string{}
	var given []string
	for _, s := range t.settings() {
		src[s.val] = "--" + s.flag
		if *s.val == "" {
			*s.val, src[s.val] = e.getenv(s.env), "$"+s.env
		}
		if *s.val != "" {
			given = append(given, src[s.val])
		}
	}
	if len(given) == 0 {
		return buildkit.TLS{}, nil
	}
	if addr == "" {
		addr = buildkit.DefaultAddress
	}
	if !strings.HasPrefix(addr, "tcp://") {
		return buildkit.TLS{}, fmt.Errorf("%s needs a tcp://HOST:PORT BuildKit address (--buildkit or $BUILDKIT_HOST), not %q", strings.Join(given, ", "), addr)
	}
	tls := buildkit.TLS{CA: t.ca, Cert: t.cert, Key: t.key, ServerName: t.serverName}
	if t.dir != "" {
		var files []string
		for _, f := range []*string{&t.ca, &t.cert, &t.key} {
			if *f != "" {
				files = append(files, src[f])
			}
		}
		if len(files) > 0 {
			return buildkit.TLS{}, fmt.Errorf("%s and %s: give a TLS directory or its files, not both", src[&t.dir], strings.Join(files, ", "))
		}
		d, err := buildkit.TLSDir(t.dir)
		if err != nil {
			return buildkit.TLS{}, fmt.Errorf("%s: %v", src[&t.dir], err)
		}
		tls.CA, tls.Cert, tls.Key = d.CA, d.Cert, d.Key
	}
	switch {
	case tls.Cert != "" && tls.Key == "":
		return buildkit.TLS{}, fmt.Errorf("%s needs --buildkit-tls-key (the client certificate's key)", src[&t.cert])
	case tls.Key != "" && tls.Cert == "":
		return buildkit.TLS{}, fmt.Errorf("%s needs --buildkit-tls-cert (the certificate of the key)", src[&t.key])
	}
	if err := tls.Check(addr); err != nil {
		return buildkit.TLS{}, err
	}
	return tls, nil
}
