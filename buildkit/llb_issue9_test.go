package buildkit

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/moby/buildkit/solver/pb"
	digest "github.com/opencontainers/go-digest"
	"google.golang.org/protobuf/proto"

	"cc.dev/cc/schema"
)

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

// TestIssue9RunCommandsEachOwnExec: issue 9 item 9. Each command of a run
// step is its own exec, in order, tagged with its index, so
// ["false", "x || true"] fails at "false" and a # ends with its command;
// before, the commands were joined with &&.
func TestIssue9RunCommandsEachOwnExec(t *testing.T) {
	ctx := context.Background()
	cmds := []string{"false", "x || true # comment", "echo last"}
	img := &Image{Address: "image.x", Spec: schema.ImageSpec{From: "busybox:1.36", Steps: step(schema.Step{Run: &schema.CommandsStep{Commands: cmds}})}}
	d, err := testConverter(t).Convert(ctx, img)
	if err != nil {
		t.Fatal(err)
	}
	def, err := d.Marshal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, dt := range def.Def {
		var op pb.Op
		if err := proto.Unmarshal(dt, &op); err != nil {
			t.Fatal(err)
		}
		if e := op.GetExec(); e != nil {
			args := e.GetMeta().GetArgs()
			got = append(got, args[len(args)-1])
			j, ok := CommandOf(def, digest.FromBytes(dt).String())
			if !ok || j != len(got)-1 {
				t.Errorf("exec %q: CommandOf = %d, %v; want %d", args, j, ok, len(got)-1)
			}
		}
	}
	if !slices.Equal(got, cmds) {
		t.Errorf("execs run %q, want one per command: %q", got, cmds)
	}
}
