package buildkit

import (
	"context"
	"fmt"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/random"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"cc.dev/cc/schema"
)

// BenchmarkReused100 times deciding that 100 unchanged images are reused:
// one HEAD of REPO:cc-<hash> each, against a registry on 127.0.0.1, with
// no buildkitd at all.
func BenchmarkReused100(b *testing.B) {
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	defer srv.Close()
	repo := strings.TrimPrefix(srv.URL, "http://") + "/bench/app"
	img, err := random.Image(256, 1)
	if err != nil {
		b.Fatal(err)
	}
	var imgs []*Image
	for i := range 100 {
		h := schema.Hash([]byte(fmt.Sprint("image ", i)))
		imgs = append(imgs, &Image{Address: fmt.Sprintf("image.i%03d", i), Hash: h})
		ref, err := name.ParseReference(repo + ":" + Tag(h))
		if err != nil {
			b.Fatal(err)
		}
		if err := remote.Write(ref, img); err != nil {
			b.Fatal(err)
		}
	}
	bld := New("unix:///nonexistent/buildkitd.sock")
	req := Request{Images: imgs, Push: repo}
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		got, err := bld.Reused(ctx, req, nil)
		if err != nil {
			b.Fatal(err)
		}
		for i, r := range got {
			if r == nil || !r.Reused {
				b.Fatalf("%s not reused", imgs[i].Address)
			}
		}
	}
}
