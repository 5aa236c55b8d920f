package planner

import (
	"sort"

	"cc.dev/cc/schema"
)

// Issue 12 (reuse): an address without an instance key that names no
// resource but is the base of instances (sandbox.worker, of
// sandbox.worker["a"] and sandbox.worker["b"]) names every one of them in
// --target, --exclude, --replace and --new-version, as in Terraform.

// withInstances is o with each such address replaced by the addresses of
// its instances in the configuration and the state, sorted.
func withInstances(d *schema.Desired, st *State, o Options) Options {
	known := map[string]bool{}
	bases := map[string][]string{}
	note := func(a string) {
		if known[a] {
			return
		}
		known[a] = true
		if b := schema.BaseAddress(a); b != a {
			bases[b] = append(bases[b], a)
		}
	}
	for _, r := range d.Resources {
		note(r.Address)
	}
	for _, r := range st.Resources {
		note(r.Address)
	}
	expand := func(addrs []string) []string {
		var out []string
		for _, a := range addrs {
			if is := bases[a]; !known[a] && len(is) > 0 {
				sort.Strings(is)
				out = append(out, is...)
				continue
			}
			out = append(out, a)
		}
		return out
	}
	o.Targets, o.Excludes = expand(o.Targets), expand(o.Excludes)
	o.Replace, o.NewVersion = expand(o.Replace), expand(o.NewVersion)
	return o
}
