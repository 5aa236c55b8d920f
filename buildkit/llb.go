package buildkit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/containerd/platforms"
	"github.com/distribution/reference"
	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	"github.com/moby/buildkit/frontend/dockerfile/dockerfile2llb"
	"github.com/moby/buildkit/frontend/dockerui"
	dockerspec "github.com/moby/docker-image-spec/specs-go/v1"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"

	"cc.dev/cc/localfs"
	"cc.dev/cc/schema"
)

// DefaultPlatform is the platform of an image that names none: the
// platform's machines are linux/amd64, whatever machine builds the preview.
const DefaultPlatform = "linux/amd64"

// ContextName is the name of the local source that holds the project root.
const ContextName = "context"

// requirementsPath is where a pip_requirements step mounts the file.
const requirementsPath = "/tmp/cc-requirements.txt"

// stepKey is the LLB op description that records which step an op belongs
// to, so a failed vertex can be traced back to the config.
const stepKey = "cc.step"

// commandKey is the LLB op description that records which command of a
// run step an op runs.
const commandKey = "cc.command"

// Converter turns image specs into LLB. It is a pure function of its fields
// and the spec: the same input marshals to the same LLB digests.
type Converter struct {
	// Root is the absolute project root that copy, pip_requirements and
	// from_dockerfile read.
	Root string
	// Resolver gives the config of base images: a buildkitd's gateway in a
	// build, a fixed table in tests.
	Resolver sourceresolver.MetaResolver
	// LocalID pins llb.LocalUniqueID for the local sources; "" derives it
	// from Root.
	LocalID string
	// SourceDateEpoch is SOURCE_DATE_EPOCH, in seconds: the creation time
	// written in the image config and history.
	SourceDateEpoch int64
	// Bases are the images from_image can name, by hash.
	Bases map[string]*Definition

	files    *localfs.Policy
	filesErr error
}

// Definition is an image converted to LLB, with the config to export.
type Definition struct {
	Image    *Image
	State    llb.State
	Config   dockerspec.DockerOCIImage
	Platform ocispecs.Platform
	// Locals maps the name of each local source the LLB reads to its
	// directory, relative to the project root.
	Locals map[string]string
	// LocalID is the llb.LocalUniqueID to marshal with.
	LocalID string
}

// Marshal serializes the definition for a solve.
func (d *Definition) Marshal(ctx context.Context) (*llb.Definition, error) {
	return d.State.Marshal(ctx, llb.Platform(d.Platform), llb.LocalUniqueID(d.LocalID))
}

// ConfigJSON is the image config to export.
func (d *Definition) ConfigJSON() ([]byte, error) { return json.Marshal(d.Config) }

// StepOf returns the index of the step that the op dgst of def belongs to.
func StepOf(def *llb.Definition, dgst string) (int, bool) {
	for d, m := range def.Metadata {
		if string(d) != dgst {
			continue
		}
		if s, ok := m.Description[stepKey]; ok {
			i, err := strconv.Atoi(s)
			return i, err == nil
		}
	}
	return 0, false
}

// CommandOf returns the index of the run step command that the op dgst of
// def runs.
func CommandOf(def *llb.Definition, dgst string) (int, bool) {
	for d, m := range def.Metadata {
		if string(d) != dgst {
			continue
		}
		if s, ok := m.Description[commandKey]; ok {
			i, err := strconv.Atoi(s)
			return i, err == nil
		}
	}
	return 0, false
}

// StepError is a failure to convert one step; Step is its index.
type StepError struct {
	Step int
	Err  error
}

func (e *StepError) Error() string { return fmt.Sprintf("step %d: %v", e.Step+1, e.Err) }
func (e *StepError) Unwrap() error { return e.Err }

// Pointer is the JSON pointer of the step in the image spec ("/steps/2").
func (e *StepError) Pointer() string { return "/steps/" + strconv.Itoa(e.Step) }

