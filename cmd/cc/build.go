package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"cc.dev/cc/buildkit"
	"cc.dev/cc/compiler"
	"cc.dev/cc/diag"
)

func init() {
	register(&command{
		name:    "build",
		args:    "[flags] [PATH] [ADDR...]",
		summary: "build a project's images locally with BuildKit",
		help: `Build builds the images of the project at PATH (a directory, or one .cue or
.hcl file; default .) with BuildKit, the same recipe the platform builds:
the images named by ADDR ("image.app" or "app"), with the images they are
built from, or every image of the project. Bases are built before the images
built from them, and shared.

Each image is pushed to --push REPO as REPO:cc-<hash prefix>, or written as an
OCI tarball by --output type=oci,dest=FILE (a directory, one NAME.tar per
image, when several are built). Before solving, build looks for the image's
content hash: the tag in REPO, or the record of the tarball it wrote. When it
is there the image is "reused" and not built at all; --force builds anyway.
An image with a value of a sensitive variable (or built from one) is always
built: its hash is made without the value, so the same tag may hold another.

Builds are reproducible: file and config times are clamped to
SOURCE_DATE_EPOCH (0 unless set), so the same hash gives the same digest.

--json prints what became of each image as one JSON document on stdout
(address, hash, digest, reference, reused; planner/FORMAT.md), and the line
per image on stderr with BuildKit's display.

--print prints the equivalent Dockerfile of each image instead, and needs no
daemon; values of sensitive variables print as (sensitive) unless
--show-sensitive is given. BuildKit is reached at --buildkit, else $BUILDKIT_HOST, else
` + buildkit.DefaultAddress + `.

A shared buildkitd (buildkitd --addr tcp://0.0.0.0:1234 --tlscacert ca.pem
--tlscert server.pem --tlskey server-key.pem) is reached over TLS with
--buildkit tcp://HOST:1234 and a client certificate its CA signed:
--buildkit-tls-cert and --buildkit-tls-key, with --buildkit-tls-ca to check
its certificate (else the system's roots check it) and
--buildkit-tls-server-name when the name in it is not HOST; or
--buildkit-tls-dir DIR holding ca.pem, cert.pem and key.pem, as buildctl's
--tlsdir. Each defaults to its $CC_BUILDKIT_TLS_* variable (CA, CERT, KEY,
SERVER_NAME, DIR). They are checked before anything is compiled, and
need a tcp:// address.`,
		run: runBuild,
	})
}

func runBuild(e *env, args []string) int {
	c := commands["build"]
	fs := e.flags(c)
	f := defineBuildFlags(fs)
	if rc := e.parse(c, fs, args); rc >= 0 {
		return rc
	}
	path, addrs := splitPathArgs(fs.Args())
	dest, epoch, rc := f.check(e, c)
	if rc >= 0 {
		return rc
	}

	res, rc := e.compile(c, path, e.withEnvironment(compiler.Input{Vars: f.cf.vars, VarFiles: f.cf.varFiles, Tags: f.cf.tags, Offline: *f.offline}, f.env), false)
	if rc >= 0 {
		return rc
	}
	d := res.Desired
	if *f.print && !*f.show {
		d = redactDesired(d) // a printed Dockerfile shows no sensitive value
	}
	all, err := buildkit.Images(d)
	if err != nil {
		fmt.Fprintf(e.stderr, "cc build: %v\n", err)
		return exitError
	}
	imgs, err := buildkit.Select(all, addrs)
	if err != nil {
		fmt.Fprintf(e.stderr, "cc build: %v\n", err)
		return exitError
	}
	if len(imgs) == 0 {
		fmt.Fprintln(e.stderr, "cc build: the project has no images")
		if *f.json {
			return e.buildAsJSON(nil)
		}
		return exitOK
	}

	// The images named, without the bases Select added.
	named := imgs
	if len(addrs) > 0 {
		named = named[:0:0]
		for _, img := range imgs {
			if isNamed(img, addrs) {
				named = append(named, img)
			}
		}
	}
	if *f.print {
		return printDockerfiles(e, named, all, res.Desired.Root)
	}
	if *f.push == "" {
		// Without a registry, an image's LLB holds its bases' LLB: only
		// the images named are exported.
		imgs = named
	}
	return f.build(e, res, buildkit.Request{
		Root:            res.Desired.Root,
		Images:          imgs,
		All:             all,
		Push:            *f.push,
		OCI:             dest,
		Force:           *f.force,
		SourceDateEpoch: epoch,
		Progress:        *f.progress,
		Out:             e.stderr,
		Log:             buildLog(e, *f.json),
	})
}

// buildFlags are cc build's flags.
type buildFlags struct {
	cf                           compileFlags
	env                          string
	addr, output, push, progress *string
	print, show, force, offline  *bool
	json                         *bool
	insecure                     stringList
	tls                          buildTLSFlags
	tlsConf                      buildkit.TLS // tls, resolved and checked
}

