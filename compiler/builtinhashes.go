package compiler

import (
	"cc.dev/cc/schema"
)

// BuiltinImageHashes maps the hash each built-in image (image.sandbox,
// image.debian_slim) has in the project at root, its base pinned by the
// project's cc.lock as the compiler pins it, to its reference
// ("image.sandbox"). Generated configuration (cc plan
// --generate-config-out) needs them: an imported sandbox may run a
// built-in image the configuration never names, and a built-in is never
// declared, only referred to (issue 11).
func BuiltinImageHashes(root string) (map[string]string, error) {
	lock, err := readLock(root)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for _, name := range schema.BuiltinImageNames {
		img := schema.BuiltinImage(name)
		spec := &schema.ImageSpec{From: img.From.Ref, Steps: img.Steps}
		if d, ok := lock.Bases[spec.From]; ok {
			spec.From += "@" + d
		}
		h, _, err := schema.HashOf(spec)
		if err != nil {
			return nil, err
		}
		out[h] = schema.Address(schema.KindImage, name)
	}
	return out, nil
}

// builtinRef is the reference to the image at addr as configuration
// writes it: a built-in by its name (image.debian_slim, not the resource
// name image.debian-slim, which no language reads as a reference).
func builtinRef(addr string) string {
	k, name, _ := cutAddr(addr)
	if b := schema.CanonicalBuiltin(name); k == schema.KindImage && b != "" {
		return schema.Address(schema.KindImage, b)
	}
	return addr
}
