package state

import (
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"cc.dev/cc/schema"
)

// Project is a project's whole state.
type Project struct {
	Project string
	// Lineage is the project's random id on its service, fixed when the
	// project was first written; "" for a project never written.
	Lineage string
	// Serial counts the project's mutations; a plan is made against one.
	Serial int64
	// Resources are sorted by address.
	Resources []Resource
	// Images are the image values the project has, sorted by hash: the
	// old specs a plan explains image changes with.
	Images []Image
	// SecretValues are the current revisions of secret values, sorted by
	// address.
	SecretValues []SecretValue
	// Lock is the live lease, or nil.
	Lock *Lease
	// Drift are the changes made outside cc since cc last applied each
	// resource (issue 10), sorted by address, then serial: fields changed
	// through the API by another client, a sandbox terminated, a sandbox
	// whose lifetime has passed.
	Drift []Drift
	// Data are the data sources the read resolved (issue 10), in the
	// order asked; none unless the read asked.
	Data []DataResolved
	// Unowned are the resources no project owns (project "-") that the
	// read asked for by address, sorted by address: the candidates of the
	// configuration's imports (issue 10: adoption).
	Unowned []Resource
	// Outputs are the project's output values as the last apply stored
	// them (issue 12), sorted by name; sensitive ones with their values.
	Outputs []schema.Output
}

// UnownedAt returns the unowned resource read at addr, or nil.
func (s *Project) UnownedAt(addr string) *Resource {
	if s == nil {
		return nil
	}
	for i := range s.Unowned {
		if s.Unowned[i].Address == addr {
			return &s.Unowned[i]
		}
	}
	return nil
}

// Drift is one change made to a resource outside cc.
type Drift struct {
	Address string
	// What is "changed", "terminated" or "expired".
	What string
	// Actor is who did it: a token's name, "local" on a server without
	// tokens; "" for an expiry.
	Actor string
	At    time.Time
	// Serial is the project serial the change made, 0 for an expiry.
	Serial int64
	// Fields are the fields a "changed" record changed.
	Fields []DriftField
}

// DriftField is a field changed outside cc: its JSON pointer and its
// canonical JSON before and after (nil: absent). A sensitive one has no
// values.
type DriftField struct {
	Pointer   string
	Before    json.RawMessage
	After     json.RawMessage
	Sensitive bool
}

// The kinds of drift (Drift.What).
const (
	DriftChanged    = "changed"
	DriftTerminated = "terminated"
	DriftExpired    = "expired"
)

// Lookup returns the resource at addr, or nil.
func (s *Project) Lookup(addr string) *Resource {
	if s == nil {
		return nil
	}
	i := sort.Search(len(s.Resources), func(i int) bool { return s.Resources[i].Address >= addr })
	if i < len(s.Resources) && s.Resources[i].Address == addr {
		return &s.Resources[i]
	}
	return nil
}

// SecretValue returns the current revision of the secret at addr, or nil.
func (s *Project) SecretValue(addr string) *SecretValue {
	if s == nil {
		return nil
	}
	i := sort.Search(len(s.SecretValues), func(i int) bool { return s.SecretValues[i].Address >= addr })
	if i < len(s.SecretValues) && s.SecretValues[i].Address == addr {
		return &s.SecretValues[i]
	}
	return nil
}

// Resource is one resource's state.
type Resource struct {
	Address string
	Kind    schema.Kind
	Name    string
	// ID is the resource's identity on the service, kept when it moves
	// to another address or project; "" from a service without ids.
	ID string
	// Spec is the canonical JSON the resource was applied with; Hash is
	// "sha256:" + hex of its sha256.
	Spec json.RawMessage
	Hash string
	// Version is the current version of a versioned kind, else 0.
	Version   int64
	Status    Status
	CreatedAt time.Time
	UpdatedAt time.Time
	// Serial is the project serial of the resource's last change.
	Serial    int64
	DependsOn []string
	// Pins are the versions of the functions and datasets it depends on
	// that it was last applied with.
	Pins []Pin
	// Versions, in a Project, are every version of a versioned resource,
	// oldest first, without specs.
	Versions []Version
	// Sensitive are JSON pointers into Spec of values never to be shown.
	Sensitive []string
	// ExpiredAt is when a sandbox with a lifetime expires (or expired):
	// CreatedAt + lifetime; zero otherwise. Its Status is StatusExpired
	// once it has passed.
	ExpiredAt time.Time
	// DataPins are what the data sources it uses resolved to when it was
	// last applied (issue 10), sorted by address.
	DataPins []DataPin
	// PreventDestroy: the resource is protected by its configuration's
	// lifecycle.prevent_destroy as last applied; the service refuses to
	// delete or replace it, and a plan that would is an error citing
	// PreventDestroyAt, where the protection was declared
	// ("file:line:col", relative to the project root).
	PreventDestroy   bool
	PreventDestroyAt string
}

