package planner

import (
	"cc.dev/cc/schema"
	"cc.dev/cc/state"
)

// State is what the service holds for a project: the client's model of
// it (package state), which the service's client returns and the planner
// plans against as it is. One read of it is all an unchanged plan costs.
type State = state.Project

// Resource is one resource as the service holds it.
type Resource = state.Resource

// Version is one immutable version of a function or revision of a
// dataset.
type Version = state.Version

// Image is an image value the project has.
type Image = state.Image

// VersionSecret is the revision of a secret whose value the service
// manages (from_env, from_env_file) that a version was made with, or is
// to be made with; its value, not its number, is part of the version's
// identity. Fingerprint labels the value: equal labels, equal values (the
// caller makes them from what the service says, never from the value:
// state.SecretValue.Label, LocalSecret).
type VersionSecret struct {
	Address     string
	Revision    int64
	Fingerprint string
}

// versionNumbered returns r's version n, or nil.
func versionNumbered(r *Resource, n int64) *Version {
	for i := range r.Versions {
		if r.Versions[i].Version == n {
			return &r.Versions[i]
		}
	}
	return nil
}

// versionIs reports whether v is the version that content with hash, made
// with the managed secret values secrets (sorted by address), would be:
// the same identity (schema.VersionIdentity, which the service keys
// versions with), or the same hash on a service that keys versions by
// hash alone.
func versionIs(v *Version, hash string, secrets []VersionSecret) bool {
	if v.Hash != hash {
		return false
	}
	if !v.Keyed() {
		return true
	}
	return identity(v.Hash, versionSecrets(v)).Same(identity(hash, secrets))
}

// versionSecrets are the managed secret values v was made with, labelled.
func versionSecrets(v *Version) []VersionSecret {
	out := make([]VersionSecret, len(v.Secrets))
	for i, s := range v.Secrets {
		out[i] = VersionSecret{Address: s.Address, Revision: s.Revision, Fingerprint: s.Label()}
	}
	return out
}

// identity is the identity of a version with hash made with secrets.
func identity(hash string, secrets []VersionSecret) schema.VersionIdentity {
	id := schema.VersionIdentity{Hash: hash, Values: make([]schema.VersionValue, len(secrets))}
	for i, s := range secrets {
		id.Values[i] = schema.VersionValue{Address: s.Address, Fingerprint: s.Fingerprint}
	}
	return id
}

// versionSecret returns the revision of the secret at addr v was made
// with, labelled.
func versionSecret(v *Version, addr string) (VersionSecret, bool) {
	for _, s := range v.Secrets {
		if s.Address == addr {
			return VersionSecret{Address: s.Address, Revision: s.Revision, Fingerprint: s.Label()}, true
		}
	}
	return VersionSecret{}, false
}

// nextVersion is the number a new version of r would get.
func nextVersion(r *Resource) int64 {
	var n int64
	for _, v := range r.Versions {
		n = max(n, v.Version)
	}
	return n + 1
}

// secretRevision is the current revision of the secret at addr in st,
// labelled (state.SecretValue.Label), and whether st has one.
func secretRevision(st *State, addr string) (VersionSecret, bool) {
	if sv := st.SecretValue(addr); sv != nil {
		return VersionSecret{Address: addr, Revision: sv.Revision, Fingerprint: sv.Label()}, true
	}
	return VersionSecret{}, false
}
