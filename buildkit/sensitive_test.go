package buildkit_test

import (
	"testing"

	"cc.dev/cc/buildkit"
	"cc.dev/cc/schema"
)

// TestItem8SensitiveImagesAlwaysBuilt: issue 8 item 8. An image with a
// sensitive value, or built from one, is hashed without the value, so it
// is marked to be built every time, never reused by its tag.
func TestItem8SensitiveImagesAlwaysBuilt(t *testing.T) {
	img := func(addr, spec string, sens ...string) schema.Resource {
		return schema.Resource{Address: addr, Kind: schema.KindImage, Hash: "sha256:" + addr[6:] + "0", Spec: []byte(spec), Sensitive: sens}
	}
	d := &schema.Desired{Resources: []schema.Resource{
		img("image.a", `{"from":"python:3","steps":[{"env":{"vars":{"K":"v"}}}]}`, "/steps/0/env/vars/K"),
		img("image.b", `{"from_image":"sha256:a0"}`),
		img("image.c", `{"from":"python:3"}`),
	}}
	imgs, err := buildkit.Images(d)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"image.a": true, "image.b": true, "image.c": false}
	for _, im := range imgs {
		if im.Sensitive != want[im.Address] {
			t.Errorf("%s: Sensitive = %v, want %v", im.Address, im.Sensitive, want[im.Address])
		}
	}
}
