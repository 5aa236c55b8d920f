package buildkit

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/moby/buildkit/solver/pb"
	"github.com/tonistiigi/fsutil"
	"google.golang.org/protobuf/proto"

	"cc.dev/cc/compiler"
	"cc.dev/cc/schema"
)

// ignoreProject writes a project with a from_dockerfile image whose context
// (tool/) and a copied directory (src/) hold files that ignore files leave
// out, and returns its directory. ignores maps an ignore file's path to
// its content.
func ignoreProject(t *testing.T, ignores map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"main.cue": `package p
project: "p"
images: tool: from_dockerfile: "tool/Dockerfile"
images: app: {
	from: "busybox:1.36@sha256:` + strings.Repeat("a", 64) + `"
	steps: [{copy: {src: "src", dst: "/app"}}]
}
`,
		"tool/Dockerfile":         "FROM busybox:1.36@sha256:" + strings.Repeat("a", 64) + "\nCOPY . /ctx\n",
		"tool/kept.txt":           "kept\n",
		"tool/ignored.txt":        "ignored\n",
		"tool/secret.env":         "TOKEN=1\n",
		"tool/keep.env":           "KEEP=1\n",
		"tool/build/out.o":        "o\n",
		"tool/build/keep.txt":     "keep\n",
		"tool/cache/blob":         "blob\n",
		"tool/sub/deep.env":       "DEEP=1\n",
		"tool/sub/a[1].txt":       "bracket\n",
		"tool/sub/!bang.txt":      "bang\n",
		"tool/node_modules/x.js":  "x\n",
		"src/app.py":              "print(1)\n",
		"src/debug.log":           "log\n",
		"src/local.env":           "LOCAL=1\n",
		"src/vendor/lib.py":       "lib\n",
		"src/vendor/vendored.log": "log\n",
	}
	for name, body := range ignores {
		files[name] = body
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("kept.txt", filepath.Join(dir, "tool", "link")); err != nil {
		t.Fatal(err)
	}
	return dir
}

// ignoreCases are the ignore files the tests try: exceptions in the
// root's file, in the directory's own, in both, in neither.
var ignoreCases = []struct {
	name    string
	ignores map[string]string
	// out are paths (from the root) neither the hash nor the build holds.
	out []string
}{
	{"root only", map[string]string{".ccignore": "**/*.env\ntool/cache\n"},
		[]string{"tool/secret.env", "tool/sub/deep.env", "tool/cache/blob", "src/local.env"}},
	{"context and copy own files", map[string]string{
		".ccignore":          "**/*.env\n",
		"tool/.dockerignore": "ignored.txt\nbuild\n!build/keep.txt\nnode_modules\nsub/a[[]1].txt\n",
		"src/.ccignore":      "*.log\n",
	}, []string{"tool/ignored.txt", "tool/secret.env", "tool/build/out.o", "tool/node_modules/x.js", "tool/sub/a[1].txt", "src/debug.log", "src/local.env"}},
	{"exceptions at the root", map[string]string{
		".ccignore":          "**/*.env\n!tool/keep.env\ntool/build\n!tool/build/keep.txt\n",
		"tool/.dockerignore": "ignored.txt\nsub/!bang.txt\n",
		"src/.ccignore":      "vendor\n",
	}, []string{"tool/ignored.txt", "tool/secret.env", "tool/build/out.o", "tool/sub/deep.env", "tool/sub/!bang.txt", "src/vendor/lib.py", "src/local.env"}},
	{"root patterns that cannot be moved under the context", map[string]string{
		".ccignore":          "*/cache\nt*/sub/*.env\nother/kept.txt\n**/secret.env\n",
		"tool/.dockerignore": "ignored.txt\n!kept.txt\n",
	}, []string{"tool/cache/blob", "tool/secret.env", "tool/sub/deep.env", "tool/ignored.txt"}},
	{"exceptions in both files", map[string]string{
		".ccignore":          "**/*.env\n!tool/keep.env\n",
		"tool/.dockerignore": "build\n!build/keep.txt\n",
		"src/.ccignore":      "vendor\n!vendor/lib.py\n",
	}, []string{"tool/secret.env", "tool/sub/deep.env", "tool/build/out.o", "src/vendor/vendored.log", "src/local.env"}},
	{"the context's own file cannot bring back what the root's leaves out", map[string]string{
		".ccignore":          "**/*.env\n",
		"tool/.dockerignore": "*.txt\n!secret.env\n!kept.txt\n",
		"src/.ccignore":      "**\n!app.py\n!local.env\n",
	}, []string{"tool/ignored.txt", "tool/secret.env", "tool/sub/deep.env", "src/debug.log", "src/local.env", "src/vendor/lib.py"}},
}

