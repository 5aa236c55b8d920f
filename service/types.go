package service

import (
	"encoding/json"
	"os"
	"os/user"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"cc.dev/cc/schema"
	ccv1 "cc.dev/cc/service/proto/cc/v1"
	"cc.dev/cc/state"
)

// The client's model of a project's state is package state's: these are
// its types under the service's names, not copies of them.
type (
	// State is a project's whole state as the service holds it.
	State = state.Project
	// Resource is one resource's state.
	Resource = state.Resource
	// Pin is the version of a versioned resource another was applied with.
	Pin = state.Pin
	// Status is what the platform reports about a resource.
	Status = state.Status
	// Image is an image value.
	Image = state.Image
	// SecretValue is a revision of a secret's value, never the value.
	SecretValue = state.SecretValue
	// Version is one immutable version of a resource, or one revision of
	// a secret's value.
	Version = state.Version
	// Holder describes who holds a lock.
	Holder = state.Holder
	// Lease is a held lock.
	Lease = state.Lease
	// DataLookup names a data source to resolve (issue 10).
	DataLookup = state.DataLookup
	// DataResult is what a data source resolved to.
	DataResult = state.DataResult
	// DataPin is what a data source resolved to when a resource was
	// applied.
	DataPin = state.DataPin
)

// The statuses of a resource.
const (
	StatusUnknown = state.StatusUnknown
	StatusReady   = state.StatusReady
	StatusPending = state.StatusPending
	StatusFailed  = state.StatusFailed
	// StatusTerminated and StatusExpired: a sandbox stopped outside cc,
	// or whose lifetime has passed (issue 10, drift).
	StatusTerminated = state.StatusTerminated
	StatusExpired    = state.StatusExpired
)

// Drift is one change made to a resource outside cc.
type Drift = state.Drift

// DriftField is a field changed outside cc.
type DriftField = state.DriftField

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
		ID:        r.GetId(),
		// A protected resource (lifecycle.prevent_destroy) and where the
		// protection was declared.
		PreventDestroy:   r.GetPreventDestroy(),
		PreventDestroyAt: r.GetPreventDestroyAt(),
	}
	if r.ExpiredAt != nil {
		out.ExpiredAt = ts(r.GetExpiredAt())
	}
	for _, p := range r.GetPins() {
		out.Pins = append(out.Pins, Pin{Address: p.GetAddress(), Version: p.GetVersion()})
	}
	for _, v := range r.GetVersions() {
		out.Versions = append(out.Versions, versionFromProto(v))
	}
	for _, p := range r.GetDataPins() {
		out.DataPins = append(out.DataPins, DataPin{Address: p.GetAddress(), Target: p.GetTarget(), Version: p.GetVersion(), Hash: p.GetHash(), Pinned: p.GetPinned()})
	}
	return out
}

func dataPinsProto(pins []DataPin) []*ccv1.DataPin {
	var out []*ccv1.DataPin
	for _, p := range pins {
		out = append(out, &ccv1.DataPin{Address: p.Address, Target: p.Target, Version: p.Version, Hash: p.Hash, Pinned: p.Pinned})
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

func driftFromProto(d *ccv1.Drift) Drift {
	out := Drift{Address: d.GetAddress(), What: d.GetWhat(), Actor: d.GetActor(), At: ts(d.GetAt()), Serial: d.GetSerial()}
	for _, f := range d.GetFields() {
		df := DriftField{Pointer: f.GetPointer(), Sensitive: f.GetSensitive()}
		if len(f.GetBefore()) > 0 {
			df.Before = json.RawMessage(f.GetBefore())
		}
		if len(f.GetAfter()) > 0 {
			df.After = json.RawMessage(f.GetAfter())
		}
		out.Fields = append(out.Fields, df)
	}
	return out
}
