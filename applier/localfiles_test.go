package applier_test

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cc.dev/cc/applier"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/schema"
)

// TestIssue16UploadsUnderPolicy: a desired state (a plan file's, say) that
// names as an input a file the compiler never hashes, .cc/'s state or a
// file through a link out of the root, uploads nothing: the applier reads
// local files under the one local-files policy. Issue 16 item 4.
func TestIssue16UploadsUnderPolicy(t *testing.T) {
	for _, tc := range []struct {
		name, path, want string
	}{
		{"state dir", ".cc/stolen", "is in .cc, cc's own state directory"},
		{"link out of the root", "out", "leaves the project root"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, _ := server(t)
			dir := t.TempDir()
			d := project(t, dir, workload.Options{N: 4})
			content := []byte("not for the service\n")
			outside := filepath.Join(t.TempDir(), "secret")
			for p, link := range map[string]string{filepath.Join(dir, ".cc", "stolen"): "", outside: "", filepath.Join(dir, "out"): outside} {
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				var err error
				if link != "" {
					err = os.Symlink(link, p)
				} else {
					err = os.WriteFile(p, content, 0o644)
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			sum := sha256.Sum256(content)
			digest := "sha256:" + hex.EncodeToString(sum[:])
			var r *schema.Resource
			for i := range d.Resources {
				if len(d.Resources[i].Inputs) > 0 {
					r = &d.Resources[i]
					break
				}
			}
			if r == nil {
				t.Fatal("no resource with inputs")
			}
			r.Inputs = append(r.Inputs, schema.Input{Path: tc.path, Digest: digest})
			a := newApplier(t, cl, d, applier.WithParallelism(1))
			_, res := applyAll(t, a, d)
			if err := res.Err(); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Apply() = %v, want an error that says %q", err, tc.want)
			}
			if missing, err := cl.MissingBlobs(t.Context(), d.Project, []string{digest}); err != nil || len(missing) != 1 {
				t.Errorf("the service has %s (missing %v, %v): it was uploaded", tc.path, missing, err)
			}
		})
	}
}
