package planner

import (
	"encoding/json"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// FormatVersion is the version of the plan's JSON form (FORMAT.md). It
// changes only when a consumer would misread the new form; fields may be
// added without a change.
const FormatVersion = 1

// Plan is every change an apply would make to a project, each with its
// reasons. The text, JSON and Markdown views all render from it.
type Plan struct {
	FormatVersion int `json:"format_version"`
	// Project is the state scope planned (schema.Scope): the project's
	// name, or NAME/ENV for the project in an environment.
	Project string `json:"project"`
	// Env is the environment of Project, "" (absent) for the default one
	// (issue 12: environments).
	Env string `json:"environment,omitempty"`
	// Serial is the state serial the plan was made against.
	Serial int64 `json:"serial"`
	// Destroy: the plan deletes everything the project has.
	Destroy bool `json:"destroy,omitempty"`
	// DeletesAll: the plan deletes every resource of the project's state,
	// and it has at least one. Every view says so first.
	DeletesAll bool `json:"deletes_all,omitempty"`
	// DataLoss are the resources whose data the plan destroys (DataLoss),
	// sorted: every view names them at its top, and cc apply carries out
	// such a plan only when allowed to (--allow-data-loss).
	DataLoss []string `json:"data_loss,omitempty"`
	Summary  Summary  `json:"summary"`
	// Changes are the resources that change, sorted by address. A
	// resource that stays as it is has no Change.
	Changes []Change `json:"changes"`
	// Skipped are changes left out by --target or --exclude, by address.
	Skipped []string `json:"skipped,omitempty"`
	// Warnings are things a reviewer should know that change nothing.
	Warnings []string `json:"warnings,omitempty"`
	// RefreshOnly: the plan is `cc plan --refresh-only`: it has only its
	// Drift, which `cc apply --refresh-only` records as the project's
	// state, and no changes.
	RefreshOnly bool `json:"refresh_only,omitempty"`
	// Drift are the changes made outside cc since cc last applied each
	// resource (issue 10), by address: every view shows them in a
	// "Changed outside cc since the last apply" section before the plan.
	Drift []DriftChange `json:"drift,omitempty"`
	// Data are the configuration's data sources as the plan resolved them
	// (issue 10), sorted by address: what the apply uses, exactly.
	Data []DataSource `json:"data,omitempty"`
	// Outputs are the changes of the project's output values (issue 12),
	// sorted by name: every view shows them in a "Changes to Outputs:"
	// section, and an apply stores the configuration's outputs.
	Outputs []OutputChange `json:"output_changes,omitempty"`
}

// Summary counts a plan's changes.
type Summary struct {
	Create    int `json:"create"`
	Update    int `json:"update"`
	Replace   int `json:"replace"`
	Delete    int `json:"delete"`
	Unchanged int `json:"unchanged"`
	// NewVersions and ReusedVersions count the changes of functions and
	// datasets that make a new version and that make an existing one
	// current again.
	NewVersions    int `json:"new_versions"`
	ReusedVersions int `json:"reused_versions"`
	// NewRevisions counts the changes of scaling groups that append a
	// revision, which NewVersions leaves out (issue 11: scaling groups).
	NewRevisions int `json:"new_revisions,omitempty"`
	// Moved, Forget and Import count the resources that move to another
	// address (whatever else changes), are forgotten and are imported
	// (issue 10).
	Moved  int `json:"moved,omitempty"`
	Forget int `json:"forget,omitempty"`
	Import int `json:"import,omitempty"`
}

// Changed reports whether the plan changes anything.
func (p *Plan) Changed() bool { return len(p.Changes) > 0 || len(p.Outputs) > 0 }

// Change is what happens to one resource, and why.
type Change struct {
	Addr   string      `json:"address"`
	Kind   schema.Kind `json:"kind"`
	Action Action      `json:"action"`
	// MovedFrom is, for a resource a `moved` declaration renames, the
	// address the state has it at: apply moves it there first, keeping its
	// identity, then does Action (NoOp when nothing else changes).
	MovedFrom string `json:"moved_from,omitempty"`
	// ImportID is, for an import, the unowned resource's id (its name
	// among the unowned resources).
	ImportID string `json:"import_id,omitempty"`
	// Version is, for functions and datasets, the version the change
	// makes current.
	Version *VersionChange `json:"version,omitempty"`
	// SecretValue is, for secrets read from a local source, what happens
	// to the value: "set" (the first value), "changed", or "" (unchanged,
	// or not read here). Never the value.
	SecretValue string `json:"secret_value,omitempty"`
	// Reasons explain the change down to its cause; there is always one.
	Reasons []Reason `json:"reasons"`
	// ReplaceBecause names what forces a replacement: field paths, or
	// "--replace".
	ReplaceBecause []string `json:"replace_because,omitempty"`
	// Fields are the field-level changes of the spec.
	Fields []FieldChange `json:"fields,omitempty"`
	// Files are the changes of local files the resource uses.
	Files []FileChange `json:"files,omitempty"`
	// BeforeHash and AfterHash are the spec hashes; Before and After the
	// specs with every sensitive value replaced by "(sensitive)".
	BeforeHash string          `json:"before_hash,omitempty"`
	AfterHash  string          `json:"after_hash,omitempty"`
	Before     json.RawMessage `json:"before,omitempty"`
	After      json.RawMessage `json:"after,omitempty"`
	// DependsOn are the resources it refers to (after the change; before
	// it for a delete).
	DependsOn []string `json:"depends_on,omitempty"`
	// Needs are the changes of this plan that must be done before this one:
	// what it refers to first, and for a delete what referred to it.
	Needs []string `json:"needs,omitempty"`
	// Range is where the resource is declared.
	Range *diag.Range `json:"range,omitempty"`
	// Lifecycle is what the resource's lifecycle does to the change
	// (lifecycle.go): the protection it leaves, a replacement created
	// before the old resource is destroyed, values kept by ignore_changes;
	// nil when nothing.
	Lifecycle *LifecycleChange `json:"lifecycle,omitempty"`
}

// VersionChange is the version of a function or dataset a change makes
// current: a new one, or an existing one with the same content.
type VersionChange struct {
	// Action is "new" or "reuse".
	Action string `json:"action"`
	// Number is the version made current; for a new version, the number
	// it will get unless another apply comes first.
	Number int64 `json:"number"`
	// Current is the version current now, 0 when there is none.
	Current int64 `json:"current,omitempty"`
	// Forced: a new version is made even if one with this content and
	// these secret values exists (--new-version, or --replace of a
	// function); the service reuses the image and source it has.
	Forced bool `json:"forced,omitempty"`
}

// Reason explains a change. Code classifies it (FORMAT.md lists them);
// Message says it for a person, without any sensitive value.
type Reason struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Reason codes.
const (
	ReasonNew        = "new"         // new in the configuration
	ReasonRemoved    = "removed"     // no longer in the configuration
	ReasonDestroy    = "destroy"     // cc destroy
	ReasonReplaceReq = "replace"     // --replace
	ReasonImage      = "image"       // an image changed (the resource's own, or the one it uses)
	ReasonSource     = "source"      // a function's source files changed
	ReasonFile       = "file"        // a local file changed (dataset, copy, mounted file)
	ReasonSecret     = "secret"      // a secret's value changed
	ReasonDependency = "dependency"  // a resource it refers to changed
	ReasonField      = "field"       // a field of its own configuration changed
	ReasonReuse      = "reuse"       // content the service has already: an old version, an image
	ReasonSensitive  = "sensitive"   // a sensitive value changed
	ReasonSetting    = "state-only"  // something the state holds besides the spec changed
	ReasonNewVersion = "new-version" // a new version is forced (--new-version, --replace of a function)
	ReasonDrift      = "drift"       // changed outside cc since the last apply: put back
	ReasonExpired    = "expired"     // a sandbox expired or was terminated: created again
	ReasonData       = "data"        // a data source it uses resolves to something else now (issue 10)
	ReasonMoved      = "moved"       // a moved declaration renames it (issue 10)
	ReasonForget     = "forget"      // a removed declaration forgets it (issue 10)
	ReasonImport     = "import"      // an import declaration adopts it (issue 10)
	// ReasonNewRevision: a scaling group's change appends a revision,
	// and which fields make it (issue 11: scaling groups).
	ReasonNewRevision = "new-revision"
)

// FieldChange is one changed field of a spec. Path names it as
// "steps[2].pip.packages" or "env.LOG_LEVEL". Values are JSON; a
// sensitive field has neither.
type FieldChange struct {
	Path string `json:"path"`
	// Op is "added", "removed" or "changed".
	Op     string          `json:"op"`
	Before json.RawMessage `json:"before,omitempty"`
	After  json.RawMessage `json:"after,omitempty"`
	// Sensitive: the value came from a sensitive variable, or is a secret
	// value; it is never shown.
	Sensitive bool `json:"sensitive,omitempty"`
	// ForcesReplacement: this field's change is why the resource is
	// replaced.
	ForcesReplacement bool `json:"forces_replacement,omitempty"`
	// Diff is a unified line diff of a long or multi-line string.
	Diff string `json:"diff,omitempty"`
}

// FileChange is a changed local file: in a function's source, an image's
// copied tree or requirements file, a dataset, a sandbox's mounted files.
type FileChange struct {
	// Path is the file's path relative to the project root, or within the
	// copied tree.
	Path string `json:"path"`
	// Via says where the resource uses it: "source", "step 3 (copy src)",
	// "dataset", "mounted file".
	Via string `json:"via"`
	// Op is "added", "removed" or "changed".
	Op           string `json:"op"`
	BeforeDigest string `json:"before_digest,omitempty"`
	AfterDigest  string `json:"after_digest,omitempty"`
	// Diff is a unified line diff of the file, bounded in length.
	Diff string `json:"diff,omitempty"`
	// Note says why there is no diff (binary, content not available, mode
	// change only).
	Note string `json:"note,omitempty"`
}
