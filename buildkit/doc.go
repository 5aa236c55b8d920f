// Package buildkit previews a project's images: it turns compiled image specs
// into BuildKit LLB (not by way of a Dockerfile), solves them against a
// buildkitd, exports an OCI tarball or pushes to a registry, and skips what
// is already built by looking for the content-hash tag cc-<hash> first. It
// also prints an equivalent Dockerfile and pins floating base references
// to digests for cc.lock.
//
// A program that embeds cc uses it after compiler.Compile, and apart from
// plan and apply (which need no build):
//
//   - Images lists the images of a *schema.Desired, bases first; Select
//     keeps the ones named (and the bases they need).
//   - New makes a Builder for a buildkitd address (DefaultAddress, or
//     $BUILDKIT_HOST as cc build reads it); WithRegistry gives it the
//     registry settings, WithTLS the CA, client certificate and key of a
//     shared buildkitd on tcp:// (TLS.Check checks them first; TLSDir reads
//     them from a directory as buildctl --tlsdir does). Builder.Build builds a Request (the project root,
//     the images, where to push or the OCI tarball to write) and returns a
//     Result per image, Reused when its cc-<hash> tag already existed; a
//     failed step is a *BuildError naming the image and step. Close it
//     when done.
//   - Dockerfile prints the Dockerfile equivalent of an image.
//   - Lock resolves floating base references to digests: the
//     *schema.Lock cc lock writes to cc.lock, which compiler.Compile reads.
//
// The LLB conversion itself (Converter, Definition, StepOf, CommandOf) and
// the script helpers serve this package's own tests and cc build.
package buildkit
