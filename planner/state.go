package planner

import (
	"encoding/json"
	"sort"

	"cc.dev/cc/schema"
)

// State is what the service holds for a project, as the planner needs it:
// one read of it is all an unchanged plan costs.
type State struct {
	Project string
	// Lineage is the project's random id on its service, fixed when the
	// project was first written; "" when the service never wrote it.
	Lineage string
	// Serial counts the project's mutations; a plan is made against one.
	Serial int64
	// LockedBy names who holds the project's lock when it was read (an
	// apply running), "" when nobody did. Nothing is planned with it.
	LockedBy string
	// Resources are sorted by address.
	Resources []Resource
	// Images are the image values the project has, by hash: the old specs
	// a plan explains image changes with.
	Images map[string]Image
	// Secrets are the current revisions of secret values, by address.
	Secrets map[string]SecretRevision
}

// Resource is one resource as the service holds it.
type Resource struct {
	Address string
	Kind    schema.Kind
	Hash    string
	// Spec is the canonical JSON it was applied with.
	Spec json.RawMessage
	// Sensitive are JSON pointers into Spec of values never to be shown.
	Sensitive []string
	DependsOn []string
	// Version is the current version of a versioned kind; Versions are all
	// of them, oldest first.
	Version  int64
	Versions []Version
	// Pins are the versions of the functions and datasets it depends on
	// that it was last applied with, by address.
	Pins map[string]int64
}

// Version is one immutable version of a function or revision of a dataset.
type Version struct {
	Number int64
	Hash   string
	// Keyed says the service keys versions by the values of the managed
	// secrets they use as well as by Hash; Secrets are those this version
	// was made with, sorted by address. A service that does not (older
	// than version keys) reuses any version with the same Hash.
	Keyed   bool
	Secrets []VersionSecret
}

// VersionSecret is the revision of a secret whose value the service
// manages (from_env, from_env_file) that a version was made with; its
// value, not its number, is part of the version's identity. Fingerprint
// labels the value: equal labels, equal values (the caller makes them from
// what the service says, never from the value).
type VersionSecret struct {
	Address     string
	Revision    int64
	Fingerprint string
}

// Image is an image value the project has.
type Image struct {
	Spec      json.RawMessage
	Sensitive []string
}

// SecretRevision is the current revision of a secret's value, never the
// value: its Fingerprint labels the value as VersionSecret's does, and is
// compared with the local value's label (LocalSecret).
type SecretRevision struct {
	Revision    int64
	Fingerprint string
}

// Lookup returns the resource at addr, or nil.
func (s *State) Lookup(addr string) *Resource {
	if s == nil {
		return nil
	}
	i := sort.Search(len(s.Resources), func(i int) bool { return s.Resources[i].Address >= addr })
	if i < len(s.Resources) && s.Resources[i].Address == addr {
		return &s.Resources[i]
	}
	return nil
}

// VersionWithHash returns the number of r's version with hash, or 0.
func (r *Resource) VersionWithHash(hash string) int64 {
	for _, v := range r.Versions {
		if v.Hash == hash {
			return v.Number
		}
	}
	return 0
}

// version returns r's version n, or nil.
func (r *Resource) version(n int64) *Version {
	for i := range r.Versions {
		if r.Versions[i].Number == n {
			return &r.Versions[i]
		}
	}
	return nil
}

// is reports whether v is the version that content with hash, made with
// the managed secret values secrets (sorted by address), would be: the
// same identity (schema.VersionIdentity, which the service keys versions
// with), or the same hash on a service that keys versions by hash alone.
func (v *Version) is(hash string, secrets []VersionSecret) bool {
	if !v.Keyed {
		return v.Hash == hash
	}
	return identity(v.Hash, v.Secrets).Same(identity(hash, secrets))
}

// identity is the identity of a version with hash made with secrets.
func identity(hash string, secrets []VersionSecret) schema.VersionIdentity {
	id := schema.VersionIdentity{Hash: hash, Values: make([]schema.VersionValue, len(secrets))}
	for i, s := range secrets {
		id.Values[i] = schema.VersionValue{Address: s.Address, Fingerprint: s.Fingerprint}
	}
	return id
}

// secret returns the revision of the secret at addr v was made with.
func (v *Version) secret(addr string) (VersionSecret, bool) {
	for _, s := range v.Secrets {
		if s.Address == addr {
			return s, true
		}
	}
	return VersionSecret{}, false
}

// nextVersion is the number a new version of r would get.
func (r *Resource) nextVersion() int64 {
	var n int64
	for _, v := range r.Versions {
		n = max(n, v.Number)
	}
	return n + 1
}
