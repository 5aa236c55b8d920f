package applier

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"

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
	// local maps a digest to a file of the project that should have it.
	local map[string]string
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
	for i := range c.d.Resources {
		r := &c.d.Resources[i]
		for _, in := range r.Inputs {
			if !in.Tree {
				if abs, err := inside(c.d.Root, in.Path); err == nil {
					c.local[in.Digest] = abs
				}
				continue
			}
			for _, e := range c.d.Trees[in.Digest] {
				if e.Mode == "link" {
					continue
				}
				if abs, err := inside(c.d.Root, treeFile(c.d.Root, r.Kind, in.Path, e.Path)); err == nil {
					c.local[e.Digest] = abs
				}
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
		if b, ok := readVerified(p, digest); ok {
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

// readVerified reads a file if it is small and still has the digest.
func readVerified(p, digest string) ([]byte, bool) {
	f, err := os.Open(p)
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