// Gone reports whether the resource no longer runs: a sandbox terminated
// or expired. A plan creates it again.
func (r *Resource) Gone() bool { return r.Status == StatusTerminated || r.Status == StatusExpired }

// VersionWithHash returns the number of the first version of r whose hash
// is hash, or 0. An apply reuses the version with its identity
// (schema.VersionIdentity): the same hash and the same values of the
// managed secrets it uses.
func (r *Resource) VersionWithHash(hash string) int64 {
	for _, v := range r.Versions {
		if v.Hash == hash {
			return v.Version
		}
	}
	return 0
}

// Pin is the version of a versioned resource another was applied with.
type Pin struct {
	Address string
	Version int64
}

// Status is what the platform reports about a resource.
type Status int

// The statuses of a resource.
const (
	StatusUnknown Status = iota
	StatusReady
	StatusPending
	StatusFailed
	// StatusTerminated: a sandbox stopped outside cc.
	StatusTerminated
	// StatusExpired: a sandbox whose lifetime has passed.
	StatusExpired
)

func (s Status) String() string {
	switch s {
	case StatusReady:
		return "ready"
	case StatusPending:
		return "pending"
	case StatusFailed:
		return "failed"
	case StatusTerminated:
		return "terminated"
	case StatusExpired:
		return "expired"
	}
	return "unknown"
}

// Image is an image value.
type Image struct {
	Hash      string
	Spec      json.RawMessage
	CreatedAt time.Time
	// Sensitive are JSON pointers into Spec of values never to be shown.
	Sensitive []string
}

// SecretValue is a revision of a secret's value: never the value itself,
// nor anything derived from it. SameValueAs is the first revision whose
// value equals this one's: equal numbers, equal values (0: unknown).
type SecretValue struct {
	Address     string
	Revision    int64
	SameValueAs int64
	UpdatedAt   time.Time
}

// Label labels the revision's value by SameValueAs, never by the value:
// equal labels, equal values. A plan compares values by their labels.
func (v SecretValue) Label() string {
	if v.SameValueAs == 0 {
		return "unknown value of revision " + strconv.FormatInt(v.Revision, 10)
	}
	return "value of revision " + strconv.FormatInt(v.SameValueAs, 10)
}

// Version is one immutable version of a resource, or one revision of a
// secret's value (whose Hash is the value's fingerprint and Spec empty).
type Version struct {
	Version   int64
	Hash      string
	Spec      json.RawMessage
	CreatedAt time.Time
	Current   bool
	// Key is a function's or dataset's version identity
	// (schema.VersionIdentity.Key): an apply reuses the version with the
	// key it would make. Empty for a secret's revision, and from a service
	// that reuses versions by Hash alone.
	Key string
	// Secrets are the revisions of the managed secrets (from_env,
	// from_env_file) it depends on that the version was made with, sorted
	// by address, without UpdatedAt: the values, by label, in its key.
	Secrets []SecretValue
}

// Keyed reports whether the service keys the version by the values of the
// managed secrets it uses as well as by Hash (Key); a service that does
// not (older than version keys) reuses any version with the same Hash.
func (v *Version) Keyed() bool { return v.Key != "" }

// Holder describes who holds a lock.
type Holder struct {
	User    string
	Host    string
	Command string
	PID     int64
}

func (h Holder) String() string {
	s := h.User + "@" + h.Host
	switch {
	case h.Command != "" && h.PID != 0:
		s += fmt.Sprintf(" (%s, pid %d)", h.Command, h.PID)
	case h.Command != "":
		s += " (" + h.Command + ")"
	case h.PID != 0:
		s += fmt.Sprintf(" (pid %d)", h.PID)
	}
	return s
}

// Lease is a held lock.
type Lease struct {
	ID         string
	Holder     Holder
	AcquiredAt time.Time
	ExpiresAt  time.Time
}