// Convert turns img into LLB and its image config.
func (c *Converter) Convert(ctx context.Context, img *Image) (*Definition, error) {
	if c.Resolver == nil {
		return nil, errors.New("buildkit: Converter needs a Resolver")
	}
	spec := &img.Spec
	plat, err := parsePlatform(spec.Platform)
	if err != nil {
		return nil, fmt.Errorf("platform: %w", err)
	}
	d := &Definition{Image: img, Platform: plat, Locals: map[string]string{}, LocalID: c.localID()}
	name := stepNamer(img)
	st, cfg, err := c.base(ctx, d, name(-1, "FROM "+spec.From))
	if err != nil {
		return nil, err
	}
	plat = d.Platform
	cfg.OS, cfg.Architecture, cfg.Variant = plat.OS, plat.Architecture, plat.Variant
	epoch := time.Unix(c.SourceDateEpoch, 0).UTC()
	cfg.Created = &epoch
	if cfg.Config.User != "" {
		st = st.User(cfg.Config.User)
	}

	b := &stepBuilder{c: c, d: d, st: st, cfg: &cfg, epoch: epoch}
	for i, step := range spec.Steps {
		b.i = i
		b.name = func(text string) llb.ConstraintsOpt { return name(i, text) }
		if err := b.step(ctx, step); err != nil {
			return nil, &StepError{Step: i, Err: err}
		}
	}
	b.finish(spec)
	d.State = b.st
	d.Config = *b.cfg
	return d, nil
}

// stepNamer names the ops of img's step i (-1 for its base) in the
// progress display: "[image.x 2/3] RUN ...", and no sensitive value.
func stepNamer(img *Image) func(i int, text string) llb.ConstraintsOpt {
	spec := &img.Spec
	n := len(spec.Steps)
	return func(i int, text string) llb.ConstraintsOpt {
		where := img.Address
		if i >= 0 {
			where = fmt.Sprintf("%s %d/%d", img.Address, i+1, n)
			if img.sensitiveAt("/steps/" + strconv.Itoa(i)) {
				// The progress display shows no sensitive value.
				text = spec.Steps[i].Kind() + " (sensitive)"
			}
		} else if img.sensitiveAt("/from") {
			text = "FROM (sensitive)"
		}
		return llb.WithCustomName(fmt.Sprintf("[%s] %s", where, oneLine(text)))
	}
}

// base is the state and config an image starts from: a base image of the
// project, a registry image or a Dockerfile. An image from a base of the
// project without a platform of its own takes the base's (d.Platform).
func (c *Converter) base(ctx context.Context, d *Definition, fromName llb.ConstraintsOpt) (llb.State, dockerspec.DockerOCIImage, error) {
	spec := &d.Image.Spec
	switch {
	case spec.FromImage != "":
		base := c.Bases[spec.FromImage]
		if base == nil {
			return llb.State{}, dockerspec.DockerOCIImage{}, fmt.Errorf("base image %s is not built", spec.FromImage)
		}
		for k, v := range base.Locals {
			d.Locals[k] = v
		}
		if spec.Platform == "" {
			d.Platform = base.Platform
		} else if platforms.Format(d.Platform) != platforms.Format(base.Platform) {
			// Its steps would run on layers of the other platform (issue 9
			// item 4); the compiler refuses such a config.
			return llb.State{}, dockerspec.DockerOCIImage{}, fmt.Errorf("platform %s differs from its base image's, %s",
				platforms.Format(d.Platform), platforms.Format(base.Platform))
		}
		return base.State, cloneConfig(base.Config), nil
	case spec.From != "":
		return c.fromRef(ctx, spec.From, d.Platform, fromName)
	case spec.FromDockerfile != nil:
		return c.fromDockerfile(ctx, d, spec.FromDockerfile.Path, d.Platform)
	}
	return llb.State{}, dockerspec.DockerOCIImage{}, errors.New("image has no base: set from or from_dockerfile")
}

// finish sets the entrypoint, cmd and user the spec names, with their
// history entries.
func (b *stepBuilder) finish(spec *schema.ImageSpec) {
	cfg := b.cfg
	if spec.Entrypoint != nil {
		cfg.Config.Entrypoint = spec.Entrypoint
		if spec.Cmd == nil {
			// As in a Dockerfile: a new entrypoint drops the base's cmd.
			cfg.Config.Cmd = nil
		}
		b.history("ENTRYPOINT "+jsonArgs(spec.Entrypoint), true)
	}
	if spec.Cmd != nil {
		cfg.Config.Cmd = spec.Cmd
		b.history("CMD "+jsonArgs(spec.Cmd), true)
	}
	if spec.User != "" {
		cfg.Config.User = spec.User
		b.history("USER "+spec.User, true)
	}
}

