package buildkit

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/moby/buildkit/client/llb"
	"github.com/moby/buildkit/client/llb/sourceresolver"
	"github.com/moby/buildkit/solver/pb"
	digest "github.com/opencontainers/go-digest"
	"google.golang.org/protobuf/proto"
)

// goldenFile is the path of a golden file of this package.
func goldenFile(name string) string {
	return filepath.Join("testdata", "golden", name)
}

// fakeResolver answers every image config lookup with a fixed config, as
// a registry would for an image with a PATH and a working directory.
type fakeResolver struct{}

func (fakeResolver) ResolveSourceMetadata(ctx context.Context, op *pb.SourceOp, opt sourceresolver.Opt) (*sourceresolver.MetaResponse, error) {
	ref := strings.TrimPrefix(op.Identifier, "docker-image://")
	cfg := map[string]any{
		"architecture": "amd64",
		"os":           "linux",
		"config": map[string]any{
			"Env":        []string{"PATH=/usr/local/bin:/usr/bin:/bin", "LANG=C.UTF-8"},
			"Cmd":        []string{"sh"},
			"WorkingDir": "/",
		},
		"rootfs":  map[string]any{"type": "layers", "diff_ids": []string{}},
		"history": []any{map[string]any{"created_by": "base " + ref}},
	}
	dt, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	return &sourceresolver.MetaResponse{
		Op:    op,
		Image: &sourceresolver.ResolveImageResponse{Digest: digest.FromString("manifest of " + ref), Config: dt},
	}, nil
}

// testConverter converts with the fixed resolver, a pinned local ID and
// epoch 0, so LLB digests do not depend on the machine.
func testConverter(t *testing.T) *Converter {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("testdata", "project"))
	if err != nil {
		t.Fatal(err)
	}
	return &Converter{Root: root, Resolver: fakeResolver{}, LocalID: "cc-test", Bases: map[string]*Definition{}}
}

// dumpLLB renders a marshalled definition for a golden file: the digest of
// its head and one line per op, in the order of the definition.
func dumpLLB(t *testing.T, def *llb.Definition) []byte {
	t.Helper()
	var b bytes.Buffer
	var last digest.Digest
	for _, dt := range def.Def {
		var op pb.Op
		if err := proto.Unmarshal(dt, &op); err != nil {
			t.Fatal(err)
		}
		d := digest.FromBytes(dt)
		last = d
		fmt.Fprintf(&b, "%s %s\n", d, describeOp(&op))
	}
	// The last op of a definition is the head's terminal; the head is its input.
	return append([]byte(fmt.Sprintf("head %s\n", last)), b.Bytes()...)
}

func describeOp(op *pb.Op) string {
	plat := ""
	if p := op.GetPlatform(); p != nil {
		plat = " [" + p.GetOS() + "/" + p.GetArchitecture() + "]"
	}
	switch {
	case op.GetSource() != nil:
		s := op.GetSource()
		keys := make([]string, 0, len(s.GetAttrs()))
		for k := range s.GetAttrs() {
			keys = append(keys, k+"="+s.GetAttrs()[k])
		}
		sort.Strings(keys)
		return fmt.Sprintf("source %s %v%s", s.GetIdentifier(), keys, plat)
	case op.GetExec() != nil:
		e := op.GetExec()
		m := e.GetMeta()
		var mounts []string
		for _, mt := range e.GetMounts() {
			mounts = append(mounts, fmt.Sprintf("%s<-%d:%s(ro=%v)", mt.GetDest(), mt.GetInput(), mt.GetSelector(), mt.GetReadonly()))
		}
		return fmt.Sprintf("exec %q env=%q cwd=%s user=%q mounts=%v%s", m.GetArgs(), m.GetEnv(), m.GetCwd(), m.GetUser(), mounts, plat)
	case op.GetFile() != nil:
		var acts []string
		for _, a := range op.GetFile().GetActions() {
			switch {
			case a.GetCopy() != nil:
				c := a.GetCopy()
				acts = append(acts, fmt.Sprintf("copy %s->%s mode=%o contents=%v create=%v", c.GetSrc(), c.GetDest(), c.GetMode(), c.GetDirCopyContents(), c.GetCreateDestPath()))
			case a.GetMkdir() != nil:
				m := a.GetMkdir()
				acts = append(acts, fmt.Sprintf("mkdir %s mode=%o parents=%v", m.GetPath(), m.GetMode(), m.GetMakeParents()))
			default:
				acts = append(acts, "other")
			}
		}
		return fmt.Sprintf("file %v inputs=%d%s", acts, len(op.GetInputs()), plat)
	case len(op.GetInputs()) == 1 && op.GetOp() == nil:
		return "terminal"
	}
	return "other"
}
