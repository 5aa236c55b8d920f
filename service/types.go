package service

import (
	"encoding/json"
	"fmt"
	"os"
	"os/user"
	"sort"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
)

// State is a project's whole state as the service holds it.
type State struct {
	Project string
	// Lineage is the project's random id on this service, fixed when the
	// project was first written; "" for a project never written.
	Lineage string
	// Serial counts the project's mutations.
	Serial int64
	// Resources are sorted by address.
	Resources []Resource
	// Images are the image values, sorted by hash.
	Images []Image
	// SecretValues are the current revisions of secret values, sorted by
	// address.
	SecretValues []SecretValue
	// Lock is the live lease, or nil.
	Lock *Lease
}

// Lookup returns the resource at addr, or nil.
func (s *State) Lookup(addr string) *Resource {
	i := sort.Search(len(s.Resources), func(i int) bool { return s.Resources[i].Address >= addr })
	if i < len(s.Resources) && s.Resources[i].Address == addr {
		return &s.Resources[i]
	}
	return nil
}

// SecretValue returns the current revision of the secret at addr, or nil.
func (s *State) SecretValue(addr string) *SecretValue {
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
	// Pins are the versions of versioned dependencies it was applied with.
	Pins []Pin
	// Versions, in a State, are every version of a versioned resource,
	// oldest first, without specs.
	Versions []Version
	// Sensitive are JSON pointers into Spec of values never to be shown.
	Sensitive []string
}

// VersionWithHash returns the number of the first version of r whose hash
// is hash, or 0. An apply reuses the version with its key (VersionKey):
// the same hash and the same values of the managed secrets it uses.
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

const (
	StatusUnknown Status = iota
	StatusReady
	StatusPending
	StatusFailed
)

func (s Status) String() string {
	switch s {
	case StatusReady:
		return "ready"
	case StatusPending:
		return "pending"
	case StatusFailed:
		return "failed"
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

// SecretValue is the current revision of a secret's value: never the
// value itself, nor anything derived from it. SameValueAs is the first
// revision whose value equals this one's: equal numbers, equal values.
type SecretValue struct {
	Address     string
	Revision    int64
	SameValueAs int64
	UpdatedAt   time.Time
}

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

// CurrentHolder describes this process running command.
func CurrentHolder(command string) Holder {
	h := Holder{Command: command, PID: int64(os.Getpid()), User: "unknown", Host: "unknown"}
	if u, err := user.Current(); err == nil && u.Username != "" {
		h.User = u.Username
	}
	if n, err := os.Hostname(); err == nil && n != "" {
		h.Host = n
	}
	return h
}

// Lease is a held lock.
type Lease struct {
	ID         string
	Holder     Holder
	AcquiredAt time.Time
	ExpiresAt  time.Time
}

// Action is what an Apply request does to the resource at an address: the
// API's own enum, not a copy of it (the planner's planner.Action becomes
// one in the applier, in one function).
type Action = ccv1.Action

// The actions an Apply request may carry.
const (
	ActionCreate  = ccv1.Action_ACTION_CREATE
	ActionUpdate  = ccv1.Action_ACTION_UPDATE
	ActionReplace = ccv1.Action_ACTION_REPLACE
)

// Version is one immutable version of a resource, or one revision of a
// secret's value (whose Hash is the value's fingerprint and Spec empty).
type Version struct {
	Version   int64
	Hash      string
	Spec      json.RawMessage
	CreatedAt time.Time
	Current   bool
	// Key is a function's or dataset's version identity (VersionKey): an
	// apply reuses the version with the key it would make. Empty for a
	// secret's revision, and from a service that reuses versions by Hash
	// alone.
	Key string
	// Secrets are the revisions of the managed secrets (from_env,
	// from_env_file) it depends on that the version was made with, sorted
	// by address, without UpdatedAt: the values, by fingerprint, in its
	// key.
	Secrets []SecretValue
}

func ts(t *timestamppb.Timestamp) time.Time {
	if t == nil {
		return time.Time{}
	}
	return t.AsTime()
}

func resourceFromProto(r *ccv1.Resource) Resource {
	out := Resource{
		Address:   r.GetAddress(),
		Kind:      schema.Kind(r.GetKind()),
		Name:      r.GetName(),
		Spec:      json.RawMessage(r.GetSpec()),
		Hash:      r.GetHash(),
		Version:   r.GetVersion(),
		Status:    Status(r.GetStatus()),
		CreatedAt: ts(r.GetCreatedAt()),
		UpdatedAt: ts(r.GetUpdatedAt()),
		Serial:    r.GetSerial(),
		DependsOn: r.GetDependsOn(),
		Sensitive: r.GetSensitive(),
	}
	for _, p := range r.GetPins() {
		out.Pins = append(out.Pins, Pin{Address: p.GetAddress(), Version: p.GetVersion()})
	}
	for _, v := range r.GetVersions() {
		out.Versions = append(out.Versions, versionFromProto(v))
	}
	return out
}

func versionFromProto(v *ccv1.Version) Version {
	out := Version{Version: v.GetVersion(), Hash: v.GetHash(), CreatedAt: ts(v.GetCreatedAt()), Current: v.GetCurrent(), Key: v.GetKey()}
	if len(v.GetSpec()) > 0 {
		out.Spec = json.RawMessage(v.GetSpec())
	}
	for _, s := range v.GetSecrets() {
		out.Secrets = append(out.Secrets, SecretValue{Address: s.GetAddress(), Revision: s.GetRevision(), SameValueAs: s.GetSameValueAs()})
	}
	return out
}

func imageFromProto(i *ccv1.Image) Image {
	return Image{Hash: i.GetHash(), Spec: json.RawMessage(i.GetSpec()), CreatedAt: ts(i.GetCreatedAt()), Sensitive: i.GetSensitive()}
}

func secretValueFromProto(v *ccv1.SecretValue) SecretValue {
	return SecretValue{Address: v.GetAddress(), Revision: v.GetRevision(), SameValueAs: v.GetSameValueAs(), UpdatedAt: ts(v.GetUpdatedAt())}
}

func leaseFromProto(l *ccv1.Lease) Lease {
	h := l.GetHolder()
	return Lease{
		ID:         l.GetId(),
		Holder:     Holder{User: h.GetUser(), Host: h.GetHost(), Command: h.GetCommand(), PID: h.GetPid()},
		AcquiredAt: ts(l.GetAcquiredAt()),
		ExpiresAt:  ts(l.GetExpiresAt()),
	}
}

func holderToProto(h Holder) *ccv1.Holder {
	return &ccv1.Holder{User: h.User, Host: h.Host, Command: h.Command, Pid: h.PID}
}
