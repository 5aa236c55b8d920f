package planner

import (
	"fmt"
	"sort"

	"cc.dev/cc/schema"
	"cc.dev/cc/state"
)

// The data sources of a plan file (issue 10): the file's desired state
// lists them, its plan says what each resolved to, and cc apply PLANFILE
// resolves them again in its read of the state (DataLookups of the file's
// desired state) and refuses the plan when one resolves to something else.

// checkData checks the data sources of a file read: well formed, sorted,
// every data dependency declared, and the plan's resolution of each (none
// for a destroy) consistent with its declaration.
func (f *File) checkData() error {
	d, p := f.Desired, f.Plan
	declared := map[string]bool{}
	for i, s := range d.Data {
		k, _, ok := schema.ParseDataAddress(s.Address)
		switch {
		case !ok || k != s.Kind || !schema.ValidName(s.Name):
			return fmt.Errorf("data source %d: bad address %q, kind %q or name %q", i, s.Address, s.Kind, s.Name)
		case s.Version < 0 || s.Version > 0 && !k.Versioned():
			return fmt.Errorf("%s: version %d", s.Address, s.Version)
		case i > 0 && d.Data[i-1].Address >= s.Address:
			return fmt.Errorf("data sources not sorted at %s", s.Address)
		}
		declared[s.Address] = true
	}
	for _, r := range d.Resources {
		for _, dep := range r.DependsOn {
			if schema.KindOf(dep) == "data" && !declared[dep] {
				return fmt.Errorf("%s depends on %s, which the desired state does not declare", r.Address, dep)
			}
		}
	}
	if p.Destroy {
		if len(p.Data) > 0 {
			return fmt.Errorf("a destroy plan resolves no data source, and this one has %d", len(p.Data))
		}
		return nil
	}
	if len(p.Data) != len(d.Data) {
		return fmt.Errorf("the plan resolves %d data sources of the %d the desired state declares", len(p.Data), len(d.Data))
	}
	for i, r := range p.Data {
		s := d.Data[i]
		switch {
		case r.Address != s.Address || r.Kind != s.Kind || r.Name != s.Name || r.Target != schema.Address(s.Kind, s.Name):
			return fmt.Errorf("data source %d: the plan resolves %s (%s) for %s (%s)", i, r.Address, r.Target, s.Address, schema.Address(s.Kind, s.Name))
		case r.Pinned != (s.Version > 0) || r.Pinned && r.Version != s.Version || r.Version < 0:
			return fmt.Errorf("%s: resolved to version %d (pinned %t), declared with version %d", r.Address, r.Version, r.Pinned, s.Version)
		case r.Hash != "" && !hashRE().MatchString(r.Hash):
			return fmt.Errorf("%s: bad hash %q", r.Address, r.Hash)
		}
	}
	return nil
}

// dataChanges lists the plan's data sources that resolve to something
// else in st (which resolved the file's DataLookups), one line each.
func (f *File) dataChanges(st *State) []string {
	var out []string
	for _, r := range f.Plan.Data {
		l := state.DataLookup{Kind: r.Kind, Name: r.Name}
		if r.Pinned {
			l.Version = r.Version
		}
		now, asked := st.Resolved(l)
		switch {
		case !asked:
			out = append(out, fmt.Sprintf("%s was not resolved again", r.Address))
		case !now.Found:
			out = append(out, fmt.Sprintf("%s: the service no longer has %s (the plan was made with %s)", r.Address, r.Target, r.Describe()))
		case now.Version != r.Version || now.Hash != r.Hash:
			is := r
			is.Version, is.Hash = now.Version, now.Hash
			what := is.Describe()
			if now.Version == r.Version {
				what += fmt.Sprintf(", changed (%s → %s)", short(r.Hash), short(now.Hash))
			}
			out = append(out, fmt.Sprintf("%s is %s now; the plan was made with %s", r.Address, what, r.Describe()))
		}
	}
	sort.Strings(out)
	return out
}
