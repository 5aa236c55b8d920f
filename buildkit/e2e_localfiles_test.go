package buildkit_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"cc.dev/cc/buildkit"
	"cc.dev/cc/buildkit/buildkittest"
)

// TestE2EFromDockerfileIgnore builds an image from a Dockerfile whose
// context holds files that the context's own .dockerignore and the root's
// .ccignore leave out: they are not in the image, editing one changes
// neither the hash nor the image (the build is reused), and editing a
// kept file changes both. Issue 16 item 4: the hash and the build used to
// read different ignore files, so a file the hash left out was built in
// and editing it never rebuilt.
func TestE2EFromDockerfileIgnore(t *testing.T) {
	env := buildkittest.Setup(t)
	dir := t.TempDir()
	for name, body := range map[string]string{
		"main.cue":          "package p\nproject: \"p\"\nimages: tool: from_dockerfile: \"ctx/Dockerfile\"\n",
		".ccignore":         "**/*.env\n",
		"ctx/.dockerignore": "ignored.txt\n",
		"ctx/Dockerfile":    "FROM busybox:1.36\nCOPY . /ctx\n",
		"ctx/kept.txt":      "kept\n",
		"ctx/ignored.txt":   "ignored\n",
		"ctx/secret.env":    "TOKEN=1\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var n counter
	b := buildkit.New(env.Buildkit, n.option())
	defer b.Close()
	repo := repo(env, "ignore")
	reg := &buildkit.Registry{}

	imgs := compile(t, dir)
	first := byAddr(mustBuild(t, b, buildkit.Request{Root: dir, Images: imgs, Push: repo}))["image.tool"]
	img, err := reg.Image(context.Background(), first.Ref)
	if err != nil {
		t.Fatal(err)
	}
	fs := files(t, img)
	if fs["/ctx/kept.txt"].data != "kept\n" {
		t.Errorf("/ctx/kept.txt = %q, want kept", fs["/ctx/kept.txt"].data)
	}
	for _, p := range []string{"/ctx/ignored.txt", "/ctx/secret.env"} {
		if _, ok := fs[p]; ok {
			t.Errorf("%s is in the image; an ignore file leaves it out", p)
		}
	}

	// An ignored file edited: same hash, the build is reused.
	for _, p := range []string{"ctx/ignored.txt", "ctx/secret.env"} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte("edited\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	imgs = compile(t, dir)
	if imgs[0].Hash != first.Image.Hash {
		t.Errorf("editing ignored files changed the hash %s to %s", first.Image.Hash, imgs[0].Hash)
	}
	solves := n.solves.Load()
	if got := byAddr(mustBuild(t, b, buildkit.Request{Root: dir, Images: imgs, Push: repo}))["image.tool"]; !got.Reused || got.Digest != first.Digest {
		t.Errorf("after editing ignored files: %+v, want reused with digest %s", got, first.Digest)
	}
	if d := n.solves.Load() - solves; d != 0 {
		t.Errorf("after editing ignored files the build made %d Solve calls, want 0", d)
	}

	// A kept file edited: new hash, new image with the new content.
	if err := os.WriteFile(filepath.Join(dir, "ctx", "kept.txt"), []byte("kept v2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	imgs = compile(t, dir)
	if imgs[0].Hash == first.Image.Hash {
		t.Errorf("editing ctx/kept.txt left the hash at %s", first.Image.Hash)
	}
	second := byAddr(mustBuild(t, b, buildkit.Request{Root: dir, Images: imgs, Push: repo}))["image.tool"]
	if second.Reused || second.Digest == first.Digest {
		t.Fatalf("after editing ctx/kept.txt: %+v, want a new build", second)
	}
	img, err = reg.Image(context.Background(), second.Ref)
	if err != nil {
		t.Fatal(err)
	}
	fs = files(t, img)
	if fs["/ctx/kept.txt"].data != "kept v2\n" {
		t.Errorf("/ctx/kept.txt = %q, want kept v2", fs["/ctx/kept.txt"].data)
	}
	for _, p := range []string{"/ctx/ignored.txt", "/ctx/secret.env"} {
		if _, ok := fs[p]; ok {
			t.Errorf("%s is in the rebuilt image; an ignore file leaves it out", p)
		}
	}
}
