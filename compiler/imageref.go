package compiler

import (
	"fmt"

	"github.com/distribution/reference"
)

// checkImageRef checks a base image reference against the reference
// grammar the registries and BuildKit use (github.com/distribution/reference,
// with Docker Hub's short names): "python:3.12-slim",
// "localhost:5000/team/app:1.0", "ghcr.io/org/app@sha256:...". The schema's
// #ImageRef is only a coarse check that never refuses a valid reference;
// this is the exact one, in the grammar's own words (issue 9 item 5).
func checkImageRef(ref string) error {
	if _, err := reference.ParseNormalizedNamed(ref); err != nil {
		return fmt.Errorf("invalid image reference %q: %v", ref, err)
	}
	return nil
}
