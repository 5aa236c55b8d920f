package buildkit_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/moby/buildkit/client"
	"google.golang.org/grpc"

	"cc.dev/cc/buildkit"
	"cc.dev/cc/buildkit/buildkittest"
	"cc.dev/cc/compiler"
)

// The tests in this file need a buildkitd with runc and a registry that it
// mirrors docker.io to; ./.ci/test starts both. Each test pushes to its own
// repository, so they do not see each other's images.

// repo is a repository of its own for one run of one test: the registry
// outlives test runs.
func repo(env buildkittest.Env, name string) string {
	return env.Registry + "/e2e/" + name + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
}

// counter counts the Solve calls a Builder makes to buildkitd.
type counter struct{ solves atomic.Int64 }

func (c *counter) option() buildkit.Option {
	return buildkit.WithClientOptions(client.WithGRPCDialOption(grpc.WithChainUnaryInterceptor(
		func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			if method == "/moby.buildkit.v1.Control/Solve" {
				c.solves.Add(1)
			}
			return invoker(ctx, method, req, reply, cc, opts...)
		})))
}

// project copies a project directory into a temporary one (without cc.lock:
// the tests resolve bases through the mirror) and returns its path.
func project(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if rel == "cc.lock" {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, fi.Mode().Perm())
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

func compile(t *testing.T, dir string) []*buildkit.Image {
	t.Helper()
	path := dir
	if _, err := os.Stat(filepath.Join(dir, "main.cue")); err == nil {
		path = filepath.Join(dir, "main.cue") // the examples have main.hcl too
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{Path: path})
	if err != nil {
		t.Fatalf("Compile(%s) = %v", dir, err)
	}
	imgs, err := buildkit.Images(res.Desired)
	if err != nil {
		t.Fatal(err)
	}
	return imgs
}

type run struct {
	results []buildkit.Result
	out     string
	err     error
}

func build(t *testing.T, b *buildkit.Builder, req buildkit.Request) run {
	t.Helper()
	var out bytes.Buffer
	req.Out = &out
	if req.Progress == "" {
		req.Progress = "plain"
	}
	res, err := b.Build(context.Background(), req)
	return run{res, out.String(), err}
}

func mustBuild(t *testing.T, b *buildkit.Builder, req buildkit.Request) []buildkit.Result {
	t.Helper()
	r := build(t, b, req)
	if r.err != nil {
		t.Fatalf("Build() = %v\n%s", r.err, r.out)
	}
	return r.results
}

func byAddr(rs []buildkit.Result) map[string]buildkit.Result {
	m := map[string]buildkit.Result{}
	for _, r := range rs {
		m[r.Image.Address] = r
	}
	return m
}

// files reads the flattened file system of img: path -> (mode, content).
type entry struct {
	mode int64
	data string
}

func files(t *testing.T, img v1.Image) map[string]entry {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	out := map[string]entry{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		var b []byte
		if h.Typeflag == tar.TypeReg {
			b, _ = io.ReadAll(tr)
		}
		out["/"+strings.TrimPrefix(h.Name, "./")] = entry{h.Mode & 0o7777, string(b)}
	}
	return out
}

// TestE2EQuickstart builds the quickstart's image, pushes it, and checks
// what the registry holds; a second build reuses it without a solve.
func TestE2EQuickstart(t *testing.T) {
	env := buildkittest.Setup(t)
	dir := project(t, filepath.Join("..", "examples", "quickstart"))
	imgs := compile(t, dir)
	var n counter
	b := buildkit.New(env.Buildkit, n.option())
	defer b.Close()
	repo := repo(env, "quickstart")
	res := mustBuild(t, b, buildkit.Request{Root: dir, Images: imgs, Push: repo})
	app := byAddr(res)["image.app"]
	if app.Reused || app.Digest == "" {
		t.Fatalf("first build of image.app = %+v, want built with a digest", app)
	}
	reg := &buildkit.Registry{}
	img, err := reg.Image(context.Background(), repo+":"+buildkit.Tag(app.Image.Hash))
	if err != nil {
		t.Fatal(err)
	}
	if d, _ := img.Digest(); d.String() != app.Digest {
		t.Errorf("pushed digest = %s, Build() said %s", d, app.Digest)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	spec := app.Image.Spec
	if cf.Config.WorkingDir != "/app" {
		t.Errorf("WorkingDir = %q, want /app", cf.Config.WorkingDir)
	}
	if !slices.Equal(cf.Config.Cmd, spec.Cmd) || !slices.Equal(cf.Config.Entrypoint, spec.Entrypoint) {
		t.Errorf("Entrypoint, Cmd = %q, %q, want %q, %q", cf.Config.Entrypoint, cf.Config.Cmd, spec.Entrypoint, spec.Cmd)
	}
	for _, s := range spec.Steps {
		if s.Env == nil {
			continue
		}
		for k, v := range s.Env.Vars {
			if !slices.Contains(cf.Config.Env, k+"="+v) {
				t.Errorf("Env = %q, want it to hold %s=%s", cf.Config.Env, k, v)
			}
		}
	}
	if !slices.ContainsFunc(cf.Config.Env, func(e string) bool { return strings.HasPrefix(e, "PATH=") }) {
		t.Errorf("Env = %q, want the base's PATH", cf.Config.Env)
	}
	if cf.OS != "linux" || cf.Architecture != "amd64" || cf.Created.Unix() != 0 {
		t.Errorf("platform, created = %s/%s, %v; want linux/amd64 at the epoch", cf.OS, cf.Architecture, cf.Created)
	}
	fs := files(t, img)
	var copied bool
	for p, e := range fs {
		if strings.HasPrefix(p, "/app/src/") && strings.HasSuffix(p, ".py") {
			copied = true
			if e.mode != 0o644 {
				t.Errorf("%s mode = %o, want 644", p, e.mode)
			}
		}
	}
	if !copied {
		t.Errorf("no .py file under /app/src in the image")
	}
	installed := fs["/usr/local/lib/cc-test/installed"].data
	for _, want := range []string{"apt-get install -y --no-install-recommends git curl", "pip install --no-cache-dir requests==2.32.3 openai==1.51.0"} {
		if !strings.Contains(installed, want) {
			t.Errorf("installed = %q, want it to hold %q", installed, want)
		}
	}
	if _, ok := fs["/var/lib/apt/lists/stale-index"]; ok {
		t.Errorf("the apt step left its package lists in the image")
	}

	solves := n.solves.Load()
	r := build(t, b, buildkit.Request{Root: dir, Images: imgs, Push: repo})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if got := byAddr(r.results)["image.app"]; !got.Reused || got.Digest != app.Digest {
		t.Errorf("second build = %+v, want reused with digest %s", got, app.Digest)
	}
	if !strings.Contains(r.out, "image.app: reused") {
		t.Errorf("second build printed %q, want it to say reused", r.out)
	}
	if d := n.solves.Load() - solves; d != 0 {
		t.Errorf("second build made %d Solve calls, want 0", d)
	}
}

// TestE2EProject builds the test project: composition, copies with mode,
// raw Dockerfile instructions, an image from a Dockerfile; then a changed
// copied file rebuilds only the image that copies it.
func TestE2EProject(t *testing.T) {
	env := buildkittest.Setup(t)
	dir := project(t, filepath.Join("testdata", "e2e"))
	var n counter
	b := buildkit.New(env.Buildkit, n.option())
	defer b.Close()
	repo := repo(env, "project")
	imgs := compile(t, dir)

	// Building app alone builds its base first, then app on top of it.
	app, err := buildkit.Select(imgs, []string{"app"})
	if err != nil {
		t.Fatal(err)
	}
	r := build(t, b, buildkit.Request{Root: dir, Images: app, All: imgs, Push: repo})
	if r.err != nil {
		t.Fatalf("Build(app) = %v\n%s", r.err, r.out)
	}
	if len(r.results) != 2 || r.results[0].Image.Address != "image.base" || r.results[1].Image.Address != "image.app" {
		t.Fatalf("Build(app) built %v, want image.base then image.app", r.results)
	}
	reg := &buildkit.Registry{}
	img, err := reg.Image(context.Background(), r.results[1].Ref)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"GREETING=hello from base", "APP_MODE=test"} {
		if !slices.Contains(cf.Config.Env, want) {
			t.Errorf("Env = %q, want %s", cf.Config.Env, want)
		}
	}
	if cf.Config.User != "nobody" || cf.Config.WorkingDir != "/app" || cf.Config.Labels["org.example.role"] != "app" {
		t.Errorf("User, WorkingDir, Labels = %q, %q, %v", cf.Config.User, cf.Config.WorkingDir, cf.Config.Labels)
	}
	if _, ok := cf.Config.ExposedPorts["8080/tcp"]; !ok {
		t.Errorf("ExposedPorts = %v, want 8080/tcp", cf.Config.ExposedPorts)
	}
	if !slices.Equal(cf.Config.Entrypoint, []string{"/usr/local/bin/run"}) || !slices.Equal(cf.Config.Cmd, []string{"serve"}) {
		t.Errorf("Entrypoint, Cmd = %q, %q", cf.Config.Entrypoint, cf.Config.Cmd)
	}
	// app is built on the pushed base: its layers start with the base's.
	base, err := reg.Image(context.Background(), r.results[0].Ref)
	if err != nil {
		t.Fatal(err)
	}
	bl, _ := base.Layers()
	al, _ := img.Layers()
	if len(al) <= len(bl) {
		t.Fatalf("app has %d layers, base %d", len(al), len(bl))
	}
	for i := range bl {
		bd, _ := bl[i].Digest()
		ad, _ := al[i].Digest()
		if bd != ad {
			t.Errorf("layer %d: app %s, base %s; want app built on the base", i, ad, bd)
		}
	}
	fs := files(t, img)
	if e := fs["/usr/local/bin/run"]; e.mode != 0o755 || !strings.Contains(e.data, "run $*") {
		t.Errorf("/usr/local/bin/run = %o %q, want mode 755 and the script", e.mode, e.data)
	}
	if e := fs["/app/app.py"]; e.mode != 0o644 || e.data != "print(\"app\")\n" {
		t.Errorf("/app/app.py = %o %q", e.mode, e.data)
	}
	if _, ok := fs["/app/dev.env"]; ok {
		t.Errorf("/app/dev.env is in the image; .ccignore excludes it")
	}
	if fs["/base.txt"].data != "base\n" {
		t.Errorf("/base.txt = %q, want the base's file", fs["/base.txt"].data)
	}

	// All three: base and app are reused, tool is built from its Dockerfile.
	r = build(t, b, buildkit.Request{Root: dir, Images: imgs, Push: repo})
	if r.err != nil {
		t.Fatalf("Build(all) = %v\n%s", r.err, r.out)
	}
	got := byAddr(r.results)
	if !got["image.base"].Reused || !got["image.app"].Reused || got["image.tool"].Reused {
		t.Fatalf("Build(all) reused base, app, tool = %v, %v, %v; want true, true, false",
			got["image.base"].Reused, got["image.app"].Reused, got["image.tool"].Reused)
	}
	tool, err := reg.Image(context.Background(), got["image.tool"].Ref)
	if err != nil {
		t.Fatal(err)
	}
	tfs := files(t, tool)
	if tfs["/tool.txt"].data != "tool\n" || tfs["/built.txt"].data != "built\n" {
		t.Errorf("tool image files = %q, %q", tfs["/tool.txt"].data, tfs["/built.txt"].data)
	}
	tcf, _ := tool.ConfigFile()
	if !slices.Contains(tcf.Config.Env, "TOOL=1") {
		t.Errorf("tool Env = %q, want TOOL=1 from its Dockerfile", tcf.Config.Env)
	}

	// A changed copied file: only app, which copies it, is rebuilt.
	if err := os.WriteFile(filepath.Join(dir, "src", "app.py"), []byte("print(\"app v2\")\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	imgs = compile(t, dir)
	solves := n.solves.Load()
	r = build(t, b, buildkit.Request{Root: dir, Images: imgs, Push: repo})
	if r.err != nil {
		t.Fatalf("Build(changed) = %v\n%s", r.err, r.out)
	}
	got = byAddr(r.results)
	if !got["image.base"].Reused || got["image.app"].Reused || !got["image.tool"].Reused {
		t.Errorf("after changing src/app.py, reused base, app, tool = %v, %v, %v; want true, false, true",
			got["image.base"].Reused, got["image.app"].Reused, got["image.tool"].Reused)
	}
	if d := n.solves.Load() - solves; d != 1 {
		t.Errorf("rebuilding after the change made %d Solve calls, want 1", d)
	}
	img, err = reg.Image(context.Background(), got["image.app"].Ref)
	if err != nil {
		t.Fatal(err)
	}
	if e := files(t, img)["/app/app.py"]; e.data != "print(\"app v2\")\n" {
		t.Errorf("/app/app.py after the change = %q", e.data)
	}
}

// TestE2EReproducible builds the same image twice to OCI tarballs, with
// BuildKit's cache pruned in between: the digests are equal.
func TestE2EReproducible(t *testing.T) {
	env := buildkittest.Setup(t)
	dir := project(t, filepath.Join("testdata", "e2e"))
	imgs := compile(t, dir)
	app, err := buildkit.Select(imgs, []string{"image.app"})
	if err != nil {
		t.Fatal(err)
	}
	b := buildkit.New(env.Buildkit)
	defer b.Close()
	out := t.TempDir()
	first := mustBuild(t, b, buildkit.Request{Root: dir, Images: app, All: imgs, OCI: out})
	if err := b.Prune(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Touch the copied files: their times must not reach the image.
	later := filepath.Join(dir, "src", "app.py")
	if err := os.Chtimes(later, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	second := mustBuild(t, b, buildkit.Request{Root: dir, Images: app, All: imgs, OCI: out, Force: true})
	for i := range first {
		if first[i].Digest == "" || first[i].Digest != second[i].Digest {
			t.Errorf("%s: digests %s and %s, want equal", first[i].Image.Address, first[i].Digest, second[i].Digest)
		}
		if second[i].Reused {
			t.Errorf("%s: reused despite Force", second[i].Image.Address)
		}
	}
	// Without Force, the local record makes the next build a reuse.
	third := mustBuild(t, b, buildkit.Request{Root: dir, Images: app, All: imgs, OCI: out})
	for _, r := range third {
		if !r.Reused {
			t.Errorf("%s: not reused from the local record", r.Image.Address)
		}
	}
}

// TestE2EFailure: a failing run step fails the build, the progress shows
// the step's output, and the error names the step and its config position.
func TestE2EFailure(t *testing.T) {
	env := buildkittest.Setup(t)
	dir := project(t, filepath.Join("testdata", "e2e", "failing"))
	imgs := compile(t, dir)
	b := buildkit.New(env.Buildkit)
	defer b.Close()
	r := build(t, b, buildkit.Request{Root: dir, Images: imgs, Push: repo(env, "failing")})
	var be *buildkit.BuildError
	if !errors.As(r.err, &be) {
		t.Fatalf("Build() = %v, want a *BuildError\n%s", r.err, r.out)
	}
	if be.Step != 1 {
		t.Errorf("BuildError.Step = %d, want 1", be.Step)
	}
	if !strings.Contains(r.out, "cc-e2e-marker-before-failure") {
		t.Errorf("progress output lacks the failing step's log:\n%s", r.out)
	}
	d := be.Diagnostic()
	if d.Subject == nil || !strings.HasSuffix(d.Subject.File, "main.cue") || d.Subject.Start.Line != 9 {
		t.Errorf("Diagnostic().Subject = %v, want main.cue line 9", d.Subject)
	}
	if !strings.Contains(d.Error(), "step 2 (run)") || !strings.Contains(d.Error(), "exit code: 3") {
		t.Errorf("Diagnostic() = %q, want the step and the exit code", d.Error())
	}
}

// TestE2ERunCommandFails: issue 9 item 9. Of a run step's three commands
// the second fails: the build fails and names that command, and the
// third does not run.
func TestE2ERunCommandFails(t *testing.T) {
	env := buildkittest.Setup(t)
	dir := project(t, filepath.Join("testdata", "e2e", "runfail"))
	imgs := compile(t, dir)
	b := buildkit.New(env.Buildkit)
	defer b.Close()
	r := build(t, b, buildkit.Request{Root: dir, Images: imgs, Push: repo(env, "runfail")})
	var be *buildkit.BuildError
	if !errors.As(r.err, &be) {
		t.Fatalf("Build() = %v, want a *BuildError\n%s", r.err, r.out)
	}
	if be.Step != 0 || be.Command != 1 {
		t.Errorf("BuildError.Step, Command = %d, %d; want 0, 1", be.Step, be.Command)
	}
	if !strings.Contains(r.out, "cc-e2e-first-ran") {
		t.Errorf("the first command did not run:\n%s", r.out)
	}
	if strings.Contains(r.out, "cc-e2e-third-ran") {
		t.Errorf("the third command ran after the second failed:\n%s", r.out)
	}
	d := be.Diagnostic()
	if !strings.Contains(d.Error(), `step 1 (run) command 2 of 3 ("false")`) {
		t.Errorf("Diagnostic() = %q, want it to name command 2 (\"false\")", d.Error())
	}
	if d.Subject == nil || !strings.HasSuffix(d.Subject.File, "main.cue") || d.Subject.Start.Line != 10 {
		t.Errorf("Diagnostic().Subject = %v, want main.cue line 10 (the step)", d.Subject)
	}
}

// TestE2ERunCommandComment: issue 9 item 9. A `#` comment in one command
// of a run step does not swallow the later commands: all three run.
func TestE2ERunCommandComment(t *testing.T) {
	env := buildkittest.Setup(t)
	dir := project(t, filepath.Join("testdata", "e2e", "runcomment"))
	imgs := compile(t, dir)
	b := buildkit.New(env.Buildkit)
	defer b.Close()
	res := mustBuild(t, b, buildkit.Request{Root: dir, Images: imgs, Push: repo(env, "runcomment")})
	img, err := (&buildkit.Registry{}).Image(context.Background(), res[0].Ref)
	if err != nil {
		t.Fatal(err)
	}
	fs := files(t, img)
	for p, want := range map[string]string{"/one.txt": "one\n", "/two.txt": "two\n", "/three.txt": "three\n"} {
		if fs[p].data != want {
			t.Errorf("%s = %q, want %q: every command of the run step runs", p, fs[p].data, want)
		}
	}
}
