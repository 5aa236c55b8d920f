package schema

// Process is what a workload that runs an image (a sandbox, a container,
// a scaling group, a training) sets of its process beside its command:
// entrypoint replaces the image's ENTRYPOINT (and its CMD, unless args),
// args replace its CMD (#Sandbox's command, entrypoint and args). The
// compiler folds them into the spec's command and args.
type Process struct {
	Entrypoint []string `json:"entrypoint,omitempty"`
	// Args is a pointer: args = [] (the image's ENTRYPOINT without its
	// CMD) is not args unset.
	Args *[]string `json:"args,omitempty"`
}
