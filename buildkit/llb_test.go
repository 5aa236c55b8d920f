package buildkit

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/internal/golden"
	"cc.dev/cc/schema"
)

func step(s schema.Step) []schema.Step { return []schema.Step{s} }

// specCases are one image per step kind, plus the other bases.
var specCases = []struct {
	name string
	spec schema.ImageSpec
}{
	{"apt", schema.ImageSpec{From: "debian:12-slim", Steps: step(schema.Step{Apt: &schema.PackagesStep{Packages: []string{"curl", "git=1:2.39.5-0+deb12u1"}}})}},
	{"pip", schema.ImageSpec{From: "python:3.12-slim", Steps: step(schema.Step{Pip: &schema.PipStep{Packages: []string{"numpy==2.1", "requests[socks]>=2"}, IndexURL: "https://pypi.example/simple", ExtraIndexURLs: []string{"https://extra.example/simple"}}})}},
	{"pip_requirements", schema.ImageSpec{From: "python:3.12-slim", Steps: step(schema.Step{PipRequirements: &schema.FileStep{File: "requirements.txt", Digest: "sha256:00"}})}},
	{"run", schema.ImageSpec{From: "busybox:1.36", Steps: step(schema.Step{Run: &schema.CommandsStep{Commands: []string{"echo one > /one", "mkdir -p /data"}}})}},
	{"copy_dir", schema.ImageSpec{From: "busybox:1.36", Steps: step(schema.Step{Copy: &schema.CopyStep{Src: "src", Dst: "/app", Digest: "sha256:01"}})}},
	{"copy_file_mode", schema.ImageSpec{From: "busybox:1.36", Steps: step(schema.Step{Copy: &schema.CopyStep{Src: "run.sh", Dst: "/usr/local/bin/run", Mode: "0755", Digest: "sha256:02"}})}},
	{"env", schema.ImageSpec{From: "busybox:1.36", Steps: []schema.Step{
		{Env: &schema.EnvStep{Vars: map[string]string{"B": "two words", "A": "$HOME"}}},
		{Run: &schema.CommandsStep{Commands: []string{"env"}}},
	}}},
	{"workdir", schema.ImageSpec{From: "busybox:1.36", Steps: []schema.Step{
		{Workdir: &schema.PathStep{Path: "/srv/app"}},
		{Run: &schema.CommandsStep{Commands: []string{"pwd"}}},
	}}},
	{"dockerfile", schema.ImageSpec{From: "busybox:1.36", Steps: step(schema.Step{Dockerfile: &schema.CommandsStep{Commands: []string{
		"ENV GREETING=hello",
		"RUN echo $GREETING > /greeting",
		"WORKDIR /srv",
		"LABEL org.example.team=search",
		"EXPOSE 8080 53/udp",
		"USER nobody",
		"HEALTHCHECK --interval=5s CMD wget -q -O- http://localhost:8080/",
		"STOPSIGNAL SIGTERM",
		"VOLUME /data",
	}}})}},
	{"config", schema.ImageSpec{From: "busybox:1.36", Platform: "linux/arm64", Entrypoint: []string{"/bin/sh", "-c"}, Cmd: []string{"echo hi"}, User: "1000:1000"}},
	{"from_dockerfile", schema.ImageSpec{FromDockerfile: &schema.DockerfileInput{Path: "docker/Dockerfile", Digest: "sha256:03", Context: "sha256:04"}, Steps: step(schema.Step{Run: &schema.CommandsStep{Commands: []string{"cat /built"}}})}},
}

