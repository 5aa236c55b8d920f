package schema

import "embed"

// Files are the schema's CUE sources, all in package schema.
//
//go:embed *.cue
var Files embed.FS

// FileNames lists the schema files in a stable order.
var FileNames = []string{"config.cue", "image.cue", "secret.cue", "workload.cue", "container.cue", "training.cue", "evaluation.cue", "data.cue", "lifecycle.cue", "defaults.cue", "scaling.cue", "suite.cue"}
