// Package buildkittest sets up the end-to-end tests of cc build: it finds
// the buildkitd and registry that .ci/test started (CC_E2E_BUILDKIT,
// CC_E2E_REGISTRY), and pushes the test base images to the registry, which
// buildkitd uses as its docker.io mirror.
package buildkittest

import (
	"archive/tar"
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// Env is the end-to-end environment.
type Env struct {
	// Buildkit is buildkitd's address (unix://...).
	Buildkit string
	// Registry is the registry's host:port; buildkitd mirrors docker.io
	// to it.
	Registry string
	// Buildctl is the path of buildctl, when known.
	Buildctl string
}

// Setup returns the environment with the base images pushed, or skips t
// with the reason when .ci/test did not set it up; under CI=true it fails
// instead, so that CI cannot skip the end-to-end tests silently.
func Setup(t testing.TB) Env {
	t.Helper()
	e := Env{Buildkit: os.Getenv("CC_E2E_BUILDKIT"), Registry: os.Getenv("CC_E2E_REGISTRY"), Buildctl: os.Getenv("CC_E2E_BUILDCTL")}
	if e.Buildkit == "" || e.Registry == "" {
		why := "CC_E2E_BUILDKIT and CC_E2E_REGISTRY are not set; ./.ci/test starts buildkitd and a registry and sets them"
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must run this end-to-end test: " + why)
		}
		t.Skip("end-to-end test: " + why)
	}
	pushOnce.Do(func() { pushErr = PushBaseImages(context.Background(), e.Registry) })
	if pushErr != nil {
		t.Fatalf("push base images: %v", pushErr)
	}
	return e
}

var (
	pushOnce sync.Once
	pushErr  error
)

// Bases are the test base images by docker.io name: a busybox-static root
// file system, and a stand-in for python:3.12-slim whose pip and apt-get
// record what they were asked to install (no package index is reachable).
var Bases = []string{"library/busybox:1.36", "library/busybox:latest", "library/python:3.12-slim"}

// PushBaseImages pushes Bases to registry (host:port).
func PushBaseImages(ctx context.Context, registry string) error {
	busybox, err := os.ReadFile("/bin/busybox")
	if err != nil {
		return fmt.Errorf("read /bin/busybox (Debian's busybox-static): %w", err)
	}
	out, err := exec.Command("/bin/busybox", "--list").Output()
	if err != nil {
		return fmt.Errorf("busybox --list: %w", err)
	}
	applets := strings.Fields(string(out))
	bb, err := image(busybox, applets, nil)
	if err != nil {
		return err
	}
	py, err := image(busybox, applets, map[string]string{
		"/usr/local/bin/pip": "#!/bin/sh\n# cc test stand-in for pip: records what it installs.\n" +
			"mkdir -p /usr/local/lib/cc-test\necho \"pip $*\" >> /usr/local/lib/cc-test/installed\n" +
			"while [ $# -gt 0 ]; do if [ \"$1\" = -r ]; then cat \"$2\" >> /usr/local/lib/cc-test/installed; fi; shift; done\n",
		"/usr/bin/apt-get": "#!/bin/sh\n# cc test stand-in for apt-get.\nmkdir -p /usr/local/lib/cc-test /var/lib/apt/lists\n" +
			"echo \"apt-get $*\" >> /usr/local/lib/cc-test/installed\ntouch /var/lib/apt/lists/stale-index\n",
		"/usr/local/bin/python": "#!/bin/sh\necho \"python $*\"\n",
	})
	if err != nil {
		return err
	}
	for _, n := range Bases {
		img := bb
		if strings.Contains(n, "python") {
			img = py
		}
		ref, err := name.ParseReference(registry + "/" + n)
		if err != nil {
			return err
		}
		if err := remote.Write(ref, img, remote.WithContext(ctx)); err != nil {
			return fmt.Errorf("push %s: %w", ref, err)
		}
	}
	return nil
}

func image(busybox []byte, applets []string, scripts map[string]string) (v1.Image, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	mtime := time.Unix(0, 0)
	dir := func(p string) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: p + "/", Mode: 0o755, ModTime: mtime})
	}
	file := func(p string, mode int64, b []byte) error {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: p, Mode: mode, Size: int64(len(b)), ModTime: mtime}); err != nil {
			return err
		}
		_, err := tw.Write(b)
		return err
	}
	for _, d := range []string{"bin", "etc", "root", "tmp", "usr", "usr/bin", "usr/local", "usr/local/bin", "usr/local/lib", "var", "var/lib"} {
		if err := dir(d); err != nil {
			return nil, err
		}
	}
	if err := file("bin/busybox", 0o755, busybox); err != nil {
		return nil, err
	}
	for _, a := range applets {
		if a == "busybox" {
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeSymlink, Name: "bin/" + a, Linkname: "busybox", Mode: 0o777, ModTime: mtime}); err != nil {
			return nil, err
		}
	}
	if err := file("etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n")); err != nil {
		return nil, err
	}
	if err := file("etc/group", 0o644, []byte("root:x:0:\nnogroup:x:65534:\n")); err != nil {
		return nil, err
	}
	for _, p := range sortedKeys(scripts) {
		if err := file(strings.TrimPrefix(p, "/"), 0o755, []byte(scripts[p])); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
	if err != nil {
		return nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return nil, err
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", "amd64"
	cf.Created = v1.Time{Time: time.Unix(0, 0)}
	cf.Config.Env = []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	cf.Config.Cmd = []string{"sh"}
	return mutate.ConfigFile(img, cf)
}

func sortedKeys(m map[string]string) []string { return slices.Sorted(maps.Keys(m)) }
