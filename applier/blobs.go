package applier

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"

	"cc.dev/cc/schema"
)

// blob is content a resource needs the service to have: a local file, a
// link's target text, or a tree's listing (canonical JSON, whose digest
// is the tree's).
type blob struct {
	digest string
	size   int64
	// file is the absolute path of a file; data the content of anything
	// else.
	file string
	data []byte
	// name is what to call it in messages: a path relative to the root.
	name string
}

func (b *blob) open() (io.ReadCloser, error) {
	if b.file == "" {
		return io.NopCloser(bytes.NewReader(b.data)), nil
	}
	return os.Open(b.file)
}

// blobsOf lists the blobs of a resource's local inputs, by digest.
func blobsOf(d *schema.Desired, r *schema.Resource) (map[string]*blob, error) {
	out := map[string]*blob{}
	for _, in := range r.Inputs {
		if !in.Tree {
			abs, err := inside(d.Root, in.Path)
			if err != nil {
				return nil, err
			}
			fi, err := os.Stat(abs)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", in.Path, unwrapPath(err))
			}
			out[in.Digest] = &blob{digest: in.Digest, size: fi.Size(), file: abs, name: in.Path}
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
			abs, err := inside(d.Root, rel)
			if err != nil {
				return nil, err
			}
			b := &blob{digest: e.Digest, size: e.Size, file: abs, name: rel}
			if e.Mode == "link" {
				target, err := os.Readlink(abs)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", rel, unwrapPath(err))
				}
				b.file, b.data, b.size = "", []byte(target), int64(len(target))
			}
			out[e.Digest] = b
		}
	}
	return out, nil
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

func inside(root, rel string) (string, error) {
	abs := filepath.Join(root, filepath.FromSlash(rel))
	r, err := filepath.Rel(root, abs)
	if err != nil || r == ".." || len(r) > 2 && r[:3] == "../" {
		return "", fmt.Errorf("%s is outside the project root", rel)
	}
	return abs, nil
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

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