func TestConvertGolden(t *testing.T) {
	ctx := context.Background()
	for _, tc := range specCases {
		t.Run(tc.name, func(t *testing.T) {
			c := testConverter(t)
			img := &Image{Address: "image." + strings.ReplaceAll(tc.name, "_", "-"), Hash: "sha256:" + strings.Repeat("ab", 32), Spec: tc.spec}
			d, err := c.Convert(ctx, img)
			if err != nil {
				t.Fatalf("Convert() = %v", err)
			}
			def, err := d.Marshal(ctx)
			if err != nil {
				t.Fatalf("Marshal() = %v", err)
			}
			cfg, err := json.MarshalIndent(d.Config, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			out := append(dumpLLB(t, def), "\nconfig:\n"...)
			out = append(out, cfg...)
			out = append(out, '\n')
			golden.Check(t, goldenFile(tc.name+".llb"), out)

			// The same input converts to the same LLB.
			d2, err := testConverter(t).Convert(ctx, img)
			if err != nil {
				t.Fatal(err)
			}
			def2, err := d2.Marshal(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(def.Def, def2.Def); diff != "" {
				t.Errorf("second Convert() differs:\n%s", diff)
			}
			if tc.spec.FromDockerfile != nil {
				return
			}
			df, err := Dockerfile(img, []*Image{img}, c.Root)
			if err != nil {
				t.Fatalf("Dockerfile() = %v", err)
			}
			golden.Check(t, goldenFile(tc.name+".Dockerfile"), df)
		})
	}
}

func TestConvertComposed(t *testing.T) {
	ctx := context.Background()
	base := &Image{Address: "image.base", Hash: "sha256:" + strings.Repeat("11", 32), Spec: schema.ImageSpec{
		From:  "python:3.12-slim",
		Steps: []schema.Step{{Pip: &schema.PipStep{Packages: []string{"numpy==2.1"}}}, {Env: &schema.EnvStep{Vars: map[string]string{"BASE": "1"}}}},
		Cmd:   []string{"python"},
	}}
	app := &Image{Address: "image.app", Hash: "sha256:" + strings.Repeat("22", 32), Spec: schema.ImageSpec{
		FromImage: base.Hash,
		Steps:     []schema.Step{{Copy: &schema.CopyStep{Src: "src/app.py", Dst: "/app/app.py"}}},
		Cmd:       []string{"python", "/app/app.py"},
	}}
	c := testConverter(t)
	bd, err := c.Convert(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	c.Bases[base.Hash] = bd
	ad, err := c.Convert(ctx, app)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := ad.Config.Config.Env, []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8", "BASE=1"}; !cmp.Equal(got, want) {
		t.Errorf("composed env = %q, want %q", got, want)
	}
	def, err := ad.Marshal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// The base's ops are part of the composed image's LLB.
	bdef, err := bd.Marshal(ctx)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, dt := range def.Def {
		have[string(dt)] = true
	}
	for _, dt := range bdef.Def[:len(bdef.Def)-1] {
		if !have[string(dt)] {
			t.Errorf("composed LLB lacks a base op")
		}
	}
	golden.Check(t, goldenFile("composed.llb"), dumpLLB(t, def))
	df, err := Dockerfile(app, []*Image{base, app}, c.Root)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, goldenFile("composed.Dockerfile"), df)
}

func TestConvertRefusesUnsupportedInstruction(t *testing.T) {
	for _, cmd := range []string{"COPY . /app", "ADD x /x", "FROM busybox", "ARG X=1", "SHELL [\"/bin/bash\", \"-c\"]", "ONBUILD RUN x", "RUN --mount=type=cache,target=/root/.cache pip install x", "MAINTAINER me"} {
		spec := schema.ImageSpec{From: "busybox:1.36", Steps: []schema.Step{
			{Run: &schema.CommandsStep{Commands: []string{"true"}}},
			{Dockerfile: &schema.CommandsStep{Commands: []string{"ENV A=1", cmd}}},
		}}
		_, err := testConverter(t).Convert(context.Background(), &Image{Address: "image.x", Spec: spec})
		var se *StepError
		var ie *InstructionError
		if !errors.As(err, &se) || se.Step != 1 || !errors.As(err, &ie) || ie.Command != 1 {
			t.Errorf("Convert(%q) = %v, want an error at step 1, command 1", cmd, err)
		}
	}
}

func TestConvertErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec schema.ImageSpec
		want string
	}{
		{"no base", schema.ImageSpec{}, "no base"},
		{"bad platform", schema.ImageSpec{From: "busybox", Platform: "linux/??"}, "platform"},
		{"outside", schema.ImageSpec{From: "busybox", Steps: step(schema.Step{Copy: &schema.CopyStep{Src: "../etc/passwd", Dst: "/x"}})}, "outside the project"},
		{"relative dst", schema.ImageSpec{From: "busybox", Steps: step(schema.Step{Copy: &schema.CopyStep{Src: "run.sh", Dst: "x"}})}, "not absolute"},
		{"bad mode", schema.ImageSpec{From: "busybox", Steps: step(schema.Step{Copy: &schema.CopyStep{Src: "run.sh", Dst: "/x", Mode: "rwx"}})}, "octal"},
		{"missing base", schema.ImageSpec{FromImage: "sha256:99"}, "not built"},
		{"empty step", schema.ImageSpec{From: "busybox", Steps: []schema.Step{{}}}, "no kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := testConverter(t).Convert(context.Background(), &Image{Address: "image.x", Spec: tc.spec})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Convert() = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestSupportedInstructionsParse(t *testing.T) {
	for _, instr := range schema.SupportedDockerfileInstructions {
		cmd := map[string]string{
			"CMD": "CMD [\"x\"]", "ENTRYPOINT": "ENTRYPOINT [\"x\"]", "ENV": "ENV A=1", "EXPOSE": "EXPOSE 80",
			"HEALTHCHECK": "HEALTHCHECK CMD true", "LABEL": "LABEL a=b", "RUN": "RUN true", "STOPSIGNAL": "STOPSIGNAL SIGINT",
			"USER": "USER nobody", "VOLUME": "VOLUME /v", "WORKDIR": "WORKDIR /w",
		}[instr]
		if cmd == "" {
			t.Fatalf("no example for %s", instr)
		}
		if _, err := ParseInstruction(cmd); err != nil {
			t.Errorf("ParseInstruction(%q) = %v", cmd, err)
		}
	}
}
