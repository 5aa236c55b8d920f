// Package schema holds the configuration schema (CUE, embedded), the Go
// types that mirror it, and the Go types of the Desired state the compiler
// produces. It is plain data: no I/O beyond the embedded files.
package schema

import "embed"

// Files are the schema's CUE sources, all in package schema.
//
//go:embed *.cue
var Files embed.FS

// FileNames lists the schema files in a stable order.
var FileNames = []string{"config.cue", "image.cue", "secret.cue", "workload.cue", "container.cue", "training.cue", "evaluation.cue", "data.cue", "lifecycle.cue", "defaults.cue", "scaling.cue", "suite.cue"}
