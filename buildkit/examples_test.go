package buildkit

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/compiler"
	"cc.dev/cc/internal/golden"
)

// TestExamplesGolden converts every image of every example, in both
// languages, and pins the marshalled LLB and the printed Dockerfile.
func TestExamplesGolden(t *testing.T) {
	ctx := context.Background()
	dirs, err := filepath.Glob(filepath.Join("..", "examples", "*", "main.cue"))
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, cue := range dirs {
		dir := filepath.Dir(cue)
		example := filepath.Base(dir)
		var printed map[string]string
		for _, lang := range []string{"cue", "hcl"} {
			res, err := compiler.Compile(ctx, compiler.Input{Path: filepath.Join(dir, "main."+lang)})
			if err != nil {
				t.Fatalf("Compile(%s, %s) = %v", example, lang, err)
			}
			imgs, err := Images(res.Desired)
			if err != nil {
				t.Fatal(err)
			}
			c := &Converter{Root: res.Desired.Root, Resolver: fakeResolver{}, LocalID: "cc-test", Bases: map[string]*Definition{}}
			got := map[string]string{}
			for _, img := range imgs {
				d, err := c.Convert(ctx, img)
				if err != nil {
					t.Fatalf("%s %s: Convert(%s) = %v", example, lang, img.Address, err)
				}
				c.Bases[img.Hash] = d
				def, err := d.Marshal(ctx)
				if err != nil {
					t.Fatal(err)
				}
				df, err := Dockerfile(img, imgs, res.Desired.Root)
				if err != nil {
					t.Fatalf("%s %s: Dockerfile(%s) = %v", example, lang, img.Address, err)
				}
				name := "examples/" + example + "." + strings.TrimPrefix(img.Address, "image.")
				got[name+".llb"] = string(dumpLLB(t, def))
				got[name+".Dockerfile"] = string(df)
			}
			if printed == nil {
				printed = got
				for name, b := range got {
					golden.Check(t, goldenFile(name), []byte(b))
				}
				continue
			}
			for name, b := range got {
				if printed[name] != b {
					t.Errorf("%s: HCL gives other LLB or Dockerfile than CUE", name)
				}
			}
		}
	}
}