// fromRef starts from a registry image, pinned to the digest the resolver
// returns, with its config.
func (c *Converter) fromRef(ctx context.Context, ref string, plat ocispecs.Platform, name llb.ConstraintsOpt) (llb.State, dockerspec.DockerOCIImage, error) {
	var cfg dockerspec.DockerOCIImage
	named, err := reference.ParseNormalizedNamed(ref)
	if err != nil {
		return llb.State{}, cfg, fmt.Errorf("from %q: %w", ref, err)
	}
	named = reference.TagNameOnly(named)
	_, dgst, dt, err := sourceresolver.NewImageMetaResolver(c.Resolver).ResolveImageConfig(ctx, named.String(), sourceresolver.Opt{
		LogName:  "[internal] load metadata for " + named.String(),
		ImageOpt: &sourceresolver.ResolveImageOpt{Platform: &plat, ResolveMode: llb.ResolveModeDefault.String()},
	})
	if err != nil {
		return llb.State{}, cfg, fmt.Errorf("from %q: %w", ref, err)
	}
	pinned := named.String()
	if _, ok := named.(reference.Digested); !ok && dgst != "" {
		if dn, err := reference.WithDigest(named, dgst); err == nil {
			pinned = dn.String()
		}
	}
	if err := json.Unmarshal(dt, &cfg); err != nil {
		return llb.State{}, cfg, fmt.Errorf("from %q: image config: %w", ref, err)
	}
	st := llb.Image(pinned, llb.Platform(plat), name)
	st, err = st.WithImageConfig(dt)
	if err != nil {
		return llb.State{}, cfg, fmt.Errorf("from %q: image config: %w", ref, err)
	}
	// WithImageConfig takes the platform from the config; the build's is
	// the one asked for.
	st = st.Platform(plat)
	return st, cfg, nil
}

// fromDockerfile converts a Dockerfile of the project with BuildKit's own
// Dockerfile conversion; its directory is the build context.
func (c *Converter) fromDockerfile(ctx context.Context, d *Definition, file string, plat ocispecs.Platform) (llb.State, dockerspec.DockerOCIImage, error) {
	var cfg dockerspec.DockerOCIImage
	rel, err := cleanRel(file)
	if err != nil {
		return llb.State{}, cfg, fmt.Errorf("from_dockerfile: %w", err)
	}
	dt, err := c.readFile(rel)
	if err != nil {
		return llb.State{}, cfg, fmt.Errorf("from_dockerfile: %w", err)
	}
	dir := path.Dir(rel)
	localName := ContextName
	if dir != "." {
		localName = ContextName + "/" + dir
	}
	d.Locals[localName] = dir
	excludes, err := c.contextExcludes(dir)
	if err != nil {
		return llb.State{}, cfg, err
	}
	main := llb.Local(localName, llb.SharedKeyHint(localName), llb.ExcludePatterns(excludes),
		llb.WithCustomName("[internal] load build context "+dir))
	res, err := dockerfile2llb.Dockerfile2LLB(ctx, dt, dockerfile2llb.ConvertOpt{
		Config: dockerui.Config{
			BuildArgs:      map[string]string{"SOURCE_DATE_EPOCH": strconv.FormatInt(c.SourceDateEpoch, 10)},
			BuildPlatforms: []ocispecs.Platform{plat},
		},
		MainContext:    &main,
		TargetPlatform: &plat,
		MetaResolver:   sourceresolver.NewImageMetaResolver(c.Resolver),
	})
	if err != nil {
		return llb.State{}, cfg, fmt.Errorf("from_dockerfile %s: %w", rel, err)
	}
	if res.Image != nil {
		cfg = *res.Image
	}
	return res.State, cfg, nil
}

// readFile reads an input file under the local-files policy: inside the
// root, not excluded, a regular file.
func (c *Converter) readFile(rel string) ([]byte, error) {
	p, err := c.policy()
	if err != nil {
		return nil, err
	}
	return readUnder(p, rel)
}

// readInput reads the input file rel of the project at root under its
// local-files policy.
func readInput(root, rel string) ([]byte, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	p, err := localfs.New(real)
	if err != nil {
		return nil, err
	}
	return readUnder(p, rel)
}

