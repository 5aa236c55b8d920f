package applier

import (
	"cc.dev/cc/planner"
	"cc.dev/cc/service"
)

// StateOf is the planner's view of a service state.
func StateOf(st *service.State) *planner.State {
	out := &planner.State{
		Project:   st.Project,
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
				pr.Versions[i] = planner.Version{Number: v.Version, Hash: v.Hash}
			}
		}
		out.Resources = append(out.Resources, pr)
	}
	for _, im := range st.Images {
		out.Images[im.Hash] = planner.Image{Spec: im.Spec, Sensitive: im.Sensitive}
	}
	for _, v := range st.SecretValues {
		out.Secrets[v.Address] = planner.SecretRevision{Revision: v.Revision, Fingerprint: v.Fingerprint}
	}
	return out
}