func defineBuildFlags(fs *flag.FlagSet) *buildFlags {
	f := &buildFlags{}
	f.cf.register(fs)
	registerEnv(fs, &f.env)
	f.addr = fs.String("buildkit", "", "BuildKit daemon `ADDR` (default $BUILDKIT_HOST or "+buildkit.DefaultAddress+")")
	f.output = fs.String("output", "", "write OCI tarballs: `type=oci,dest=FILE`")
	f.push = fs.String("push", "", "push to `REPO`, tagged cc-<hash prefix>")
	f.print = fs.Bool("print", false, "print the equivalent Dockerfile; no daemon")
	f.show = fs.Bool("show-sensitive", false, "with --print, print the values of sensitive variables instead of (sensitive)")
	f.force = fs.Bool("force", false, "build even images that are already built")
	f.progress = fs.String("progress", "auto", "progress display: auto, tty, plain, quiet or rawjson")
	f.offline = fs.Bool("offline", false, "fail when a base image is not pinned in cc.lock")
	f.json = fs.Bool("json", false, "print what was built as JSON on stdout (address, digest, reference; README, \"Machine-readable output\"), the build's log on stderr")
	fs.Var(&f.insecure, "insecure-registry", "reach registry `HOST` over plain HTTP (repeatable; localhost needs none)")
	f.tls.register(fs)
	return f
}

// check checks the flags and $SOURCE_DATE_EPOCH before anything is
// compiled: the OCI destination, the epoch, or a usage error's exit code
// (else -1).
func (f *buildFlags) check(e *env, c *command) (dest string, epoch int64, rc int) {
	dest, err := parseOutput(*f.output)
	if err != nil {
		return "", 0, e.usageError(c, "%v", err)
	}
	switch *f.progress {
	case "auto", "tty", "plain", "quiet", "rawjson":
	default:
		return "", 0, e.usageError(c, "--progress %q: want auto, tty, plain, quiet or rawjson", *f.progress)
	}
	if s := e.getenv("SOURCE_DATE_EPOCH"); s != "" {
		epoch, err = strconv.ParseInt(s, 10, 64)
		if err != nil || epoch < 0 {
			return "", 0, e.usageError(c, "SOURCE_DATE_EPOCH=%q: want a number of seconds", s)
		}
	}
	if *f.print && *f.json {
		return "", 0, e.usageError(c, "--print prints Dockerfiles; it takes no --json")
	}
	if *f.print && (*f.push != "" || dest != "") {
		return "", 0, e.usageError(c, "--print builds nothing; it takes no --push or --output")
	}
	if !*f.print { // --print reaches no daemon
		if f.tlsConf, err = f.tls.resolve(e, f.address(e)); err != nil {
			return "", 0, e.usageError(c, "%v", err)
		}
	}
	return dest, epoch, -1
}

// printDockerfiles prints the equivalent Dockerfile of each image; bases
// appear as stages of the images built from them.
func printDockerfiles(e *env, named, all []*buildkit.Image, root string) int {
	for i, img := range named {
		df, err := buildkit.Dockerfile(img, all, root)
		if err != nil {
			fmt.Fprintf(e.stderr, "cc build: %v\n", err)
			return exitError
		}
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		e.stdout.Write(df)
	}
	return exitOK
}

// build builds with BuildKit, reporting a failed step at its
// configuration.
func (f *buildFlags) build(e *env, res *compiler.Result, req buildkit.Request) int {
	reg := &buildkit.Registry{Insecure: f.insecure}
	b := buildkit.New(f.address(e), buildkit.WithRegistry(reg), buildkit.WithTLS(f.tlsConf))
	defer b.Close()
	results, err := b.Build(e.ctx, req)
	var be *buildkit.BuildError
	if errors.As(err, &be) {
		e.printDiagnostics(diag.Diagnostics{be.Diagnostic()}, res.Files, false)
		return exitError
	}
	if err != nil {
		fmt.Fprintf(e.stderr, "cc build: %v\n", err)
		return exitError
	}
	if *f.json {
		return e.buildAsJSON(results)
	}
	return exitOK
}

// address is buildkitd's address: --buildkit, else $BUILDKIT_HOST ("" is
// buildkit.DefaultAddress).
func (f *buildFlags) address(e *env) string {
	if *f.addr != "" {
		return *f.addr
	}
	return e.getenv("BUILDKIT_HOST")
}

// buildLog is where cc build's line per image goes: stdout, or stderr
// with --json, which keeps stdout for the JSON.
func buildLog(e *env, asJSON bool) io.Writer {
	if asJSON {
		return e.stderr
	}
	return e.stdout
}

// splitPathArgs takes the first argument as PATH when it names a file or
// directory (or a .cue/.hcl file) and is not an image address.
func splitPathArgs(args []string) (string, []string) {
	if len(args) == 0 {
		return ".", nil
	}
	first := args[0]
	if strings.HasPrefix(first, "image.") {
		return ".", args
	}
	if _, err := os.Stat(first); err == nil || strings.HasSuffix(first, ".cue") || strings.HasSuffix(first, ".hcl") {
		return first, args[1:]
	}
	return ".", args
}

func isNamed(img *buildkit.Image, addrs []string) bool {
	for _, a := range addrs {
		a = strings.TrimPrefix(a, "image.")
		if strings.TrimPrefix(img.Address, "image.") == a {
			return true
		}
		for _, al := range img.Aliases {
			if strings.TrimPrefix(al, "image.") == a {
				return true
			}
		}
	}
	return false
}

// parseOutput reads --output type=oci,dest=FILE and returns FILE.
func parseOutput(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	var typ, dest string
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return "", fmt.Errorf("--output %q: want type=oci,dest=FILE", s)
		}
		switch k {
		case "type":
			typ = v
		case "dest":
			dest = v
		default:
			return "", fmt.Errorf("--output %q: unknown key %q (want type and dest)", s, k)
		}
	}
	if typ != "oci" {
		return "", fmt.Errorf("--output %q: only type=oci is supported", s)
	}
	if dest == "" {
		return "", fmt.Errorf("--output %q: dest=FILE is missing", s)
	}
	return dest, nil
}
