package buildkit

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// Image is one image of a project to build.
type Image struct {
	Address string
	Aliases []string
	// Hash is the image's content hash ("sha256:...").
	Hash string
	Spec schema.ImageSpec
	// Ranges maps JSON pointers into Spec ("/steps/2") to where that part is
	// declared, for errors.
	Ranges map[string]*diag.Range
	// Sensitive says the image, or an image it is built from, holds a value
	// of a sensitive variable. Its hash is made without the value, so an
	// image with the same hash built before may hold another: such an image
	// is always built, never reused by its tag or record.
	Sensitive bool
	// pointers are the JSON pointers of the image's own sensitive values;
	// secrets, their text and that of the images it is built from: what
	// build progress and errors never show.
	pointers []string
	secrets  []string
}

// sensitiveAt reports whether a sensitive value is at or under pointer.
func (img *Image) sensitiveAt(pointer string) bool {
	for _, p := range img.pointers {
		if p == pointer || strings.HasPrefix(p, pointer+"/") {
			return true
		}
	}
	return false
}

// scrub replaces the sensitive values in text.
func (img *Image) scrub(text string) string {
	for _, s := range img.secrets {
		if len(s) >= 3 {
			text = strings.ReplaceAll(text, s, "(sensitive value)")
		}
	}
	return text
}

// Range returns where the part of the spec at pointer is declared, falling
// back to enclosing parts ("/steps/2/run" to "/steps/2"), or nil.
func (img *Image) Range(pointer string) *diag.Range {
	for p := pointer; p != ""; {
		if r := img.Ranges[p]; r != nil {
			return r
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			break
		}
		p = p[:i]
	}
	return img.Ranges[""]
}

// Images returns the images of a compiled project, bases before the images
// built from them and otherwise by address.
func Images(d *schema.Desired) ([]*Image, error) {
	var imgs []*Image
	for i := range d.Resources {
		r := &d.Resources[i]
		if r.Kind != schema.KindImage {
			continue
		}
		img := &Image{Address: r.Address, Aliases: r.Aliases, Hash: r.Hash, Ranges: r.Ranges, Sensitive: len(r.Sensitive) > 0, pointers: r.Sensitive}
		for _, p := range r.Sensitive {
			if v, ok := schema.SensitiveValue(r.Spec, p); ok {
				var s string
				if json.Unmarshal(v, &s) == nil {
					img.secrets = append(img.secrets, s)
				} else {
					img.secrets = append(img.secrets, string(v))
				}
			}
		}
		if err := json.Unmarshal(r.Spec, &img.Spec); err != nil {
			return nil, fmt.Errorf("%s: decode spec: %w", r.Address, err)
		}
		if img.Ranges == nil && r.Range != nil {
			img.Ranges = map[string]*diag.Range{"": r.Range}
		}
		imgs = append(imgs, img)
	}
	out, err := order(imgs)
	if err != nil {
		return nil, err
	}
	byHash := map[string]*Image{}
	for _, img := range out { // bases first
		if b := byHash[img.Spec.FromImage]; b != nil && b.Sensitive {
			img.Sensitive = true
			img.secrets = append(img.secrets, b.secrets...)
		}
		byHash[img.Hash] = img
	}
	return out, nil
}

// order sorts imgs topologically by from_image, ties by address.
func order(imgs []*Image) ([]*Image, error) {
	sort.Slice(imgs, func(i, j int) bool { return imgs[i].Address < imgs[j].Address })
	byHash := map[string]*Image{}
	for _, img := range imgs {
		byHash[img.Hash] = img
	}
	const (
		visiting = 1
		done     = 2
	)
	state := map[*Image]int{}
	var out []*Image
	var visit func(img *Image) error
	visit = func(img *Image) error {
		switch state[img] {
		case done:
			return nil
		case visiting:
			return fmt.Errorf("%s: image is its own base", img.Address)
		}
		state[img] = visiting
		if h := img.Spec.FromImage; h != "" {
			base := byHash[h]
			if base == nil {
				return fmt.Errorf("%s: base image %s is not in the project", img.Address, h)
			}
			if err := visit(base); err != nil {
				return err
			}
		}
		state[img] = done
		out = append(out, img)
		return nil
	}
	for _, img := range imgs {
		if err := visit(img); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Select returns the images named by addrs ("image.app", "app", or an
// alias) with the bases they are built from, in build order; all images when
// addrs is empty.
func Select(imgs []*Image, addrs []string) ([]*Image, error) {
	if len(addrs) == 0 {
		return imgs, nil
	}
	byName := map[string]*Image{}
	byHash := map[string]*Image{}
	var names []string
	for _, img := range imgs {
		byHash[img.Hash] = img
		for _, a := range append([]string{img.Address}, img.Aliases...) {
			a = strings.TrimPrefix(a, "image.")
			byName[a] = img
			names = append(names, "image."+a)
		}
	}
	want := map[*Image]bool{}
	for _, a := range addrs {
		img := byName[strings.TrimPrefix(a, "image.")]
		if img == nil {
			msg := fmt.Sprintf("no image %q in the project", a)
			if s := diag.Suggest(a, names); s != "" {
				msg += fmt.Sprintf("; did you mean %q?", s)
			}
			return nil, fmt.Errorf("%s", msg)
		}
		for ; img != nil; img = byHash[img.Spec.FromImage] {
			want[img] = true
		}
	}
	var out []*Image
	for _, img := range imgs {
		if want[img] {
			out = append(out, img)
		}
	}
	return out, nil
}

// Tag is the registry tag of an image with content hash h: "cc-" and the
// first 32 hex digits (128 bits) of the hash.
func Tag(h string) string {
	hex := strings.TrimPrefix(h, "sha256:")
	if len(hex) > 32 {
		hex = hex[:32]
	}
	return "cc-" + hex
}
