package planner

import (
	"fmt"
	"sort"

	"cc.dev/cc/schema"
)

// A function's version is its spec (by hash) and the values (by
// fingerprint) of the secrets it uses whose values the service manages:
// those read from the environment or an env file. The service reuses the
// version with both the same, so the planner predicts it from the state's
// versions, which say what each was made with, and the local values'
// fingerprints: one read of the state, no other call. Secrets whose values
// live elsewhere (from_service, from_integration, from_store) take part
// only by their spec, which the function's spec refers to by hash.

// managedSecret reports whether the service manages the value of the
// desired secret at addr.
func (pl *planning) managedSecret(addr string) bool {
	if m, ok := pl.managed[addr]; ok {
		return m
	}
	m := false
	if r := pl.want[addr]; r != nil && r.Kind == schema.KindSecret {
		m = schema.ManagedSecret(r.Spec)
	}
	pl.managed[addr] = m
	return m
}

// versionSecrets are the secrets dr depends on whose values the service
// manages, each with the fingerprint of the value it has once the plan is
// applied: the local value's when it was read, else the service's current
// one. Secrets with neither are left out, as the service leaves out one
// without a value. Sorted by address.
func (pl *planning) versionSecrets(dr *schema.Resource) []VersionSecret {
	if v, ok := pl.vsecrets[dr.Address]; ok {
		return v
	}
	var out []VersionSecret
	for _, d := range dr.DependsOn {
		if schema.KindOf(d) != schema.KindSecret || !pl.managedSecret(d) {
			continue
		}
		rev, _ := secretRevision(pl.st, d)
		fp := rev.Fingerprint
		if ls, ok := pl.o.Secrets[d]; ok && ls.Fingerprint != "" {
			fp = ls.Fingerprint
		}
		if fp == "" {
			continue
		}
		out = append(out, VersionSecret{Address: d, Revision: rev.Revision, Fingerprint: fp})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	pl.vsecrets[dr.Address] = out
	return out
}

// predictVersion is the version a change of the versioned dr makes
// current: an existing one with the same spec and secret values, or a new
// one.
func (pl *planning) predictVersion(dr *schema.Resource, sr *Resource) *VersionChange {
	v := &VersionChange{Action: "new", Number: 1}
	if sr != nil {
		v.Current = sr.Version
		if pl.forced(dr.Address) {
			v.Number, v.Forced = nextVersion(sr), true
		} else if n := pl.versionOf(dr, sr); n != 0 {
			v.Action, v.Number = "reuse", n
		} else {
			v.Number = nextVersion(sr)
		}
	}
	return v
}

// versionMoves reports whether the versioned dr is no longer its current
// version though its spec is the same: a secret value it uses changes.
func (pl *planning) versionMoves(dr *schema.Resource, sr *Resource) bool {
	if !dr.Kind.Versioned() {
		return false
	}
	if pl.sensitiveMoved(dr.Address) != "" {
		return true
	}
	cur := versionNumbered(sr, sr.Version)
	return cur != nil && !versionIs(cur, dr.Hash, pl.versionSecrets(dr))
}

// versionAfter is the version the function or dataset at addr has once
// the plan is applied, or 0 when it is not in both the configuration and
// the state.
func (pl *planning) versionAfter(addr string) int64 {
	dr, sr := pl.want[addr], pl.st.Lookup(addr)
	if dr == nil || sr == nil || !dr.Kind.Versioned() {
		return 0
	}
	if dr.Hash == sr.Hash && !pl.replace[addr] && !pl.forced(addr) && !pl.versionMoves(dr, sr) {
		return sr.Version
	}
	return pl.predictVersion(dr, sr).Number
}

// repin is a versioned dependency a resource was applied with at another
// version than it has once the plan is applied.
type repin struct {
	addr          string
	pinned, after int64
}

// repins lists sr's pins that move, by address. Applying the resource
// again pins the versions current then (an evaluation follows a new
// version of its task), so a spec that stays the same is still an update.
func (pl *planning) repins(sr *Resource) []repin {
	if len(sr.Pins) == 0 {
		return nil
	}
	var out []repin
	for _, pin := range sr.Pins {
		if after := pl.versionAfter(pin.Address); after != 0 && after != pin.Version {
			out = append(out, repin{pin.Address, pin.Version, after})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].addr < out[j].addr })
	return out
}

// versionReasons explain a change of a function's version that its spec
// does not: the values of the secrets it uses, and an earlier version made
// current again for them.
func (pl *planning) versionReasons(c *Change, dr *schema.Resource, sr *Resource) []Reason {
	var out []Reason
	add := func(code, format string, args ...any) {
		out = append(out, Reason{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	cur := versionNumbered(sr, sr.Version)
	if cur == nil || !cur.Keyed() {
		return nil
	}
	secrets := pl.versionSecrets(dr)
	for _, s := range secrets {
		old, ok := versionSecret(cur, s.Address)
		switch {
		case ok && old.Fingerprint == s.Fingerprint:
		case ok && pl.secretValue(s.Address, pl.want[s.Address]) != "":
			add(ReasonSecret, "secret %s value changed", s.Address)
		case ok:
			add(ReasonSecret, "secret %s value changed since version %d was made (revision %d → %d)", s.Address, cur.Version, old.Revision, s.Revision)
		case dr.Hash == sr.Hash:
			add(ReasonSecret, "version %d does not record which value of %s it was made with (it was made before versions did)", cur.Version, s.Address)
		}
	}
	if len(out) == 0 && dr.Hash == sr.Hash && !versionIs(cur, dr.Hash, secrets) {
		add(ReasonSecret, "the values of the secrets it uses differ from version %d's", cur.Version)
	}
	if v := c.Version; v.Action == "reuse" && v.Number != v.Current && dr.Hash == sr.Hash {
		add(ReasonReuse, "same content and secret values as version %d, which is made current again: nothing is rebuilt or uploaded", v.Number)
	}
	return out
}

// repinReasons explain the versions of functions and datasets that a
// resource is applied with again.
func (pl *planning) repinReasons(sr *Resource) []Reason {
	var out []Reason
	for _, p := range pl.repins(sr) {
		msg := fmt.Sprintf("%s is at version %d after this plan; this was applied with its version %d", p.addr, p.after, p.pinned)
		if pl.changes[p.addr] != nil {
			msg = pl.refCause(p.addr)
		}
		out = append(out, Reason{Code: ReasonDependency, Message: msg})
	}
	return out
}

// versionOf is the number of sr's newest version that dr, with the secret
// values and sensitive values it has once the plan is applied, would be:
// the one an apply reuses (of versions with one key, a forced one and the
// one it bypassed, the service reuses the newest); 0 for none. Which
// versions were made with the local sensitive values only the service can
// tell (SensitiveVersions).
func (pl *planning) versionOf(dr *schema.Resource, sr *Resource) int64 {
	secrets := pl.versionSecrets(dr)
	allowed, restricted := pl.o.SensitiveVersions[dr.Address]
	if !restricted && pl.sensitiveMoved(dr.Address) != "" {
		return 0 // not the current one, and no other is known to match
	}
	var newest int64
	for i := range sr.Versions {
		v := &sr.Versions[i]
		if !versionIs(v, dr.Hash, secrets) {
			continue
		}
		if !dr.Kind.ReusesVersions() && v.Version != sr.Version {
			continue // a scaling group appends a revision for every change
		}
		if restricted && !containsVersion(allowed, v.Version) {
			continue
		}
		newest = max(newest, v.Version)
	}
	return newest
}

func containsVersion(vs []int64, n int64) bool {
	for _, v := range vs {
		if v == n {
			return true
		}
	}
	return false
}
