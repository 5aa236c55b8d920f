package compiler

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/moby/buildkit/frontend/dockerfile/instructions"
	"github.com/moby/buildkit/frontend/dockerfile/parser"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// defaultImagePlatform is the platform of an image that names none and is
// not built from another image of the project; buildkit.DefaultPlatform
// is the same.
const defaultImagePlatform = "linux/amd64"

// checkImages enforces the image rules that check.go does not: each
// dockerfile step command parses with BuildKit's own Dockerfile parser
// (issue 9 item 11), and an image with a platform is built from a base of
// the same platform (issue 9 item 4). Like check, it visits every image
// where it is declared: named, or inline in place.
func checkImages(cfg *schema.Config, loc locator) diag.Diagnostics {
	r := &imageRules{cfg: cfg, loc: loc}
	cfg.Each(func(k schema.Kind, name string, v any) {
		switch v := v.(type) {
		case *schema.Image:
			r.image(v, []string{k.Plural(), name}, name)
		case schema.Workload:
			r.image(v.ImageOf(), []string{k.Plural(), name, "image"}, "")
		}
	})
	return r.diags
}

type imageRules struct {
	cfg   *schema.Config
	loc   locator
	diags diag.Diagnostics
}

func (r *imageRules) errorf(path []string, format string, args ...any) {
	r.diags = append(r.diags, diag.Errorf(r.loc.at(path), format, args...))
}

// image checks img, declared at path (named name, "" when inline), and the
// inline images it is built from; a reference is checked where declared.
func (r *imageRules) image(img *schema.Image, path []string, name string) {
	if img == nil || img.ID != "" && name == "" {
		return
	}
	for i, st := range img.Steps {
		if st.Dockerfile == nil || len(st.Kinds()) != 1 {
			continue // check.go reports a step of no kind or two
		}
		for j, cmd := range st.Dockerfile.Commands {
			if err := checkDockerfileSyntax(cmd); err != nil {
				r.errorf(appendPath(path, "steps", strconv.Itoa(i), "dockerfile", "commands", strconv.Itoa(j)), "step %d: %v", i+1, err)
			}
		}
	}
	r.platform(img, path, name)
	if img.From != nil && img.From.Image != nil {
		r.image(img.From.Image, appendPath(path, "from"), "")
	}
}

// checkDockerfileSyntax parses one dockerfile step command with BuildKit's
// Dockerfile parser, as the build will, and refuses what a dockerfile step
// cannot hold: more than one instruction, RUN flags and heredocs, whose
// inputs the content hash would not cover. An instruction outside
// schema.SupportedDockerfileInstructions is check.go's to report.
func checkDockerfileSyntax(cmd string) error {
	instr, _ := schema.DockerfileInstruction(cmd)
	if instr == "" || !schema.DockerfileInstructionSupported(instr) {
		return nil
	}
	res, err := parser.Parse(strings.NewReader(cmd))
	if err != nil {
		return fmt.Errorf("BuildKit's Dockerfile parser refuses it: %v", err)
	}
	if n := len(res.AST.Children); n != 1 {
		return fmt.Errorf("a dockerfile step command holds one instruction, this holds %d; give each its own command", n)
	}
	c, err := instructions.ParseCommand(res.AST.Children[0])
	if err != nil {
		return fmt.Errorf("BuildKit's Dockerfile parser refuses it: %v", err)
	}
	heredoc := errors.New("heredocs are not supported in a dockerfile step; use a run step")
	switch c := c.(type) {
	case *instructions.RunCommand:
		if len(c.FlagsUsed) > 0 {
			return fmt.Errorf("RUN flags (--%s) are not supported in a dockerfile step; use a run step", c.FlagsUsed[0])
		}
		if len(c.Files) > 0 {
			return heredoc
		}
	case *instructions.EntrypointCommand:
		if len(c.Files) > 0 {
			return heredoc
		}
	case *instructions.CmdCommand:
		if len(c.Files) > 0 {
			return heredoc
		}
	}
	return nil
}

// platform refuses an image whose platform is not its base's (issue 9
// item 4): BuildKit would run its steps on the base's layers, built for
// the other platform, and label the result with the image's. An image
// without a platform takes its base's, so only a set one can clash.
func (r *imageRules) platform(img *schema.Image, path []string, name string) {
	if img.Platform == "" || img.From == nil || img.From.Image == nil {
		return
	}
	base, basePath, baseName := r.resolve(img.From.Image, appendPath(path, "from"))
	if base == nil {
		return // an undefined reference: the builder reports it
	}
	plat, where := r.effectivePlatform(base, basePath, 0)
	if plat == "" || plat == img.Platform {
		return
	}
	how := "set at"
	if !slicesHasSuffix(where, "platform") {
		how = "by default, declared at"
	}
	r.errorf(appendPath(path, "platform"),
		"%s is built for %s, but %s is built for %s (%s %s): an image's steps run on its base's layers; set the same platform on both, or leave this platform unset to take the base's",
		imageWhat(name), img.Platform, baseWhat(baseName), plat, how, r.loc.at(where))
}

// resolve returns the image a from names: a named image (by reference) or
// the inline one, with where it is declared and its name ("" inline).
func (r *imageRules) resolve(img *schema.Image, path []string) (*schema.Image, []string, string) {
	if name, ok := strings.CutPrefix(img.ID, "image."); ok {
		return r.cfg.Images[name], []string{"images", name}, name
	}
	return img, path, ""
}

// effectivePlatform is the platform img is built for, and the path that
// decides it: its own, its base's when it is built from another image of
// the project, else the default. "" past a cycle, which cycle.go reports.
func (r *imageRules) effectivePlatform(img *schema.Image, path []string, depth int) (string, []string) {
	switch {
	case img.Platform != "":
		return img.Platform, appendPath(path, "platform")
	case depth > len(r.cfg.Images):
		return "", nil
	case img.From != nil && img.From.Image != nil:
		base, basePath, _ := r.resolve(img.From.Image, appendPath(path, "from"))
		if base == nil {
			return "", nil
		}
		return r.effectivePlatform(base, basePath, depth+1)
	}
	return defaultImagePlatform, path
}

func slicesHasSuffix(path []string, last string) bool {
	return len(path) > 0 && path[len(path)-1] == last
}

func baseWhat(name string) string {
	if name == "" {
		return "its inline base image"
	}
	return fmt.Sprintf("its base image %q", name)
}

func imageWhat(name string) string {
	if name == "" {
		return "the inline image"
	}
	return fmt.Sprintf("image %q", name)
}
