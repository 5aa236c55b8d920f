package state

import "cc.dev/cc/schema"

// Data sources (issue 10): a plan resolves each of a configuration's data
// sources, resources of the reserved project "-" that no project owns, in
// the one read of the project's state; a resource keeps what each data
// source it uses resolved to when it was applied.

// DataLookup names a data source to resolve: the unowned resource of Kind
// and Name, at Version (a dataset's revision or a function's version; 0:
// the current one).
type DataLookup struct {
	Kind    schema.Kind
	Name    string
	Version int64
}

// DataResult is what a data source resolved to. Found is false when the
// service has no such resource (or not that version of it).
type DataResult struct {
	Found bool
	// Address is the unowned resource's, "kind.name".
	Address string
	// Hash is its spec's hash (of the version resolved); "" for a secret
	// that has a value and no spec.
	Hash string
	// Version is the dataset's or function's version resolved, a secret's
	// value revision (0: none), 0 for a volume.
	Version int64
}

// DataResolved is a lookup with its result.
type DataResolved struct {
	DataLookup
	DataResult
}

// DataPin is what a data source a resource uses resolved to when the
// resource was applied.
type DataPin struct {
	// Address is the data source's, "data.KIND.NAME"; Target the unowned
	// resource's, "kind.name".
	Address string
	Target  string
	Version int64
	Hash    string
	// Pinned: the configuration asked for Version.
	Pinned bool
}

// Resolved returns what the lookup resolved to in the read of p, and
// false when the read did not resolve it.
func (p *Project) Resolved(l DataLookup) (DataResult, bool) {
	if p == nil {
		return DataResult{}, false
	}
	for _, d := range p.Data {
		if d.DataLookup == l {
			return d.DataResult, true
		}
	}
	return DataResult{}, false
}
