package applier

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"

	"cc.dev/cc/localfs"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// maxDiffContent is the largest file a plan shows a line diff of.
const maxDiffContent = 1 << 20

// content gives the planner file contents: new ones from the project's
// files on disk, old ones from the service's blobs. It is asked only about
// files that changed, so an unchanged plan makes no call through it.
type content struct {
	ctx     context.Context
	svc     Service
	project string
	// local maps a digest to a file of the project that should have it,
	// relative to the root; files is the policy it is read under.
	local map[string]string
	files *localfs.Policy
	built bool
	d     *schema.Desired
}

var _ planner.Content = (*content)(nil)

func newContent(ctx context.Context, svc Service, d *schema.Desired) *content {
	return &content{ctx: ctx, svc: svc, project: d.Project, d: d}
}

func (c *content) index() {
	if c.built {
		return
	}
	c.built = true
	c.local = map[string]string{}
	files, err := policyOf(c.d.Root)
	if err != nil {
		return // no local content: the diffs use the service's
	}
	c.files = files
	for i := range c.d.Resources {
		r := &c.d.Resources[i]
		for _, in := range r.Inputs {
			if !in.Tree {
				c.local[in.Digest] = in.Path
				continue
			}
			for _, e := range c.d.Trees[in.Digest] {
				if e.Mode == "link" {
					continue
				}
				c.local[e.Digest] = treeFile(c.d.Root, r.Kind, in.Path, e.Path)
			}
		}
	}
}

func (c *content) Tree(digest string) ([]schema.TreeEntry, bool) {
	if t, ok := c.d.Trees[digest]; ok {
		return t, true
	}
	b, ok := c.remote(digest)
	if !ok {
		return nil, false
	}
	var t []schema.TreeEntry
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, false
	}
	return t, true
}

func (c *content) File(digest string) ([]byte, bool) {
	c.index()
	if p, ok := c.local[digest]; ok {
		if b, ok := readVerified(c.files, p, digest); ok {
			return b, true
		}
	}
	return c.remote(digest)
}

func (c *content) remote(digest string) ([]byte, bool) {
	if c.svc == nil {
		return nil, false
	}
	b, err := c.svc.ReadBlob(c.ctx, c.project, digest, maxDiffContent)
	if err != nil || b.Truncated {
		return nil, false
	}
	return b.Data, true
}

// readVerified reads the file rel under the local-files policy (inside
// the root, not excluded, a regular file) if it is small and still has the
// digest.
func readVerified(files *localfs.Policy, rel, digest string) ([]byte, bool) {
	f, _, err := files.Open(rel)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxDiffContent+1))
	if err != nil || len(b) > maxDiffContent {
		return nil, false
	}
	sum := sha256.Sum256(b)
	if "sha256:"+hex.EncodeToString(sum[:]) != digest {
		return nil, false
	}
	return b, true
}
