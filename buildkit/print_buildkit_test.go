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

// TestPrintedStepKindsParse: issue 9 item 10. The print of every step
// kind and base (from_dockerfile too, which has no golden) parses,
// converts and lints clean, and so does a run step whose commands hold a
// comment, a || and a trailing backslash.
func TestPrintedStepKindsParse(t *testing.T) {
	c := testConverter(t)
	cases := append(specCases[:len(specCases):len(specCases)], struct {
		name string
		spec schema.ImageSpec
	}{"run_shell_syntax", schema.ImageSpec{From: "busybox:1.36", Steps: step(schema.Step{Run: &schema.CommandsStep{Commands: []string{
		"echo a > /a # a comment", "false || true", "echo b \\", "printf '%s\\n' one \\\n  two"}}})}})
	for _, tc := range cases {
		img := &Image{Address: "image." + strings.ReplaceAll(tc.name, "_", "-"), Hash: "sha256:" + strings.Repeat("ab", 32), Spec: tc.spec}
		df, err := Dockerfile(img, []*Image{img}, c.Root)
		if err != nil {
			t.Fatalf("%s: Dockerfile() = %v", tc.name, err)
		}
		buildkitAccepts(t, tc.name, df)
	}
}

// TestPrintedRunOnePerCommand: issue 9 item 9. The print of a run step
// is one RUN per command, as the build runs them.
func TestPrintedRunOnePerCommand(t *testing.T) {
	cmds := []string{"echo a > /a # a comment", "false || true", "echo b \\", "printf '%s\\n' one \\\n  two"}
	img := &Image{Address: "image.x", Hash: "sha256:" + strings.Repeat("ab", 32), Spec: schema.ImageSpec{From: "busybox:1.36",
		Steps: step(schema.Step{Run: &schema.CommandsStep{Commands: cmds}})}}
	df, err := Dockerfile(img, []*Image{img}, "")
	if err != nil {
		t.Fatal(err)
	}
	res, err := parser.Parse(strings.NewReader(string(df)))
	if err != nil {
		t.Fatal(err)
	}
	var runs []string
	for _, n := range res.AST.Children {
		if strings.EqualFold(n.Value, "run") {
			script := n.Original
			for _, h := range n.Heredocs {
				script = h.Content
			}
			runs = append(runs, script)
		}
	}
	if len(runs) != len(cmds) {
		t.Fatalf("printed %d RUN instructions, want %d:\n%s", len(runs), len(cmds), df)
	}
	for i, r := range runs {
		if !strings.Contains(r, strings.SplitN(cmds[i], "\n", 2)[0]) {
			t.Errorf("RUN %d = %q, want command %q", i+1, r, cmds[i])
		}
	}
}

// TestPrintedScratch: issue 9 item 10. An image from scratch prints a
// Dockerfile that BuildKit takes without a lint warning.
func TestPrintedScratch(t *testing.T) {
	img := &Image{Address: "image.scratch", Hash: "sha256:" + strings.Repeat("ab", 32), Spec: schema.ImageSpec{From: "scratch",
		Steps: step(schema.Step{Env: &schema.EnvStep{Vars: map[string]string{"A": "1"}}})}}
	df, err := Dockerfile(img, []*Image{img}, "")
	if err != nil {
		t.Fatal(err)
	}
	buildkitAccepts(t, "scratch", df)
}
