package applier

import (
	"reflect"
	"testing"

	"cc.dev/cc/schema"
)

// issue 13: versionValues is not given the images when none has a
// sensitive value (no spec is decoded then), and still follows the whole
// chain when only a base image has one: a function under an image with
// none, built from a base with a sensitive build arg, is made with the
// base's value at /image/from_image/....
func TestVersionValuesFollowChainToSensitiveBase(t *testing.T) {
	base := schema.Resource{Kind: schema.KindImage, Address: "image.base", Hash: "sha256:b", Spec: []byte(`{"from":"x","build_args":{"TOKEN":"s3cret"}}`), Sensitive: []string{"/build_args/TOKEN"}}
	child := schema.Resource{Kind: schema.KindImage, Address: "image.child", Hash: "sha256:c", Spec: []byte(`{"from_image":"sha256:b"}`)}
	fn := schema.Resource{Kind: schema.KindFunction, Address: "function.f", Hash: "sha256:f", Spec: []byte(`{"image":"sha256:c"}`)}
	a := &Applier{}
	l := a.locals(&schema.Desired{Resources: []schema.Resource{base, child, fn}})
	var got []string
	for _, i := range l.versioned["function.f"] {
		got = append(got, l.vals[i].Pointer+"="+string(l.vals[i].Value))
	}
	if want := []string{`/image/from_image/build_args/TOKEN="s3cret"`}; !reflect.DeepEqual(got, want) {
		t.Errorf("function.f is made with %q, want %q", got, want)
	}

	plain := base
	plain.Sensitive = nil
	l = a.locals(&schema.Desired{Resources: []schema.Resource{plain, child, fn}})
	if len(l.versioned["function.f"]) != 0 {
		t.Errorf("with no sensitive image, function.f has version values %v", l.versioned["function.f"])
	}
}