// TestIssue16BuildSendsWhatIsHashed: for each image, the files BuildKit's
// file sync (fsutil, as buildkitd's session runs it, with the local
// source's attributes from the marshalled LLB) sends for a from_dockerfile
// context and for a copied directory are exactly the tree the compiler
// hashed. Issue 16 item 4: the compiler hashed the context with the root's
// .ccignore while the build sent it with the context's own ignore file.
func TestIssue16BuildSendsWhatIsHashed(t *testing.T) {
	ctx := context.Background()
	for _, tc := range ignoreCases {
		t.Run(tc.name, func(t *testing.T) {
			dir := ignoreProject(t, tc.ignores)
			res, err := compiler.Compile(ctx, compiler.Input{Path: filepath.Join(dir, "main.cue")})
			if err != nil {
				t.Fatalf("Compile() = %v", err)
			}
			imgs, err := Images(res.Desired)
			if err != nil {
				t.Fatal(err)
			}
			c := &Converter{Root: res.Desired.Root, Resolver: fakeResolver{}, LocalID: "cc-test", Bases: map[string]*Definition{}}
			for _, img := range imgs {
				d, err := c.Convert(ctx, img)
				if err != nil {
					t.Fatalf("Convert(%s) = %v", img.Address, err)
				}
				def, err := d.Marshal(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var tree, prefix string
				switch {
				case img.Spec.FromDockerfile != nil:
					tree = img.Spec.FromDockerfile.Context
				default:
					tree, prefix = img.Spec.Steps[0].Copy.Digest, "src/"
				}
				hashed := treePaths(res.Desired.Trees[tree])
				sent := sentPaths(t, def.Def, d.Locals, res.Desired.Root, prefix)
				if diff := cmp.Diff(hashed, sent); diff != "" {
					t.Errorf("%s: hashed tree (-) and files BuildKit sends (+) differ:\n%s", img.Address, diff)
				}
				for _, p := range tc.out {
					rel, ok := strings.CutPrefix(p, map[bool]string{true: "tool/", false: "src/"}[img.Spec.FromDockerfile != nil])
					if ok && contains(hashed, rel) {
						t.Errorf("%s: %s is hashed and sent; its ignore files leave it out", img.Address, p)
					}
				}
			}
		})
	}
}

func treePaths(entries []schema.TreeEntry) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e.Path)
	}
	sort.Strings(out)
	return out
}

// sentPaths runs BuildKit's file sync over the one local source of def,
// with its attributes, and lists the files and links it sends (without
// prefix, which they all must have).
func sentPaths(t *testing.T, def [][]byte, locals map[string]string, root, prefix string) []string {
	t.Helper()
	var attrs map[string]string
	var name string
	for _, dt := range def {
		var op pb.Op
		if err := proto.Unmarshal(dt, &op); err != nil {
			t.Fatal(err)
		}
		if s := op.GetSource(); s != nil && strings.HasPrefix(s.GetIdentifier(), "local://") {
			if attrs != nil {
				t.Fatalf("more than one local source")
			}
			attrs, name = s.GetAttrs(), strings.TrimPrefix(s.GetIdentifier(), "local://")
		}
	}
	if attrs == nil {
		t.Fatal("no local source")
	}
	t.Logf("local://%s %s", name, attrs[pb.AttrExcludePatterns])
	var opt fsutil.FilterOpt
	for key, dst := range map[string]*[]string{pb.AttrExcludePatterns: &opt.ExcludePatterns, pb.AttrFollowPaths: &opt.FollowPaths, pb.AttrIncludePatterns: &opt.IncludePatterns} {
		if v, ok := attrs[key]; ok {
			if err := json.Unmarshal([]byte(v), dst); err != nil {
				t.Fatal(err)
			}
		}
	}
	base, err := fsutil.NewFS(filepath.Join(root, filepath.FromSlash(locals[name])))
	if err != nil {
		t.Fatal(err)
	}
	ffs, err := fsutil.NewFilterFS(base, &opt)
	if err != nil {
		t.Fatal(err)
	}
	out := []string{}
	err = ffs.Walk(context.Background(), string(filepath.Separator), func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		p = filepath.ToSlash(strings.TrimPrefix(p, string(filepath.Separator)))
		rel, ok := strings.CutPrefix(p, prefix)
		if !ok {
			t.Errorf("BuildKit sends %s, outside %s", p, prefix)
		}
		out = append(out, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
