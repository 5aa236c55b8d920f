package schema

import (
	"encoding/json"
	"fmt"
	"sort"
)

// LockFile is the name of the lock file in a project root.
const LockFile = "cc.lock"

// Lock pins floating base image references to digests, as go.sum pins
// modules. The compiler uses a locked digest wherever the reference is used
// as an image base, so content hashes stay stable when a tag moves.
type Lock struct {
	Version int `json:"version"`
	// Bases maps a reference as written ("python:3.12-slim") to the digest
	// of what it named when locked ("sha256:...", of the index or manifest).
	Bases map[string]string `json:"bases"`
}

// LockVersion is the current lock file version.
const LockVersion = 1

// ParseLock reads a lock file.
func ParseLock(b []byte) (*Lock, error) {
	var l Lock
	if err := json.Unmarshal(b, &l); err != nil {
		return nil, fmt.Errorf("%s: %w", LockFile, err)
	}
	if l.Version != LockVersion {
		return nil, fmt.Errorf("%s: version %d, want %d", LockFile, l.Version, LockVersion)
	}
	if l.Bases == nil {
		l.Bases = map[string]string{}
	}
	return &l, nil
}

// Marshal writes the lock file form: indented, keys sorted, trailing newline.
func (l *Lock) Marshal() []byte {
	keys := make([]string, 0, len(l.Bases))
	for k := range l.Bases {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := struct {
		Version int               `json:"version"`
		Bases   map[string]string `json:"bases"`
	}{LockVersion, l.Bases}
	if out.Bases == nil {
		out.Bases = map[string]string{}
	}
	b, _ := json.MarshalIndent(out, "", "  ")
	return append(b, '\n')
}
