package buildkit

import (
	"bytes"
	"fmt"
	"strings"

	"cc.dev/cc/schema"
)

// Dockerfile renders a Dockerfile equivalent to img's LLB: the same base,
// the same scripts in the same order, the same config. A base image of the
// project (from_image) becomes an earlier stage named after it; a
// from_dockerfile base is inlined. root is the project root, read for
// from_dockerfile; all lists every image from_image may name.
func Dockerfile(img *Image, all []*Image, root string) ([]byte, error) {
	byHash := map[string]*Image{}
	for _, i := range all {
		byHash[i.Hash] = i
	}
	var chain []*Image
	seen := map[*Image]bool{}
	for i := img; i != nil; {
		if seen[i] {
			return nil, fmt.Errorf("%s: image is its own base", i.Address)
		}
		seen[i] = true
		chain = append([]*Image{i}, chain...)
		if h := i.Spec.FromImage; h != "" {
			next := byHash[h]
			if next == nil {
				return nil, fmt.Errorf("%s: base image %s is not in the project", i.Address, h)
			}
			i = next
			continue
		}
		break
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# cc build --print %s\n# content hash %s\n", img.Address, img.Hash)
	if plat := chainPlatform(chain); plat != "" {
		// A constant FROM --platform trips BuildKit's linter
		// (FromPlatformFlagConstDisallowed); the stages take it from an ARG.
		fmt.Fprintf(&b, "ARG %s=%s\n", platformArg, plat)
	}
	for n, i := range chain {
		b.WriteByte('\n')
		if err := writeStage(&b, i, chain[:n], n < len(chain)-1, root); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// platformArg is the build argument that holds the platform the printed
// stages are built for.
const platformArg = "CC_PLATFORM"

// chainPlatform is the platform of the chain's first stage that names one
// with FROM --platform: its own, or the default for a registry base; ""
// when no stage does. The compiler refuses an image whose platform is not
// its base's, so the stages of one chain share it.
func chainPlatform(chain []*Image) string {
	for _, i := range chain {
		switch {
		case i.Spec.Platform != "":
			return i.Spec.Platform
		case i.Spec.From != "" && i.Spec.FromImage == "":
			return DefaultPlatform
		}
	}
	return ""
}

// stageName is the Dockerfile stage name of a base image: its name when
// BuildKit takes it as one as it is (lower case, starting with a letter,
// not a reserved name such as scratch); else "image-" and the name made
// valid, so an unnamed inline image's hash ("85988ffcba6e") and an image
// named scratch make valid stage names (issue 9 item 10).
func stageName(img *Image) string {
	name := strings.TrimPrefix(img.Address, "image.")
	if validStageName(name) && name != "scratch" && name != "context" {
		return name
	}
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return "image-" + b.String()
}

// validStageName is BuildKit's rule for a stage name, lower case.
func validStageName(s string) bool {
	for i, r := range s {
		letter := r >= 'a' && r <= 'z'
		if i == 0 && !letter || !letter && !(r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return false
		}
	}
	return s != ""
}

func writeStage(b *bytes.Buffer, img *Image, before []*Image, named bool, root string) error {
	spec := &img.Spec
	as := ""
	if named {
		as = " AS " + stageName(img)
	}
	if len(before) > 0 {
		fmt.Fprintf(b, "# %s (%s)\n", img.Address, img.Hash)
	}
	switch {
	case spec.FromImage != "":
		base := before[len(before)-1]
		if spec.Platform == "" {
			fmt.Fprintf(b, "FROM %s%s\n", stageName(base), as)
		} else {
			fmt.Fprintf(b, "FROM --platform=$%s %s%s\n", platformArg, stageName(base), as)
		}
	case spec.From != "":
		fmt.Fprintf(b, "FROM --platform=$%s %s%s\n", platformArg, spec.From, as)
	case spec.FromDockerfile != nil:
		rel, err := cleanRel(spec.FromDockerfile.Path)
		if err != nil {
			return fmt.Errorf("%s: from_dockerfile: %w", img.Address, err)
		}
		dt, err := readInput(root, rel)
		if err != nil {
			return fmt.Errorf("%s: from_dockerfile: %w", img.Address, err)
		}
		fmt.Fprintf(b, "# from_dockerfile %s (build context: its directory)\n", rel)
		b.Write(bytes.TrimRight(dt, "\n"))
		b.WriteString("\n# end of " + rel + "\n")
		if named {
			return fmt.Errorf("%s: a from_dockerfile image used as a base cannot be printed as a stage", img.Address)
		}
	default:
		return fmt.Errorf("%s: image has no base", img.Address)
	}
	for _, s := range spec.Steps {
		writeStep(b, s)
	}
	if spec.Entrypoint != nil {
		fmt.Fprintf(b, "ENTRYPOINT %s\n", jsonArgs(spec.Entrypoint))
	}
	if spec.Cmd != nil {
		fmt.Fprintf(b, "CMD %s\n", jsonArgs(spec.Cmd))
	}
	if spec.User != "" {
		fmt.Fprintf(b, "USER %s\n", spec.User)
	}
	return nil
}

func writeStep(b *bytes.Buffer, s schema.Step) {
	run := func(prefix, script string) {
		if strings.Contains(script, "\n") || strings.HasSuffix(script, "\\") {
			fmt.Fprintf(b, "RUN %s<<'CC_EOF'\n%s\nCC_EOF\n", prefix, script)
			return
		}
		fmt.Fprintf(b, "RUN %s%s\n", prefix, script)
	}
	switch {
	case s.Apt != nil:
		run("", AptScript(s.Apt.Packages))
	case s.Pip != nil:
		run("", PipScript(s.Pip))
	case s.PipRequirements != nil:
		rel, _ := cleanRel(s.PipRequirements.File)
		run(fmt.Sprintf("--mount=type=bind,source=%s,target=%s ", rel, requirementsPath), PipRequirementsScript())
	case s.Run != nil:
		for _, c := range s.Run.Commands {
			run("", c)
		}
	case s.Copy != nil:
		rel, _ := cleanRel(s.Copy.Src)
		flag := ""
		if s.Copy.Mode != "" {
			flag = "--chmod=" + s.Copy.Mode + " "
		}
		fmt.Fprintf(b, "COPY %s%s %s\n", flag, rel, s.Copy.Dst)
	case s.Env != nil:
		fmt.Fprintf(b, "ENV %s\n", envLine(s.Env.Vars))
	case s.Workdir != nil:
		fmt.Fprintf(b, "WORKDIR %s\n", s.Workdir.Path)
	case s.Dockerfile != nil:
		for _, c := range s.Dockerfile.Commands {
			fmt.Fprintln(b, strings.TrimSpace(c))
		}
	}
}
