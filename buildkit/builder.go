package buildkit

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/docker/cli/cli/config"
	"github.com/moby/buildkit/client"
	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	"github.com/moby/buildkit/exporter/containerimage/exptypes"
	gateway "github.com/moby/buildkit/frontend/gateway/client"
	"github.com/moby/buildkit/session"
	"github.com/moby/buildkit/session/auth/authprovider"
	"github.com/moby/buildkit/solver/errdefs"
	"github.com/moby/buildkit/solver/pb"
	"github.com/moby/buildkit/util/progress/progressui"
	"github.com/tonistiigi/fsutil"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// DefaultAddress is where buildkitd listens unless BUILDKIT_HOST or
// --buildkit says otherwise.
const DefaultAddress = "unix:///run/buildkit/buildkitd.sock"

// Builder builds images with a buildkitd. It connects only when an image
// has to be built: deciding that every image is reused needs no daemon.
type Builder struct {
	addr     string
	registry *Registry
	clientOp []client.ClientOpt
	tls      TLS

	mu     sync.Mutex
	client *client.Client
}

// Option configures a Builder.
type Option func(*Builder)

// WithRegistry sets how registries are reached for reuse checks.
func WithRegistry(r *Registry) Option { return func(b *Builder) { b.registry = r } }

// WithClientOptions passes options to BuildKit's client.
func WithClientOptions(opts ...client.ClientOpt) Option {
	return func(b *Builder) { b.clientOp = append(b.clientOp, opts...) }
}

// New returns a Builder for the buildkitd at addr ("" is DefaultAddress).
func New(addr string, opts ...Option) *Builder {
	if addr == "" {
		addr = DefaultAddress
	}
	b := &Builder{addr: addr}
	for _, o := range opts {
		o(b)
	}
	if b.registry == nil {
		b.registry = &Registry{}
	}
	return b
}

// Close closes the connection to buildkitd, if any.
func (b *Builder) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.client == nil {
		return nil
	}
	err := b.client.Close()
	b.client = nil
	return err
}

func (b *Builder) dial(ctx context.Context) (*client.Client, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.client != nil {
		return b.client, nil
	}
	if err := b.tls.Check(b.addr); err != nil {
		return nil, err
	}
	c, err := client.New(ctx, b.addr, append(b.tls.clientOptions(b.addr), b.clientOp...)...)
	if err == nil {
		_, err = c.ListWorkers(ctx)
		if err != nil {
			c.Close()
		}
	}
	if err != nil {
		return nil, b.dialError(err)
	}
	b.client = c
	return c, nil
}

// Request is one build of some of a project's images.
type Request struct {
	// Root is the absolute project root.
	Root string
	// Images are the images to build, bases first (see Select).
	Images []*Image
	// All are all the project's images, which from_image may name; nil
	// means Images.
	All []*Image
	// Push is the repository to push to ("registry/name"), tagged
	// cc-<hash prefix>; "" pushes nothing.
	Push string
	// OCI is where to write OCI tarballs: a file for one image, a
	// directory (one NAME.tar per image) for several; "" writes none.
	OCI string
	// Force builds even images that are already built.
	Force bool
	// SourceDateEpoch is the time, in seconds, that file and config
	// timestamps are clamped to.
	SourceDateEpoch int64
	// Progress is BuildKit's display mode: auto, tty, plain, quiet or
	// rawjson.
	Progress string
	// Out receives BuildKit's progress display.
	Out io.Writer
	// Log receives one line per image saying what became of it; nil is
	// Out.
	Log io.Writer
	// LocalID pins llb.LocalUniqueID ("" derives it from Root).
	LocalID string
}

// Result is what became of one image.
type Result struct {
	Image *Image
	// Reused is set when the image was already built and nothing was
	// solved.
	Reused bool
	// Digest is the image's manifest digest, when it was exported.
	Digest string
	// Ref is the pushed reference or the OCI tarball's path.
	Ref string
}

// BuildError is a failed build of one image. Step is the index of the step
// whose op failed, or -1; Command, for a run step, the index of its command
// that failed, or -1.
type BuildError struct {
	Image   *Image
	Step    int
	Command int
	Err     error
}

func (e *BuildError) Error() string {
	if e.Step >= 0 && e.Step < len(e.Image.Spec.Steps) {
		return e.Image.scrub(fmt.Sprintf("build %s: %s: %v", e.Image.Address, e.where(), e.Err))
	}
	return e.Image.scrub(fmt.Sprintf("build %s: %v", e.Image.Address, e.Err))
}

