//go:build tools

// Package tools pins the BuildKit daemon and client that .ci/test builds for
// the end-to-end tests. BuildKit's go.mod has exclude directives, so
// `go install pkg@version` refuses it; building inside this module works.
package tools

import (
	_ "github.com/moby/buildkit/cmd/buildctl"
	_ "github.com/moby/buildkit/cmd/buildkitd"
)
