package applier

import (
	"fmt"

	"cc.dev/cc/planner"
	"cc.dev/cc/service"
)

// StateOf is the planner's view of a service state.
func StateOf(st *service.State) *planner.State {
	out := &planner.State{
		Project:   st.Project,
		Lineage:   st.Lineage,
		LockedBy:  lockHolder(st.Lock),
		Serial:    st.Serial,
		Resources: make([]planner.Resource, 0, len(st.Resources)),
		Images:    make(map[string]planner.Image, len(st.Images)),
		Secrets:   make(map[string]planner.SecretRevision, len(st.SecretValues)),
	}
	for _, r := range st.Resources {
		pr := planner.Resource{
			Address: r.Address, Kind: r.Kind, Hash: r.Hash, Spec: r.Spec, Sensitive: r.Sensitive,
			DependsOn: r.DependsOn, Version: r.Version,
		}
		if len(r.Versions) > 0 {
			pr.Versions = make([]planner.Version, len(r.Versions))
			for i, v := range r.Versions {
				// A version without a key comes from a service that reuses
				// versions by hash alone.
				pv := planner.Version{Number: v.Version, Hash: v.Hash, Keyed: v.Key != ""}
				for _, s := range v.Secrets {
					pv.Secrets = append(pv.Secrets, planner.VersionSecret{Address: s.Address, Revision: s.Revision, Fingerprint: valueLabel(s)})
				}
				pr.Versions[i] = pv
			}
		}
		if len(r.Pins) > 0 {
			pr.Pins = make(map[string]int64, len(r.Pins))
			for _, p := range r.Pins {
				pr.Pins[p.Address] = p.Version
			}
		}
		out.Resources = append(out.Resources, pr)
	}
	for _, im := range st.Images {
		out.Images[im.Hash] = planner.Image{Spec: im.Spec, Sensitive: im.Sensitive}
	}
	for _, v := range st.SecretValues {
		out.Secrets[v.Address] = planner.SecretRevision{Revision: v.Revision, Fingerprint: valueLabel(v)}
	}
	return out
}

// lockHolder names who holds the lease l, or "" when nobody does.
func lockHolder(l *service.Lease) string {
	if l == nil {
		return ""
	}
	return l.Holder.String()
}

// valueLabel labels a secret revision's value for the planner: equal
// labels, equal values, by the service's same_value_as; nothing in it is
// derived from the value.
func valueLabel(v service.SecretValue) string {
	if v.SameValueAs == 0 {
		return fmt.Sprintf("unknown value of revision %d", v.Revision)
	}
	return fmt.Sprintf("value of revision %d", v.SameValueAs)
}