// where names the failing step, and the failing command of a run step
// (issue 9 item 9): "step 2 (run) command 2 of 3 (\"false\")".
func (e *BuildError) where() string {
	s := e.Image.Spec.Steps[e.Step]
	w := fmt.Sprintf("step %d (%s)", e.Step+1, s.Kind())
	if s.Run == nil || e.Command < 0 || e.Command >= len(s.Run.Commands) {
		return w
	}
	text := strconv.Quote(oneLine(s.Run.Commands[e.Command]))
	if e.Image.sensitiveAt(e.commandPointer()) {
		text = "(sensitive)"
	}
	return fmt.Sprintf("%s command %d of %d (%s)", w, e.Command+1, len(s.Run.Commands), text)
}

// commandPointer is the JSON pointer of the failing run command.
func (e *BuildError) commandPointer() string {
	return fmt.Sprintf("/steps/%d/run/commands/%d", e.Step, e.Command)
}

func (e *BuildError) Unwrap() error { return e.Err }

// Diagnostic renders the failure at the config position of the failing
// step (or of the image).
func (e *BuildError) Diagnostic() *diag.Diagnostic {
	summary := fmt.Sprintf("building %s failed", e.Image.Address)
	ptr := ""
	if e.Step >= 0 && e.Step < len(e.Image.Spec.Steps) {
		summary = fmt.Sprintf("building %s failed at %s", e.Image.Address, e.where())
		ptr = "/steps/" + strconv.Itoa(e.Step)
		if e.Command >= 0 {
			ptr = e.commandPointer()
		}
	}
	return &diag.Diagnostic{Severity: diag.Error, Summary: summary, Detail: e.Image.scrub(rootCause(e.Err)), Subject: e.Image.Range(ptr)}
}

func rootCause(err error) string {
	msg := err.Error()
	if i := strings.LastIndex(msg, "process \""); i >= 0 {
		return msg[i:]
	}
	return msg
}

// Build builds req.Images in order. An image already built (its tag in
// req.Push, or the local record of req.OCI) is reused without a solve,
// unless req.Force. It stops at the first failure, a *BuildError.
func (b *Builder) Build(ctx context.Context, req Request) ([]Result, error) {
	if req.Out == nil {
		req.Out = io.Discard
	}
	if req.Log == nil {
		req.Log = req.Out
	}
	all := req.All
	if all == nil {
		all = req.Images
	}
	byHash := map[string]*Image{}
	for _, img := range all {
		byHash[img.Hash] = img
	}
	dests, err := ociDests(req)
	if err != nil {
		return nil, err
	}
	reused := make([]*Result, len(req.Images))
	if !req.Force {
		reused, err = b.Reused(ctx, req, dests)
		if err != nil {
			return nil, err
		}
	}
	pushed := map[string]string{} // hash -> pushed ref with digest
	var results []Result
	for i, img := range req.Images {
		if r := reused[i]; r != nil && !img.Sensitive {
			fmt.Fprintf(req.Log, "%s: reused %s (%s)\n", img.Address, r.Ref, r.Digest)
			results = append(results, *r)
			if req.Push != "" {
				pushed[img.Hash] = pushedRef(req.Push, img.Hash, r.Digest)
			}
			continue
		}
		r, err := b.build(ctx, req, img, byHash, pushed, dests[i])
		if err != nil {
			return results, err
		}
		what := "built"
		if r.Ref != "" {
			what = "built " + r.Ref
		}
		if r.Digest != "" {
			what += " (" + r.Digest + ")"
		}
		fmt.Fprintf(req.Log, "%s: %s\n", img.Address, what)
		if req.Push != "" {
			pushed[img.Hash] = pushedRef(req.Push, img.Hash, r.Digest)
		}
		results = append(results, *r)
	}
	return results, nil
}

func pushedRef(repo, hash, dgst string) string {
	return repo + ":" + Tag(hash) + "@" + dgst
}

