package schema

import (
	"encoding/json"
	"strings"

	"cc.dev/cc/diag"
)

// FormatVersion is the version of the Desired state's JSON form. It changes
// only when a consumer would misread the new form.
const FormatVersion = 1

// Kind is a kind of resource.
type Kind string

const (
	KindImage      Kind = "image"
	KindSecret     Kind = "secret"
	KindVolume     Kind = "volume"
	KindDataset    Kind = "dataset"
	KindSuite      Kind = "suite"
	KindSandbox    Kind = "sandbox"
	KindFunction   Kind = "function"
	KindEvaluation Kind = "evaluation"
	KindContainer  Kind = "container"
	KindTraining   Kind = "training"
	// KindScalingGroup is a stable parent with immutable revisions
	// (issue 11: scaling groups).
	KindScalingGroup Kind = "scaling_group"
)

// Kinds lists every kind in dependency order: a kind only refers to kinds
// before it.
var Kinds = []Kind{KindImage, KindSecret, KindVolume, KindDataset, KindSuite, KindFunction, KindSandbox, KindContainer, KindScalingGroup, KindTraining, KindEvaluation}

// Plural is the kind's collection name in CUE ("sandboxes").
func (k Kind) Plural() string {
	if k == KindSandbox {
		return "sandboxes"
	}
	return string(k) + "s"
}

// Versioned reports whether the service keeps immutable versions of the
// kind: functions (versions), datasets and scaling groups (revisions).
func (k Kind) Versioned() bool {
	return k == KindFunction || k == KindDataset || k == KindScalingGroup
}

// ReusesVersions reports whether a change of the versioned kind back to
// the content of an earlier version makes that version current again
// (functions, datasets). A scaling group never does: every applied change
// appends a revision, and only an unchanged spec keeps the current one
// (issue 11: scaling groups).
func (k Kind) ReusesVersions() bool { return k.Versioned() && k != KindScalingGroup }

// VersionNoun is what the plan and the CLI call a version of the kind:
// "revision" for a scaling group, as its SDK does, else "version".
func (k Kind) VersionNoun() string {
	if k == KindScalingGroup {
		return "revision"
	}
	return "version"
}

// Noun is how a message names one resource of the kind: "scaling group"
// for scaling_group.
func (k Kind) Noun() string { return strings.ReplaceAll(string(k), "_", " ") }

// PluralNoun is how a message names resources of the kind: "sandboxes",
// "scaling groups".
func (k Kind) PluralNoun() string { return strings.ReplaceAll(k.Plural(), "_", " ") }

// VersionedKinds names the kinds with versions, for messages: "functions,
// datasets and scaling groups".
func VersionedKinds() string {
	var out []string
	for _, k := range Kinds {
		if k.Versioned() {
			out = append(out, k.PluralNoun())
		}
	}
	return strings.Join(out[:len(out)-1], ", ") + " and " + out[len(out)-1]
}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	for _, c := range Kinds {
		if c == k {
			return true
		}
	}
	return false
}

// KindOf returns the kind of an address: "sandbox" for "sandbox.web",
// `sandbox.worker["a"]` and "module.api.sandbox.web" (ParseAddress checks
// the rest).
func KindOf(addr string) Kind {
	_, rest := cutModules(addr)
	k, _, _ := strings.Cut(rest, ".")
	return Kind(k)
}

// Desired is a compiled project: every resource with its canonical spec,
// content hash and dependencies. It holds no absolute path, timestamp or
// source position in its JSON form, so the same configuration gives the same
// bytes on every machine.
type Desired struct {
	FormatVersion int        `json:"format_version"`
	Project       string     `json:"project"`
	Resources     []Resource `json:"resources"`
	// Trees lists, by tree digest, the files of every local directory (and
	// copied file) the project reads.
	Trees map[string][]TreeEntry `json:"trees,omitempty"`
	// Data are the project's data sources (data blocks), sorted by
	// address: references to resources no project owns, resolved when a
	// plan is made (DataSource).
	Data []DataSource `json:"data,omitempty"`
	// Moves, Removed and Imports are the configuration's lifecycle
	// declarations (issue 10), sorted by From, Address and To: how the
	// plan treats what the service has. They are in no spec or hash.
	Moves   []Moved    `json:"moves,omitempty"`
	Removed []Removed  `json:"removed,omitempty"`
	Imports []Imported `json:"imports,omitempty"`
	// Outputs are the project's output values, sorted by name (issue 12:
	// outputs). They are in no spec or hash.
	Outputs []Output `json:"outputs,omitempty"`

	// Root is the absolute project root local inputs are read from.
	Root string `json:"-"`
	// Schema is the schema the state was compiled with, whose facts (what
	// forces a replacement) the planner reads; nil means Default().
	Schema *Schema `json:"-"`
}

// Resource is one compiled resource. Images are resources of kind image
// addressed by their name (the first, when several names share one content)
// or, when never named, by a prefix of their hash.
type Resource struct {
	Address string `json:"address"`
	Kind    Kind   `json:"kind"`
	Name    string `json:"name"`
	// Aliases are the other names of an image with the same content.
	Aliases []string `json:"aliases,omitempty"`
	// Hash is "sha256:" + hex of sha256 over the canonical Spec, which holds
	// the hashes of what the resource refers to (a Merkle tree).
	Hash      string          `json:"hash"`
	Spec      json.RawMessage `json:"spec"`
	DependsOn []string        `json:"depends_on,omitempty"`
	// Inputs are the local files and directories the resource reads.
	Inputs []Input `json:"inputs,omitempty"`
	// Sensitive lists JSON pointers into Spec whose values must never be
	// shown (they came from sensitive variables).
	Sensitive []string `json:"sensitive,omitempty"`
	// Lifecycle is how cc treats the resource beyond its spec
	// (prevent_destroy, ignore_changes, create_before_destroy): in neither
	// Spec nor Hash; nil when the configuration says nothing.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`

	// Range is where the resource is declared; Ranges maps JSON pointers
	// into Spec ("/steps/2") to where that part is declared.
	Range  *diag.Range            `json:"-"`
	Ranges map[string]*diag.Range `json:"-"`
}

// Input is a local file or directory a resource reads: its path relative to
// the project root and its digest (a file's content digest, or a tree digest
// for a directory, whose entries are in Desired.Trees).
type Input struct {
	Path   string `json:"path"`
	Digest string `json:"digest"`
	Tree   bool   `json:"tree,omitempty"`
}

// TreeEntry is one file of a tree. Mode is "0644", "0755" or "link"; for a
// link, Digest is the digest of the link target text.
type TreeEntry struct {
	Path   string `json:"path"`
	Mode   string `json:"mode"`
	Size   int64  `json:"size"`
	Digest string `json:"digest"`
}

// Lookup returns the resource at addr, or nil.
func (d *Desired) Lookup(addr string) *Resource {
	lo, hi := 0, len(d.Resources)
	for lo < hi {
		m := (lo + hi) / 2
		if d.Resources[m].Address < addr {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(d.Resources) && d.Resources[lo].Address == addr {
		return &d.Resources[lo]
	}
	return nil
}
