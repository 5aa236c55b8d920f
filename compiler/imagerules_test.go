package compiler

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestIssue9DockerfileStepBuildKitSyntax: issue 9 item 11. A dockerfile
// step command is checked with BuildKit's Dockerfile parser: arithmetic
// with a shift and a here-string, which BuildKit takes as RUN's shell
// text, compile; before, a regular expression took them for heredocs.
func TestIssue9DockerfileStepBuildKitSyntax(t *testing.T) {
	cmds := []string{`RUN echo $((1<<3)) > /n`, `RUN cat <<<hello > /h`, `CMD ["sh", "-c", "echo $((2<<1))"]`}
	for name, src := range map[string]string{
		"main.cue": `project: "demo"
images: app: {
	from: "busybox:1.36"
	steps: [{dockerfile: commands: [` + cueStrings(cmds) + `]}]
}
`,
		"main.hcl": `project = "demo"
image "app" {
  from = "busybox:1.36"
  dockerfile {
    commands = [` + cueStrings(cmds) + `]
  }
}
`,
	} {
		t.Run(name, func(t *testing.T) {
			compileOK(t, filepath.Join(writeProject(t, map[string]string{name: src}), name), Input{})
		})
	}
}

// cueStrings renders ss as a list body that CUE and HCL both read.
func cueStrings(ss []string) string {
	out := ""
	for i, s := range ss {
		if i > 0 {
			out += ", "
		}
		q := ""
		for _, r := range s {
			switch r {
			case '"', '\\':
				q += `\` + string(r)
			default:
				q += string(r)
			}
		}
		out += `"` + q + `"`
	}
	return out
}

// TestIssue9ImagePlatformMatchesBase: issue 9 item 4. An "arm64" image
// from an amd64 base was built on the base's amd64 layers; it is refused,
// naming both images, while an image that sets its base's platform, or
// none, compiles.
func TestIssue9ImagePlatformMatchesBase(t *testing.T) {
	const base = `project: "demo"
images: base: {
	from:     "busybox:1.36"
	platform: "linux/amd64"
}
`
	ok := base + `images: same: {from: images.base, platform: "linux/amd64"}
images: unset: {from: images.base}
`
	compileOK(t, filepath.Join(writeProject(t, map[string]string{"main.cue": ok}), "main.cue"), Input{})
	bad := base + `images: app: {from: images.base, platform: "linux/arm64"}
`
	dir := writeProject(t, map[string]string{"main.cue": bad})
	_, err := Compile(context.Background(), Input{Path: filepath.Join(dir, "main.cue")})
	if err == nil {
		t.Fatal("Compile() = nil, want the platform mismatch refused")
	}
	for _, want := range []string{`main.cue:6:34: image "app" is built for linux/arm64`, `its base image "base" is built for linux/amd64 (set at `, `main.cue:4:2)`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Compile() = %v, want it to hold %q", err, want)
		}
	}
}