// Reused finds which of req.Images are already built, in parallel; the
// result has one entry per image, nil for those to build.
func (b *Builder) Reused(ctx context.Context, req Request, dests []string) ([]*Result, error) {
	out := make([]*Result, len(req.Images))
	if req.Push == "" && req.OCI == "" {
		return out, nil
	}
	if dests == nil {
		var err error
		if dests, err = ociDests(req); err != nil {
			return nil, err
		}
	}
	errs := make([]error, len(req.Images))
	sem := make(chan struct{}, 16)
	var wg sync.WaitGroup
	for i, img := range req.Images {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			if req.Push != "" {
				ref := req.Push + ":" + Tag(img.Hash)
				desc, err := b.registry.Head(ctx, ref)
				if err != nil {
					errs[i] = fmt.Errorf("%s: look for %s: %w", img.Address, ref, err)
					return
				}
				if desc == nil {
					return
				}
				if req.OCI != "" && !recordMatches(req.Root, img.Hash, dests[i]) {
					return
				}
				out[i] = &Result{Image: img, Reused: true, Digest: desc.Digest.String(), Ref: ref}
				return
			}
			if rec, ok := readRecord(req.Root, img.Hash); ok && recordMatches(req.Root, img.Hash, dests[i]) {
				out[i] = &Result{Image: img, Reused: true, Digest: rec.Digest, Ref: dests[i]}
			}
		}()
	}
	wg.Wait()
	return out, errors.Join(errs...)
}

// ociDests gives each image its OCI tarball path: req.OCI itself for one
// image (unless it is a directory), DIR/NAME.tar for several.
func ociDests(req Request) ([]string, error) {
	dests := make([]string, len(req.Images))
	if req.OCI == "" {
		return dests, nil
	}
	dir := len(req.Images) > 1 || strings.HasSuffix(req.OCI, "/")
	if fi, err := os.Stat(req.OCI); err == nil && fi.IsDir() {
		dir = true
	}
	for i, img := range req.Images {
		if dir {
			dests[i] = filepath.Join(req.OCI, strings.TrimPrefix(img.Address, "image.")+".tar")
		} else {
			dests[i] = req.OCI
		}
		abs, err := filepath.Abs(dests[i])
		if err != nil {
			return nil, err
		}
		dests[i] = abs
	}
	return dests, nil
}