func readUnder(p *localfs.Policy, rel string) ([]byte, error) {
	f, _, err := p.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// stepBuilder applies steps to a state and config.
type stepBuilder struct {
	c     *Converter
	d     *Definition
	st    llb.State
	cfg   *dockerspec.DockerOCIImage
	epoch time.Time
	i     int
	name  func(text string) llb.ConstraintsOpt
}

func (b *stepBuilder) desc() llb.ConstraintsOpt {
	return llb.WithDescription(map[string]string{stepKey: strconv.Itoa(b.i)})
}

func (b *stepBuilder) history(createdBy string, empty bool) {
	epoch := b.epoch
	b.cfg.History = append(b.cfg.History, ocispecs.History{
		Created: &epoch, CreatedBy: createdBy, Comment: "cc", EmptyLayer: empty,
	})
}

func (b *stepBuilder) step(ctx context.Context, s schema.Step) error {
	switch {
	case s.Apt != nil:
		if len(s.Apt.Packages) == 0 {
			return errors.New("apt: no packages")
		}
		b.run(AptScript(s.Apt.Packages))
	case s.Pip != nil:
		if len(s.Pip.Packages) == 0 {
			return errors.New("pip: no packages")
		}
		b.run(PipScript(s.Pip))
	case s.PipRequirements != nil:
		rel, err := cleanRel(s.PipRequirements.File)
		if err != nil {
			return fmt.Errorf("pip_requirements: %w", err)
		}
		src, err := b.local(rel)
		if err != nil {
			return err
		}
		script := PipRequirementsScript()
		b.st = b.st.Run(llb.Args([]string{"/bin/sh", "-c", script}),
			llb.AddMount(requirementsPath, src, llb.SourcePath("/"+rel), llb.Readonly),
			b.name("RUN "+script), b.desc()).Root()
		b.history("RUN "+script+" # "+rel, false)
	case s.Run != nil:
		if len(s.Run.Commands) == 0 {
			return errors.New("run: no commands")
		}
		for j, cmd := range s.Run.Commands {
			b.runCommand(j, cmd)
		}
	case s.Copy != nil:
		return b.copy(s.Copy)
	case s.Env != nil:
		keys := sortedKeys(s.Env.Vars)
		for _, k := range keys {
			v := s.Env.Vars[k]
			b.st = b.st.AddEnv(k, v)
			b.cfg.Config.Env = setEnv(b.cfg.Config.Env, k, v)
		}
		b.history("ENV "+envLine(s.Env.Vars), true)
	case s.Workdir != nil:
		p := s.Workdir.Path
		if !path.IsAbs(p) {
			return fmt.Errorf("workdir: %q is not absolute", p)
		}
		b.workdir(path.Clean(p))
	case s.Dockerfile != nil:
		return b.dockerfile(ctx, s.Dockerfile.Commands)
	default:
		return errors.New("step has no kind")
	}
	return nil
}

func (b *stepBuilder) run(script string) {
	b.st = b.st.Run(llb.Args([]string{"/bin/sh", "-c", script}), b.name("RUN "+script), b.desc()).Root()
	b.history("RUN "+script, false)
}

// runCommand runs command j of a run step in a shell and a layer of its
// own (issue 9 item 9): one command's `#` or `||` cannot reach the next,
// and a failure names the command (its op records the index).
func (b *stepBuilder) runCommand(j int, cmd string) {
	desc := llb.WithDescription(map[string]string{stepKey: strconv.Itoa(b.i), commandKey: strconv.Itoa(j)})
	b.st = b.st.Run(llb.Args([]string{"/bin/sh", "-c", cmd}), b.name("RUN "+cmd), desc).Root()
	b.history("RUN "+cmd, false)
}

func (b *stepBuilder) workdir(p string) {
	b.st = b.st.Dir(p)
	b.st = b.st.File(llb.Mkdir(p, 0o755, llb.WithParents(true)), b.name("WORKDIR "+p), b.desc())
	b.cfg.Config.WorkingDir = p
	b.history("WORKDIR "+p, false)
}

func (b *stepBuilder) copy(cp *schema.CopyStep) error {
	rel, err := cleanRel(cp.Src)
	if err != nil {
		return fmt.Errorf("copy: %w", err)
	}
	if !path.IsAbs(cp.Dst) {
		return fmt.Errorf("copy: destination %q is not absolute", cp.Dst)
	}
	info := &llb.CopyInfo{CopyDirContentsOnly: true, CreateDestPath: true}
	flag := ""
	if cp.Mode != "" {
		m, err := strconv.ParseUint(cp.Mode, 8, 32)
		if err != nil || m > 0o7777 {
			return fmt.Errorf("copy: mode %q is not an octal file mode", cp.Mode)
		}
		info.Mode = &llb.ChmodOpt{Mode: os.FileMode(m)}
		flag = "--chmod=" + cp.Mode + " "
	}
	src, err := b.local(rel)
	if err != nil {
		return err
	}
	text := "COPY " + flag + rel + " " + cp.Dst
	b.st = b.st.File(llb.Copy(src, "/"+rel, cp.Dst, info), b.name(text), b.desc())
	b.history(text, false)
	return nil
}

// local is the project's local context, narrowed to one path.
func (b *stepBuilder) local(rel string) (llb.State, error) {
	excludes, err := b.c.rootExcludes(rel)
	if err != nil {
		return llb.State{}, err
	}
	b.d.Locals[ContextName] = "."
	opts := []llb.LocalOption{llb.SharedKeyHint(ContextName), llb.ExcludePatterns(excludes),
		llb.WithCustomName("[internal] load " + rel)}
	if rel != "." {
		opts = append(opts, llb.FollowPaths([]string{rel}))
	}
	return llb.Local(ContextName, opts...), nil
}

// policy is the project's local-files policy (localfs), read once: the
// compiler hashed the inputs with it, so the local sources send what the
// hash covers.
func (c *Converter) policy() (*localfs.Policy, error) {
	if c.files != nil || c.filesErr != nil {
		return c.files, c.filesErr
	}
	root, err := filepath.EvalSymlinks(c.Root)
	if err == nil {
		c.files, err = localfs.New(root)
	}
	c.filesErr = err
	return c.files, err
}

// rootExcludes are the exclude patterns of the project's local source
// narrowed to rel: the root's, and, for a directory input, those of its
// own ignore file (localfs.Dir.RootExcludes).
func (c *Converter) rootExcludes(rel string) ([]string, error) {
	p, err := c.policy()
	if err != nil {
		return nil, err
	}
	abs, real, err := p.Resolve(rel)
	if err != nil {
		// The compile hashed it, so it is gone since: the build says so.
		return p.Patterns(), nil
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return p.Patterns(), nil
	}
	d, err := p.Dir(real)
	if err != nil {
		return nil, err
	}
	return d.RootExcludes(abs)
}

// contextExcludes are the exclude patterns of a from_dockerfile build
// context rooted at dir (localfs.Dir.ContextExcludes).
func (c *Converter) contextExcludes(dir string) ([]string, error) {
	p, err := c.policy()
	if err != nil {
		return nil, err
	}
	abs, real, err := p.Resolve(dir)
	if err != nil {
		return nil, fmt.Errorf("from_dockerfile: build context %w", err)
	}
	d, err := p.Dir(real)
	if err != nil {
		return nil, err
	}
	return d.ContextExcludes(abs)
}

func (c *Converter) localID() string {
	if c.LocalID != "" {
		return c.LocalID
	}
	sum := sha256.Sum256([]byte("cc:" + c.Root))
	return "cc-" + hex.EncodeToString(sum[:8])
}

// cleanRel checks that p is a relative path inside the project and cleans
// it; "." is the project root.
func cleanRel(p string) (string, error) {
	c := path.Clean(filepath.ToSlash(p))
	if path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%q is outside the project", p)
	}
	return c, nil
}

func parsePlatform(s string) (ocispecs.Platform, error) {
	if s == "" {
		s = DefaultPlatform
	}
	p, err := platforms.Parse(s)
	if err != nil {
		return ocispecs.Platform{}, err
	}
	return platforms.Normalize(p), nil
}

func cloneConfig(c dockerspec.DockerOCIImage) dockerspec.DockerOCIImage {
	b, _ := json.Marshal(c)
	var out dockerspec.DockerOCIImage
	_ = json.Unmarshal(b, &out)
	return out
}

func setEnv(env []string, k, v string) []string {
	out := make([]string, 0, len(env)+1)
	found := false
	for _, e := range env {
		if name, _, _ := strings.Cut(e, "="); name == k {
			if !found {
				out = append(out, k+"="+v)
				found = true
			}
			continue
		}
		out = append(out, e)
	}
	if !found {
		out = append(out, k+"="+v)
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
