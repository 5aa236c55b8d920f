package schema

import (
	"bytes"
	"encoding/json"
	"testing"
)

func TestMarshalCanonicalEqualsCanonical(t *testing.T) {
	spec, _ := Canonical(map[string]any{"image": "sha256:ab", "env": map[string]any{"B": "<&>", "A": "x"}})
	d := &Desired{
		FormatVersion: FormatVersion, Project: "p\u00e9",
		Resources: []Resource{
			{Address: "image.a", Kind: KindImage, Name: "a", Aliases: []string{"b"}, Hash: "sha256:1", Spec: spec,
				Inputs: []Input{{Path: "src", Digest: "sha256:2", Tree: true}}},
			{Address: "sandbox.s", Kind: KindSandbox, Name: "s", Hash: "sha256:3", Spec: spec,
				DependsOn: []string{"image.a"}, Sensitive: []string{"/env/B"}},
		},
		Trees: map[string][]TreeEntry{"sha256:2": {{Path: "x.py", Mode: "0644", Size: 3, Digest: "sha256:4"}}},
		// issue 10: the lifecycle declarations.
		Moves:   []Moved{{From: "sandbox.a", To: "sandbox.s"}},
		Removed: []Removed{{Address: "volume.v"}},
		Imports: []Imported{{To: "volume.c", ID: "build-cache"}},
	}
	want, err := Canonical(d)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.MarshalCanonical()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("MarshalCanonical() =\n%s\nwant\n%s", got, want)
	}
	if !json.Valid(got) {
		t.Fatal("not JSON")
	}
}

func TestCanonicalNumbers(t *testing.T) {
	for in, want := range map[string]string{
		`[1, 1.0, 1.50, -0, 1e3, 0.1, 1e-7, 12345678901234567890, 2.5e21]`: `[1,1,1.5,0,1000,0.1,1e-7,12345678901234567890,2.5e+21]`,
		`{"b": "<&>\u00e9\n", "a": [true, null]}`:                          `{"a":[true,null],"b":"<&>é\n"}`,
	} {
		got, err := Canonical(json.RawMessage(in))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("Canonical(%s) = %s, want %s", in, got, want)
		}
	}
}
