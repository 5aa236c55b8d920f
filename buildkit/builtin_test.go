package buildkit

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"cc.dev/cc/internal/golden"
	"cc.dev/cc/schema"
)

// builtinSandboxSpec is the spec the compiler gives the built-in sandbox
// image, its base not pinned by a cc.lock.
func builtinSandboxSpec() schema.ImageSpec {
	img := schema.BuiltinImage(schema.DefaultSandboxImage)
	return schema.ImageSpec{From: img.From.Ref, Steps: img.Steps}
}

// TestIssue11BuiltinSandboxImageBuild: issue 11: image shorthands
// (acceptance 6b). The built-in sandbox image's LLB and printed Dockerfile
// (goldens builtin_sandbox.llb and .Dockerfile) install git,
// ca-certificates and OpenSSH on python:3.14-slim-trixie and work in
// /workspace.
func TestIssue11BuiltinSandboxImageBuild(t *testing.T) {
	ctx := context.Background()
	c := testConverter(t)
	img := &Image{Address: "image.sandbox", Hash: "sha256:" + strings.Repeat("ab", 32), Spec: builtinSandboxSpec()}
	d, err := c.Convert(ctx, img)
	if err != nil {
		t.Fatalf("Convert() = %v", err)
	}
	def, err := d.Marshal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := json.MarshalIndent(d.Config, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	llbOut := append(append(dumpLLB(t, def), "\nconfig:\n"...), cfg...)
	golden.Check(t, goldenFile("builtin_sandbox.llb"), append(llbOut, '\n'))
	df, err := Dockerfile(img, []*Image{img}, c.Root)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, goldenFile("builtin_sandbox.Dockerfile"), df)

	llbText := string(llbOut)
	for _, want := range []string{
		"source docker-image://docker.io/library/python:3.14-slim-trixie",
		"apt-get install -y --no-install-recommends git ca-certificates openssh-client",
		`"WorkingDir": "/workspace"`,
	} {
		if !strings.Contains(llbText, want) {
			t.Errorf("LLB lacks %q:\n%s", want, llbText)
		}
	}
	for _, want := range []string{
		"FROM --platform=$CC_PLATFORM python:3.14-slim-trixie\n",
		"apt-get install -y --no-install-recommends git ca-certificates openssh-client ",
		"\nWORKDIR /workspace\n",
	} {
		if !strings.Contains(string(df), want) {
			t.Errorf("Dockerfile lacks %q:\n%s", want, df)
		}
	}
}