func (b *Builder) build(ctx context.Context, req Request, img *Image, byHash map[string]*Image, pushed map[string]string, dest string) (*Result, error) {
	c, err := b.dial(ctx)
	if err != nil {
		return nil, err
	}
	ex, err := b.exports(req, img, dest)
	if ex.tmp != "" {
		defer os.Remove(ex.tmp)
	}
	if err != nil {
		return nil, err
	}
	var marshalled *llb.Definition
	// The local sources are known only once converted; convert once
	// outside the solve, without a resolver, just to name them.
	mounts, err := localMounts(ctx, req, img, byHash, pushed)
	if err != nil {
		return nil, err
	}
	dockerConfig := config.LoadDefaultConfigFile(io.Discard)
	opt := client.SolveOpt{
		Exports:     ex.entries,
		LocalMounts: mounts,
		Session: []session.Attachable{authprovider.NewDockerAuthProvider(authprovider.DockerAuthProviderConfig{
			AuthConfigProvider: authprovider.LoadAuthConfig(dockerConfig),
		})},
	}
	display, err := progressui.NewDisplay(req.Out, progressui.DisplayMode(req.Progress))
	if err != nil {
		return nil, err
	}
	resp, err := solveShowing(ctx, c, display, opt, b.solveFunc(req, img, byHash, pushed, &marshalled))
	if err != nil {
		step, cmd := stepOf(err), -1
		var ve *errdefs.VertexError
		if step < 0 && marshalled != nil && errors.As(err, &ve) {
			if s, ok := StepOf(marshalled, ve.Digest); ok && s < len(img.Spec.Steps) {
				step = s
				if c, ok := CommandOf(marshalled, ve.Digest); ok {
					cmd = c
				}
			}
		}
		return nil, &BuildError{Image: img, Step: step, Command: cmd, Err: err}
	}
	r := &Result{Image: img, Ref: ex.ref, Digest: resp.ExporterResponse[exptypes.ExporterImageDigestKey]}
	if dest != "" {
		if err := os.Rename(ex.tmp, dest); err != nil {
			return nil, err
		}
		if err := writeRecord(req.Root, img.Hash, record{Digest: r.Digest, Dest: dest}); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// exportSet is where a build goes: the exporters, the reference to
// report, and the temporary OCI tarball renamed to dest once built.
type exportSet struct {
	entries []client.ExportEntry
	ref     string
	tmp     string
}

// exports are the exporters of one image: a push to req.Push, an OCI
// tarball at dest (through a temporary file beside it), or both.
func (b *Builder) exports(req Request, img *Image, dest string) (exportSet, error) {
	var ex exportSet
	exportAttrs := map[string]string{
		"rewrite-timestamp":  "true",
		"source-date-epoch":  strconv.FormatInt(req.SourceDateEpoch, 10),
		"oci-mediatypes":     "true",
		"compression":        "gzip",
		"force-compression":  "true",
		"compression-level":  "6",
		"attestation-inline": "false",
	}
	if req.Push != "" {
		ex.ref = req.Push + ":" + Tag(img.Hash)
		attrs := clone(exportAttrs)
		attrs["name"] = ex.ref
		attrs["push"] = "true"
		if b.registry.IsInsecure(registryHost(req.Push)) {
			attrs["registry.insecure"] = "true"
		}
		ex.entries = append(ex.entries, client.ExportEntry{Type: client.ExporterImage, Attrs: attrs})
	}
	if dest == "" {
		return ex, nil
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return ex, err
	}
	f, err := os.CreateTemp(filepath.Dir(dest), ".cc-build-*.tar")
	if err != nil {
		return ex, err
	}
	f.Close()
	tmp := f.Name()
	ex.tmp = tmp
	attrs := clone(exportAttrs)
	attrs["name"] = Tag(img.Hash)
	ex.entries = append(ex.entries, client.ExportEntry{Type: client.ExporterOCI, Attrs: attrs,
		Output: func(map[string]string) (io.WriteCloser, error) { return os.Create(tmp) }})
	if ex.ref == "" {
		ex.ref = dest
	}
	return ex, nil
}

// solveFunc converts img inside the build, with buildkitd's gateway as the
// resolver, and solves it; the marshalled definition is kept in
// *marshalled, to trace a failed vertex back to its step.
func (b *Builder) solveFunc(req Request, img *Image, byHash map[string]*Image, pushed map[string]string, marshalled **llb.Definition) gateway.BuildFunc {
	return func(ctx context.Context, gw gateway.Client) (*gateway.Result, error) {
		conv := &Converter{Root: req.Root, Resolver: gw, LocalID: req.LocalID, SourceDateEpoch: req.SourceDateEpoch, Bases: map[string]*Definition{}}
		if err := b.convertBases(ctx, conv, img, byHash, pushed); err != nil {
			return nil, err
		}
		d, err := conv.Convert(ctx, img)
		if err != nil {
			return nil, err
		}
		m, err := d.Marshal(ctx)
		if err != nil {
			return nil, err
		}
		*marshalled = m
		cfg, err := d.ConfigJSON()
		if err != nil {
			return nil, err
		}
		res, err := gw.Solve(ctx, gateway.SolveRequest{Definition: m.ToPB()})
		if err != nil {
			return nil, err
		}
		res.AddMeta(exptypes.ExporterImageConfigKey, cfg)
		return res, nil
	}
}

// localMounts are the directories the image's local sources read.
func localMounts(ctx context.Context, req Request, img *Image, byHash map[string]*Image, pushed map[string]string) (map[string]fsutil.FS, error) {
	locals, err := localsOf(ctx, req, img, byHash, pushed)
	if err != nil {
		return nil, &BuildError{Image: img, Step: stepOf(err), Command: -1, Err: err}
	}
	mounts := map[string]fsutil.FS{}
	for name, dir := range locals {
		fs, err := fsutil.NewFS(filepath.Join(req.Root, filepath.FromSlash(dir)))
		if err != nil {
			return nil, err
		}
		mounts[name] = fs
	}
	return mounts, nil
}

// solveShowing runs a build, showing its progress on display.
func solveShowing(ctx context.Context, c *client.Client, display progressui.Display, opt client.SolveOpt, fn gateway.BuildFunc) (*client.SolveResponse, error) {
	ch := make(chan *client.SolveStatus)
	displayDone := make(chan struct{})
	go func() {
		defer close(displayDone)
		_, _ = display.UpdateFrom(context.WithoutCancel(ctx), ch)
	}()
	resp, err := c.Build(ctx, opt, "cc", fn, ch)
	<-displayDone
	return resp, err
}

// convertBases converts the images img is built from into conv.Bases: a
// pushed base by its reference, so the image builds on exactly what was
// pushed; otherwise the base's own LLB.
func (b *Builder) convertBases(ctx context.Context, conv *Converter, img *Image, byHash map[string]*Image, pushed map[string]string) error {
	h := img.Spec.FromImage
	if h == "" || conv.Bases[h] != nil {
		return nil
	}
	base := byHash[h]
	if base == nil {
		return fmt.Errorf("base image %s is not in the project", h)
	}
	if ref, ok := pushed[h]; ok {
		d, err := conv.Convert(ctx, &Image{Address: base.Address, Hash: base.Hash, Spec: refSpec(ref, base.Spec.Platform)})
		if err != nil {
			return fmt.Errorf("base %s: %w", base.Address, err)
		}
		conv.Bases[h] = d
		return nil
	}
	if err := b.convertBases(ctx, conv, base, byHash, pushed); err != nil {
		return err
	}
	d, err := conv.Convert(ctx, base)
	if err != nil {
		return fmt.Errorf("base %s: %w", base.Address, err)
	}
	conv.Bases[h] = d
	return nil
}

// localsOf names the local sources an image's LLB reads, converting it
// with a resolver that answers every base with an empty config.
func localsOf(ctx context.Context, req Request, img *Image, byHash map[string]*Image, pushed map[string]string) (map[string]string, error) {
	conv := &Converter{Root: req.Root, Resolver: emptyResolver{}, LocalID: req.LocalID, Bases: map[string]*Definition{}}
	b := &Builder{}
	if err := b.convertBases(ctx, conv, img, byHash, pushed); err != nil {
		return nil, err
	}
	d, err := conv.Convert(ctx, img)
	if err != nil {
		return nil, err
	}
	return d.Locals, nil
}

func stepOf(err error) int {
	var se *StepError
	if errors.As(err, &se) {
		return se.Step
	}
	return -1
}

func registryHost(repo string) string {
	host, _, _ := strings.Cut(repo, "/")
	return host
}

func clone(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// record is what a build to an OCI tarball leaves in ROOT/.cc/build, so
// the next build of the same hash to the same file is reused.
type record struct {
	Digest string `json:"digest"`
	Dest   string `json:"dest"`
	Size   int64  `json:"size"`
	MTime  int64  `json:"mtime_ns"`
}

func recordPath(root, hash string) string {
	return filepath.Join(root, ".cc", "build", strings.TrimPrefix(hash, "sha256:")+".json")
}

func writeRecord(root, hash string, r record) error {
	fi, err := os.Stat(r.Dest)
	if err != nil {
		return err
	}
	r.Size, r.MTime = fi.Size(), fi.ModTime().UnixNano()
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	p := recordPath(root, hash)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, append(b, '\n'), 0o644)
}

func readRecord(root, hash string) (record, bool) {
	var r record
	b, err := os.ReadFile(recordPath(root, hash))
	if err != nil || json.Unmarshal(b, &r) != nil {
		return r, false
	}
	return r, true
}

// recordMatches reports whether the tarball recorded for hash is still at
// dest, unchanged.
func recordMatches(root, hash, dest string) bool {
	if dest == "" {
		return true
	}
	r, ok := readRecord(root, hash)
	if !ok || r.Dest != dest {
		return false
	}
	fi, err := os.Stat(dest)
	return err == nil && fi.Size() == r.Size && fi.ModTime().UnixNano() == r.MTime
}

// refSpec is the spec of an image that is exactly ref.
func refSpec(ref, platform string) schema.ImageSpec {
	return schema.ImageSpec{From: ref, Platform: platform}
}

// emptyResolver answers every base image with an empty config.
type emptyResolver struct{}

func (emptyResolver) ResolveSourceMetadata(ctx context.Context, op *pb.SourceOp, opt sourceresolver.Opt) (*sourceresolver.MetaResponse, error) {
	return &sourceresolver.MetaResponse{Op: op, Image: &sourceresolver.ResolveImageResponse{Config: []byte("{}")}}, nil
}

// Prune empties buildkitd's build cache.
func (b *Builder) Prune(ctx context.Context) error {
	c, err := b.dial(ctx)
	if err != nil {
		return err
	}
	ch := make(chan client.UsageInfo)
	done := make(chan struct{})
	go func() {
		for range ch {
		}
		close(done)
	}()
	err = c.Prune(ctx, ch, client.PruneAll)
	close(ch)
	<-done
	return err
}
