package applier

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"

	"cc.dev/cc/localfs"
	"cc.dev/cc/schema"
)

// blob is content a resource needs the service to have: a local file, a
// link's target text, or a tree's listing (canonical JSON, whose digest
// is the tree's).
type blob struct {
	digest string
	size   int64
	// files and rel name a local file; data is the content of anything
	// else.
	files *localfs.Policy
	rel   string
	data  []byte
	// name is what to call it in messages: a path relative to the root.
	name string
}

// open opens the blob's content. A file is opened under the local-files
// policy (localfs.Policy.Open): inside the root, symbolic links included,
// not excluded, a regular file, so a plan file naming .cc/, a path through
// a link out of the root or a FIFO uploads nothing.
func (b *blob) open() (io.ReadCloser, error) {
	if b.files == nil {
		return io.NopCloser(bytes.NewReader(b.data)), nil
	}
	f, _, err := b.files.Open(b.rel)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// policyOf is the local-files policy of a project root.
func policyOf(root string) (*localfs.Policy, error) {
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, fmt.Errorf("project root: %w", unwrapPath(err))
	}
	return localfs.New(real)
}

// blobsOf lists the blobs of a resource's local inputs, by digest.
func blobsOf(d *schema.Desired, r *schema.Resource) (map[string]*blob, error) {
	out := map[string]*blob{}
	if len(r.Inputs) == 0 {
		return out, nil
	}
	files, err := policyOf(d.Root)
	if err != nil {
		return nil, err
	}
	for _, in := range r.Inputs {
		if !in.Tree {
			b, err := fileBlob(files, in.Path, in.Digest)
			if err != nil {
				return nil, err
			}
			out[in.Digest] = b
			continue
		}
		entries, ok := d.Trees[in.Digest]
		if !ok {
			return nil, fmt.Errorf("%s: the desired state has no listing of tree %s", in.Path, in.Digest)
		}
		listing, err := schema.Canonical(entries)
		if err != nil {
			return nil, err
		}
		out[in.Digest] = &blob{digest: in.Digest, size: int64(len(listing)), data: listing, name: in.Path + " (file list)"}
		for _, e := range entries {
			rel := treeFile(d.Root, r.Kind, in.Path, e.Path)
			if e.Mode != "link" {
				// Checked when opened, if the service does not have it.
				out[e.Digest] = &blob{digest: e.Digest, size: e.Size, files: files, rel: rel, name: rel}
				continue
			}
			target, err := files.Readlink(rel)
			if err != nil {
				return nil, err
			}
			out[e.Digest] = &blob{digest: e.Digest, size: int64(len(target)), data: []byte(target), name: rel}
		}
	}
	return out, nil
}

// fileBlob is the local file rel as a blob, checked under the policy now
// (for its size) and again when it is opened.
func fileBlob(files *localfs.Policy, rel, digest string) (*blob, error) {
	f, fi, err := files.Open(rel)
	if err != nil {
		return nil, err
	}
	f.Close()
	return &blob{digest: digest, size: fi.Size(), files: files, rel: rel, name: rel}, nil
}

// treeFile is where an entry of a tree input is, relative to the root: a
// function's source lists paths from the root; a copied tree lists them
// from its source (a single copied file by its base name).
func treeFile(root string, k schema.Kind, input, entry string) string {
	if k == schema.KindFunction {
		return entry
	}
	if entry == path.Base(input) {
		if fi, err := os.Stat(filepath.Join(root, filepath.FromSlash(input))); err == nil && !fi.IsDir() {
			return input
		}
	}
	return path.Join(input, entry)
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}

func sortedDigests(m map[string]*blob) []string {
	out := make([]string, 0, len(m))
	for d := range m {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}
