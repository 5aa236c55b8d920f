package compiler

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/schema"
)

// TestGenerateRoundTrip: issue 10 (adoption, --generate-config-out). The
// declarations Generate writes from the specs of every resource of every
// example, of every kind, in each language, compile to the very same
// desired state.
func TestGenerateRoundTrip(t *testing.T) {
	dirs, err := filepath.Glob("../examples/*")
	if err != nil || len(dirs) < 2 {
		t.Fatalf("examples: %v %v", dirs, err)
	}
	kinds := map[schema.Kind]bool{}
	for _, dir := range dirs {
		if filepath.Base(dir) == "modules" {
			// issue 12: modules. A module's resources are declared in its
			// module; generated declarations are a root configuration's.
			continue
		}
		for _, lang := range []string{"cue", "hcl"} {
			t.Run(filepath.Base(dir)+"/"+lang, func(t *testing.T) { roundTrip(t, dir, lang, kinds) })
		}
	}
	for _, k := range schema.Kinds {
		if !kinds[k] && !strings.HasPrefix(string(k), "_") {
			t.Errorf("no example has a %s: the round trip does not cover it", k)
		}
	}
}

// roundTrip generates the declarations of the resources of the project in
// dir (main.LANG) and checks they compile to the same desired state,
// collecting the kinds seen in kinds.
func roundTrip(t *testing.T, dir, lang string, kinds map[schema.Kind]bool) {
	res, err := Compile(context.Background(), Input{Path: filepath.Join(dir, "main."+lang)})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Desired
	// A lifecycle block is how cc treats a resource, not what the service
	// has: the generated declarations have none (issue 11: the tour has
	// lifecycle blocks).
	for i := range d.Resources {
		d.Resources[i].Lifecycle = nil
	}
	want, err := d.MarshalCanonical()
	if err != nil {
		t.Fatal(err)
	}
	in := GenerateInput{Lang: lang, Images: map[string]string{}, Data: d.Data}
	if lang == "cue" {
		in.Package = "generated"
	}
	for _, r := range d.Resources {
		kinds[r.Kind] = true
		if r.Kind == schema.KindImage {
			in.Images[r.Hash] = r.Address
		}
		in.Resources = append(in.Resources, GenerateResource{Address: r.Address, Spec: r.Spec, Sensitive: r.Sensitive})
	}
	out, err := Generate(in)
	if err != nil {
		t.Fatalf("Generate() = %v", err)
	}
	if f, ferr := Format("x."+lang, out); ferr != nil || !bytes.Equal(f, out) {
		t.Errorf("the generated configuration is not formatted as cc fmt formats it (%v)", ferr)
	}
	tmp := t.TempDir()
	copyTree(t, dir, tmp)
	for _, f := range []string{"main.cue", "main.hcl"} {
		os.Remove(filepath.Join(tmp, f))
	}
	head := "project = " + `"` + d.Project + `"` + "\n"
	if lang == "cue" {
		head = "package generated\n\nproject: \"" + d.Project + "\"\n"
		out = bytes.Replace(out, []byte("package generated\n"), nil, 1)
	}
	if err := os.WriteFile(filepath.Join(tmp, "main."+lang), append([]byte(head), out...), 0o644); err != nil {
		t.Fatal(err)
	}
	if testing.Verbose() {
		t.Logf("generated:\n%s", out)
	}
	got := compileJSON(t, filepath.Join(tmp, "main."+lang), Input{})
	if !bytes.Equal(got, want) {
		t.Fatalf("the generated configuration compiles differently:\n%s\ngenerated:\n%s", cmp.Diff(string(want), string(got)), out)
	}
}

// TestGenerateRoundTripSandboxFields: issue 11 (sandbox fields). The
// declarations generated from a sandbox and function class using every new
// field compile to the same desired state, in each language.
func TestGenerateRoundTripSandboxFields(t *testing.T) {
	t.Setenv("TOKEN", "t0ken")
	dir := sandboxFieldsProject(t, nil)
	for _, lang := range []string{"cue", "hcl"} {
		t.Run(lang, func(t *testing.T) { roundTrip(t, dir, lang, map[schema.Kind]bool{}) })
	}
}

// TestGenerateRefusals: issue 10 (--generate-config-out). A spec naming an
// image the configuration does not declare, or with sensitive values the
// service never sends, is refused naming the resource; a name that is not
// an identifier is quoted in both languages.
func TestGenerateRefusals(t *testing.T) {
	fn := []byte(`{"handler":"m:run","image":"sha256:` + strings.Repeat("a", 64) + `","retries":0,"timeout":"5m"}`)
	for _, tc := range []struct {
		r    GenerateResource
		want string
	}{
		{GenerateResource{Address: "function.f", Spec: fn}, "function.f: image sha256:aaaa"},
		{GenerateResource{Address: "sandbox.s", Spec: []byte(`{}`), Sensitive: []string{"/env/X"}}, "sandbox.s has sensitive values"},
		{GenerateResource{Address: "volume.Bad", Spec: []byte(`{}`)}, `"volume.Bad" is not an address`},
	} {
		if _, err := Generate(GenerateInput{Lang: "hcl", Resources: []GenerateResource{tc.r}}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Generate(%s) = %v, want an error with %q", tc.r.Address, err, tc.want)
		}
	}
	for lang, want := range map[string]string{"hcl": `volume "build-cache" {`, "cue": `volumes: "build-cache": size: "1Gi"`} {
		out, err := Generate(GenerateInput{Lang: lang, Resources: []GenerateResource{{Address: "volume.build-cache", Spec: []byte(`{"size":"1Gi"}`)}}})
		if err != nil || !strings.Contains(string(out), want) {
			t.Errorf("Generate(%s) = %s, %v; want %q", lang, out, err, want)
		}
	}
}
