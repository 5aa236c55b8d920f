package schema

import (
	"crypto/sha256"
	"encoding/hex"
)

// VersionIdentity is what makes a version of a function or dataset the
// same version: the hash of its spec and the values, by fingerprint, it is
// made with (the managed secrets it uses, SecretSpec.Managed, and on the
// service the sensitive values of its spec and images). An apply reuses
// the version with the same identity. It is defined here, once, for both
// sides of the wire: the service keys its versions with Key, the planner
// predicts which one an apply reuses with Same.
type VersionIdentity struct {
	Hash string
	// Values are sorted by address, one per address.
	Values []VersionValue
}

// VersionValue is one value a version is made with: Fingerprint labels
// the value (equal labels, equal values); the service's are keyed
// fingerprints, the planner's labels from what the service says.
type VersionValue struct {
	Address     string
	Fingerprint string
}

// Key is the identity as the service stores it: the hash itself when the
// version is made with no values, else "sha256:" + hex of the sha256 of
// the hash and one "ADDRESS FINGERPRINT" line per value. Stored keys
// depend on these bytes: they never change.
func (id VersionIdentity) Key() string {
	if len(id.Values) == 0 {
		return id.Hash
	}
	h := sha256.New()
	h.Write([]byte(id.Hash + "\n"))
	for _, v := range id.Values {
		h.Write([]byte(v.Address + " " + v.Fingerprint + "\n"))
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// Same reports whether id and o are the same version's: the same hash and
// the same values, by address.
func (id VersionIdentity) Same(o VersionIdentity) bool {
	if id.Hash != o.Hash || len(id.Values) != len(o.Values) {
		return false
	}
	for _, v := range o.Values {
		if fp, ok := id.value(v.Address); !ok || fp != v.Fingerprint {
			return false
		}
	}
	return true
}

func (id VersionIdentity) value(addr string) (string, bool) {
	for _, v := range id.Values {
		if v.Address == addr {
			return v.Fingerprint, true
		}
	}
	return "", false
}
