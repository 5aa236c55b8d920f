package planner

import (
	"fmt"
	"sort"
	"strings"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
	"cc.dev/cc/state"
)

// Data sources (issue 10): the configuration's data blocks are resolved
// against the unowned resources in the one read of the state (State.Data)
// and pinned in the plan (Plan.Data). A resource that uses one keeps what
// it resolved to when it was applied (Resource.DataPins), so a data source
// that resolves to something else (a new revision of a dataset, another
// current version of a function) changes the resources that use it, with
// reason "data", and the apply sends exactly what the plan resolved.

// DataSource is a data source as the plan resolved it.
type DataSource struct {
	// Address is the data source's, "data.dataset.evals".
	Address string      `json:"address"`
	Kind    schema.Kind `json:"kind"`
	// Name is the unowned resource's name; Target its address
	// ("dataset.build-evals", in project "-").
	Name   string `json:"name"`
	Target string `json:"target"`
	// Version is the dataset's revision or function's version it resolved
	// to, a secret's value revision (0: none), 0 for a volume; Pinned says
	// the configuration asked for it.
	Version int64 `json:"version,omitempty"`
	Pinned  bool  `json:"pinned,omitempty"`
	// Hash is the hash of the resource's spec (of that version); "" for a
	// secret with a value and no spec.
	Hash string `json:"hash,omitempty"`
}

// Describe says what the data source resolved to, for a person:
// "dataset build-evals, revision 3".
func (s DataSource) Describe() string {
	out := fmt.Sprintf("%s %s", s.Kind, s.Name)
	switch {
	case s.Kind == schema.KindDataset:
		out += fmt.Sprintf(", revision %d", s.Version)
	case s.Kind == schema.KindFunction:
		out += fmt.Sprintf(", version %d", s.Version)
	case s.Kind == schema.KindSecret && s.Version > 0:
		out += fmt.Sprintf(", value revision %d", s.Version)
	case s.Kind == schema.KindSecret:
		out += ", no value yet"
	}
	if s.Pinned {
		out += " (pinned)"
	}
	return out
}

// pin is the data source as a resource keeps it.
func (s DataSource) pin() state.DataPin {
	return state.DataPin{Address: s.Address, Target: s.Target, Version: s.Version, Hash: s.Hash, Pinned: s.Pinned}
}

// DataPinsOf are the pins of the data sources r uses as the plan p
// resolved them, sorted by address: what the apply of r sends, so that the
// service checks they still hold.
func DataPinsOf(p *Plan, r *schema.Resource) []state.DataPin {
	return pinsOf(r.DependsOn, func(a string) (DataSource, bool) {
		i := sort.Search(len(p.Data), func(i int) bool { return p.Data[i].Address >= a })
		if i < len(p.Data) && p.Data[i].Address == a {
			return p.Data[i], true
		}
		return DataSource{}, false
	})
}

// pinsOf are the pins of the data sources among deps, found by address,
// sorted by address.
func pinsOf(deps []string, find func(string) (DataSource, bool)) []state.DataPin {
	var out []state.DataPin
	for _, d := range deps {
		if s, ok := find(d); ok {
			out = append(out, s.pin())
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Address < out[j].Address })
	return out
}

// DataLookups are the lookups that resolve d's data sources, in order: what
// a read of the state asks for a plan of d.
func DataLookups(d *schema.Desired) []state.DataLookup {
	var out []state.DataLookup
	for _, s := range d.Data {
		out = append(out, state.DataLookup{Kind: s.Kind, Name: s.Name, Version: s.Version})
	}
	return out
}

// resolveData resolves the desired state's data sources from the state
// read, refusing one the service lacks at its data block.
func resolveData(d *schema.Desired, st *State) ([]DataSource, error) {
	var out []DataSource
	var ds diag.Diagnostics
	for _, s := range d.Data {
		if !schema.DataKind(s.Kind) || !schema.ValidName(s.Name) || s.Address != schema.DataAddress(s.Kind, strings.TrimPrefix(s.Address, "data."+string(s.Kind)+".")) {
			ds = append(ds, diag.Errorf(s.Range, "%s: not a data source of kind %s and name %q", s.Address, s.Kind, s.Name))
			continue
		}
		res, asked := st.Resolved(state.DataLookup{Kind: s.Kind, Name: s.Name, Version: s.Version})
		switch {
		case !asked:
			ds = append(ds, diag.Errorf(s.Range, "%s: the read of the state did not resolve it", s.Address))
			continue
		case !res.Found && s.Version > 0:
			ds = append(ds, diag.Errorf(s.Range, "%s: the service has no %s %s of %s %s that no project owns", s.Address, versionWord(s.Kind), fmt.Sprint(s.Version), s.Kind, s.Name))
			continue
		case !res.Found:
			d := diag.Errorf(s.Range, "%s: the service has no %s %s that no project owns", s.Address, s.Kind, s.Name)
			d.Detail = fmt.Sprintf("a data source refers to a resource of project \"-\" by its name (%s); create it there, or declare the %s in the configuration", schema.Address(s.Kind, s.Name), s.Kind)
			ds = append(ds, d)
			continue
		}
		out = append(out, DataSource{Address: s.Address, Kind: s.Kind, Name: s.Name, Target: res.Address, Version: res.Version, Pinned: s.Version > 0, Hash: res.Hash})
	}
	if len(ds) > 0 {
		return nil, ds.Sort()
	}
	return out, nil
}

func versionWord(k schema.Kind) string {
	switch k {
	case schema.KindDataset:
		return "revision"
	case schema.KindSecret:
		return "value revision"
	}
	return "version"
}

// dataPins are the pins of the data sources dr uses, as the plan resolved
// them, sorted by address.
func (pl *planning) dataPins(dr *schema.Resource) []state.DataPin {
	return pinsOf(dr.DependsOn, func(a string) (DataSource, bool) {
		s, ok := pl.data[a]
		return s, ok
	})
}

// dataMoves lists the data sources dr uses that resolve to something
// else than what sr was applied with, with why, by address.
func (pl *planning) dataMoves(dr *schema.Resource, sr *Resource) []Reason {
	was := map[string]state.DataPin{}
	for _, p := range sr.DataPins {
		was[p.Address] = p
	}
	var out []Reason
	for _, p := range pl.dataPins(dr) {
		old, ok := was[p.Address]
		if ok && old.Target == p.Target && old.Version == p.Version && old.Hash == p.Hash {
			continue // pinning what it was applied with changes nothing
		}
		now := pl.data[p.Address].Describe()
		msg := fmt.Sprintf("%s is %s now", p.Address, now)
		switch {
		case !ok:
			msg = fmt.Sprintf("%s (%s) was not used when it was last applied", p.Address, now)
		case old.Target != p.Target:
			msg = fmt.Sprintf("%s names %s now, not %s", p.Address, p.Target, old.Target)
		case old.Version != p.Version:
			msg = fmt.Sprintf("%s is %s now; this was applied with %s %d", p.Address, now, versionWord(schema.KindOf(p.Target)), old.Version)
		case old.Hash != p.Hash:
			msg = fmt.Sprintf("%s is %s, changed since this was applied (%s → %s)", p.Address, now, short(old.Hash), short(p.Hash))
		}
		out = append(out, Reason{Code: ReasonData, Message: msg})
	}
	return out
}
