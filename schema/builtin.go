package schema

import "strings"

// The built-in images (issue 11: image shorthands): every project may use
// them as bases or as a workload's image without declaring them, in CUE as
// images.debian_slim and images.sandbox, in HCL as image.debian_slim and
// image.sandbox. They are ordinary images once compiled: content-hashed,
// addressed image.NAME, built and printed like a declared one. Their names
// are reserved: a project cannot declare an image of either name.

// DebianSlimBase is the base of the built-in debian_slim image: seed A's
// Image.debian_slim().
const DebianSlimBase = "python:3.14-slim-trixie"

// DefaultSandboxImage names the built-in image a sandbox without an image
// runs: seed A's Image.sandbox().
const DefaultSandboxImage = "sandbox"

// BuiltinImageNames lists the built-in images' names, sorted.
var BuiltinImageNames = []string{"debian_slim", DefaultSandboxImage}

// IsBuiltinImage reports whether name refers to a built-in image: by its
// name (debian_slim) or its resource name (debian-slim, the address plans
// show), so a reference may use either.
func IsBuiltinImage(name string) bool { return CanonicalBuiltin(name) != "" }

// CanonicalBuiltin is the name of the built-in image name refers to
// (debian_slim for debian-slim too), "" when none.
func CanonicalBuiltin(name string) string {
	for _, b := range BuiltinImageNames {
		if name == b || name == BuiltinImageName(b) {
			return b
		}
	}
	return ""
}

// BuiltinImageName is the resource name of the built-in image referred to
// as ref: a platform name is a DNS label, so debian_slim (seed A's name,
// an identifier in both languages) is the image debian-slim, addressed
// image.debian-slim.
func BuiltinImageName(ref string) string { return strings.ReplaceAll(ref, "_", "-") }

// ReservedImageName reports whether a project may not declare an image
// of that name: a built-in image's, as referred to or as a resource.
func ReservedImageName(name string) bool { return IsBuiltinImage(name) }

// BuiltinImage returns a fresh copy of the built-in image of that name, nil
// when there is none.
//
//   - debian_slim is Python on Debian slim, python:3.14-slim-trixie (seed
//     A Image.debian_slim()).
//   - sandbox is debian_slim with git, ca-certificates and the OpenSSH
//     client installed, working in /workspace (seed A Image.sandbox()); it
//     is built from the registry base directly, one image.
func BuiltinImage(name string) *Image {
	switch CanonicalBuiltin(name) {
	case "debian_slim":
		return &Image{From: &ImageFrom{Ref: DebianSlimBase}}
	case DefaultSandboxImage:
		return &Image{
			From: &ImageFrom{Ref: DebianSlimBase},
			Steps: []Step{
				{Apt: &PackagesStep{Packages: []string{"git", "ca-certificates", "openssh-client"}}},
				{Workdir: &PathStep{Path: "/workspace"}},
			},
		}
	}
	return nil
}
