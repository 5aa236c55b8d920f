package buildkit

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	"github.com/moby/buildkit/frontend/dockerfile/dockerfile2llb"
	"github.com/moby/buildkit/frontend/dockerfile/parser"
	"github.com/moby/buildkit/frontend/dockerui"
	"github.com/moby/buildkit/solver/pb"
	ocispecs "github.com/opencontainers/image-spec/specs-go/v1"

	"cc.dev/cc/schema"
)

// buildkitAccepts parses a printed Dockerfile with BuildKit's own parser
// and converts it with dockerfile2llb, failing t on an error or a lint
// warning of either.
func buildkitAccepts(t *testing.T, name string, df []byte) {
	t.Helper()
	res, err := parser.Parse(strings.NewReader(string(df)))
	if err != nil {
		t.Errorf("%s: BuildKit's parser: %v\n%s", name, err, df)
		return
	}
	for _, w := range res.Warnings {
		t.Errorf("%s: BuildKit's parser warns: %s", name, w.Short)
	}
	var warnings []string
	plat := ocispecs.Platform{OS: "linux", Architecture: "amd64"}
	main := llb.Local("context")
	_, err = dockerfile2llb.Dockerfile2LLB(context.Background(), df, dockerfile2llb.ConvertOpt{
		Config:         dockerui.Config{BuildPlatforms: []ocispecs.Platform{plat}},
		MainContext:    &main,
		TargetPlatform: &plat,
		MetaResolver:   sourceresolver.NewImageMetaResolver(platformResolver{}),
		Warn: func(rule, _, _, msg string, loc []parser.Range) {
			warnings = append(warnings, fmt.Sprintf("%s: %s (line %v)", rule, msg, loc))
		},
	})
	if err != nil {
		t.Errorf("%s: dockerfile2llb: %v\n%s", name, err, df)
	}
	for _, w := range warnings {
		t.Errorf("%s: BuildKit's linter warns: %s\n%s", name, w, df)
	}
}

// platformResolver is fakeResolver answering for the platform asked, as a
// registry's multi-platform index would.
type platformResolver struct{ fakeResolver }

func (r platformResolver) ResolveSourceMetadata(ctx context.Context, op *pb.SourceOp, opt sourceresolver.Opt) (*sourceresolver.MetaResponse, error) {
	res, err := r.fakeResolver.ResolveSourceMetadata(ctx, op, opt)
	if err != nil || opt.ImageOpt == nil || opt.ImageOpt.Platform == nil {
		return res, err
	}
	var cfg map[string]any
	if err := json.Unmarshal(res.Image.Config, &cfg); err != nil {
		return nil, err
	}
	cfg["os"], cfg["architecture"] = opt.ImageOpt.Platform.OS, opt.ImageOpt.Platform.Architecture
	res.Image.Config, err = json.Marshal(cfg)
	return res, err
}

// TestPrintedGoldensParse: issue 9 item 10, acceptance 4. Every pinned
// cc build --print output (one per step kind, the composed image and
// every image of every example) parses with BuildKit's parser, converts
// with dockerfile2llb and trips none of its lint rules.
func TestPrintedGoldensParse(t *testing.T) {
	files, err := filepath.Glob(goldenFile("*.Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	ex, err := filepath.Glob(goldenFile(filepath.Join("examples", "*.Dockerfile")))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, ex...)
	if len(files) < len(specCases) {
		t.Fatalf("found %d printed Dockerfiles, want at least one per step kind", len(files))
	}
	for _, f := range files {
		df, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		buildkitAccepts(t, f, df)
	}
}

// TestPrintedStageNames: issue 9 item 10. A base stage is named so that
// BuildKit takes it: an unnamed inline image's hash starts with a digit
// as often as not, and "scratch" is a reserved stage name.
func TestPrintedStageNames(t *testing.T) {
	for _, tc := range []struct{ base, want string }{
		{"image.85988ffcba6e", "image-85988ffcba6e"},
		{"image.scratch", "image-scratch"},
		{"image.Base_1", "image-base_1"},
		{"image.base", "base"},
	} {
		base := &Image{Address: tc.base, Hash: "sha256:" + strings.Repeat("01", 32), Spec: schema.ImageSpec{From: "busybox:1.36",
			Steps: step(schema.Step{Run: &schema.CommandsStep{Commands: []string{"echo a > /a # a comment", "echo b > /b"}}})}}
		app := &Image{Address: "image.app", Hash: "sha256:" + strings.Repeat("02", 32), Spec: schema.ImageSpec{FromImage: base.Hash, Platform: "linux/amd64",
			Steps: step(schema.Step{Run: &schema.CommandsStep{Commands: []string{"true"}}})}}
		df, err := Dockerfile(app, []*Image{base, app}, "")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(df), " AS "+tc.want+"\n") || !strings.Contains(string(df), "FROM --platform=$CC_PLATFORM "+tc.want+"\n") {
			t.Errorf("%s: printed\n%s\nwant the stage named %s", tc.base, df, tc.want)
		}
		buildkitAccepts(t, tc.base, df)
	}
}

// TestIssue9ConvertRefusesBaseOfOtherPlatform: issue 9 item 4. An image
// with a platform is not built on layers of its base's other platform.
func TestIssue9ConvertRefusesBaseOfOtherPlatform(t *testing.T) {
	ctx := context.Background()
	c := testConverter(t)
	base := &Image{Address: "image.base", Hash: "sha256:" + strings.Repeat("01", 32), Spec: schema.ImageSpec{From: "busybox:1.36"}}
	bd, err := c.Convert(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	c.Bases[base.Hash] = bd
	app := &Image{Address: "image.app", Spec: schema.ImageSpec{FromImage: base.Hash, Platform: "linux/arm64"}}
	if _, err := c.Convert(ctx, app); err == nil || !strings.Contains(err.Error(), "platform linux/arm64 differs from its base image's, linux/amd64") {
		t.Errorf("Convert(arm64 from amd64) = %v, want the platforms named", err)
	}
	same := &Image{Address: "image.same", Spec: schema.ImageSpec{FromImage: base.Hash, Platform: "linux/amd64"}}
	if _, err := c.Convert(ctx, same); err != nil {
		t.Errorf("Convert(amd64 from amd64) = %v", err)
	}
}

// TestIssue9DockerfileShiftAndHereString: issue 9 item 11. BuildKit's
// parser takes $((1<<n)) and <<< as RUN's shell text; so does the build.
func TestIssue9DockerfileShiftAndHereString(t *testing.T) {
	spec := schema.ImageSpec{From: "busybox:1.36", Steps: step(schema.Step{Dockerfile: &schema.CommandsStep{Commands: []string{
		"RUN echo $((1<<3)) > /n", "RUN cat <<<hello > /h"}}})}
	if _, err := testConverter(t).Convert(context.Background(), &Image{Address: "image.x", Spec: spec}); err != nil {
		t.Errorf("Convert() = %v", err)
	}
}
