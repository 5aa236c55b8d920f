package planner

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// Issue 10: moves, forgetting, adoption. The configuration's lifecycle
// declarations (schema.Desired's Moves, Removed and Imports) change how
// the plan treats what the service has:
//
//   - a resource the state has at a move's From, and the configuration
//     declares at its To, is planned as that resource moved: the change
//     at To has MovedFrom (Action NoOp when nothing else changes), never
//     a delete and a create. The plan is made against the state with the
//     move done (movedState), as the service will have it.
//   - a removed resource the state has is forgotten (Forget), not deleted.
//   - an import whose address the state lacks adopts the unowned resource
//     the state read brought (State.Unowned): Import, with the fields that
//     differ from the configuration.

// moves are a plan's effective moves: by the address moved to, the
// address the state has the resource at.
type moves map[string]string

// planMoves checks the configuration's moves against the state and returns
// the effective ones, or the positioned errors of those that cannot be:
// a move onto an address the state has too, one whose From the state does
// not have and no chain of moves passes through (unless it is done
// already: the state has its To), and two resources moved to one address.
func planMoves(d *schema.Desired, st *State) (moves, error) {
	mv := moves{}
	var ds diag.Diagnostics
	for _, m := range d.Moves {
		from, to := st.Lookup(m.From) != nil || st.SecretValue(m.From) != nil, st.Lookup(m.To) != nil || st.SecretValue(m.To) != nil
		switch {
		case from && to:
			ds = append(ds, diag.Errorf(m.Range, "moved %s to %s: the state has both; remove the moved block, or the resource at %s first", m.From, m.To, m.To))
		case from && mv[m.To] != "":
			ds = append(ds, diag.Errorf(m.Range, "moved %s to %s: %s is moved there too", m.From, m.To, mv[m.To]))
		case from:
			mv[m.To] = m.From
		}
	}
	for _, m := range d.Moves {
		from, to := st.Lookup(m.From) != nil || st.SecretValue(m.From) != nil, st.Lookup(m.To) != nil || st.SecretValue(m.To) != nil
		if !from && !to && mv[m.To] == "" {
			ds = append(ds, diag.Errorf(m.Range, "moved from %s, which the state of project %s does not have, nor does a chain of moves lead through it: remove the moved block, or fix its from", m.From, d.Project))
		}
	}
	if len(ds) > 0 {
		return nil, ds.Sort()
	}
	return mv, nil
}

// movedState is st with the moves done as the service does them: each
// resource (and secret value) at its new address with its versions, and
// every reference to it (depends_on, pins, the secret revisions of
// versions) renamed.
func movedState(st *State, mv moves) *State {
	if len(mv) == 0 {
		return st
	}
	newAddr := map[string]string{}
	for to, from := range mv {
		newAddr[from] = to
	}
	rename := func(a string) string {
		if n, ok := newAddr[a]; ok {
			return n
		}
		return a
	}
	out := *st
	out.Resources = make([]Resource, len(st.Resources))
	for i, r := range st.Resources {
		r.Address = rename(r.Address)
		_, r.Name, _ = schema.ParseAddress(r.Address)
		r.DependsOn = renamedAll(r.DependsOn, rename)
		r.Pins = append(r.Pins[:0:0], r.Pins...)
		for j := range r.Pins {
			r.Pins[j].Address = rename(r.Pins[j].Address)
		}
		r.Versions = append([]Version(nil), r.Versions...)
		for j := range r.Versions {
			v := &r.Versions[j]
			v.Secrets = append(v.Secrets[:0:0], v.Secrets...)
			for k := range v.Secrets {
				v.Secrets[k].Address = rename(v.Secrets[k].Address)
			}
		}
		out.Resources[i] = r
	}
	sort.Slice(out.Resources, func(i, j int) bool { return out.Resources[i].Address < out.Resources[j].Address })
	out.SecretValues = append(st.SecretValues[:0:0], st.SecretValues...)
	for i := range out.SecretValues {
		out.SecretValues[i].Address = rename(out.SecretValues[i].Address)
	}
	sort.Slice(out.SecretValues, func(i, j int) bool { return out.SecretValues[i].Address < out.SecretValues[j].Address })
	return &out
}

func renamedAll(as []string, rename func(string) string) []string {
	if len(as) == 0 {
		return as
	}
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = rename(a)
	}
	sort.Strings(out)
	return out
}

// markMoves marks the change of each moved resource, adding one (NoOp)
// where nothing else changes, and returns the changes in address order.
func (pl *planning) markMoves(order []*Change, mv moves, sum *Summary) []*Change {
	for _, to := range addressesOf(mv) {
		from := mv[to]
		if c := pl.changes[to]; c != nil {
			c.MovedFrom = from // explainOnce says so first
			continue
		}
		dr, sr := pl.want[to], pl.st.Lookup(to)
		if dr == nil || sr == nil {
			continue // a secret value alone, or --destroy: nothing to show
		}
		c := &Change{Addr: to, Kind: dr.Kind, Action: NoOp, MovedFrom: from, Reasons: []Reason{movedReason(from, to)},
			BeforeHash: sr.Hash, AfterHash: dr.Hash, DependsOn: dr.DependsOn, Range: dr.Range}
		if len(pl.ignored[to]) > 0 {
			// What apply keeps of the service's by ignore_changes, as an
			// update's before holds it (applier and File.Check redo it).
			c.Before = redact(sr.Spec, sr.Sensitive)
		}
		pl.changes[to] = c
		pl.explained[to] = true
		order = append(order, c)
		sum.Unchanged--
	}
	sort.SliceStable(order, func(i, j int) bool { return order[i].Addr < order[j].Addr })
	return order
}

// movedReason says that from has moved to to.
func movedReason(from, to string) Reason {
	return Reason{Code: ReasonMoved, Message: fmt.Sprintf("%s has moved to %s", from, to)}
}

// imports are the configuration's imports, by the address they adopt at.
func importsOf(d *schema.Desired) map[string]*schema.Imported {
	out := map[string]*schema.Imported{}
	for i := range d.Imports {
		out[d.Imports[i].To] = &d.Imports[i]
	}
	return out
}

// importChange is the change that adopts the unowned resource an import
// names at addr (declared as dr, nil when the configuration does not
// declare it), or nil with the import's positioned error when the
// service has no such resource.
func (pl *planning) importChange(addr string, im *schema.Imported, dr *schema.Resource) *Change {
	u := pl.st.UnownedAt(im.Unowned())
	if u == nil {
		pl.errs = append(pl.errs, diag.Errorf(im.Range, "import %s: the service has no unowned %s with id %q", addr, schema.KindOf(addr), im.ID))
		return nil
	}
	if dr == nil && !pl.o.UndeclaredImports {
		pl.errs = append(pl.errs, diag.Errorf(im.Range,
			"import %s: the configuration does not declare %s; declare it, or write it with cc plan --generate-config-out FILE", addr, addr))
		return nil
	}
	c := &Change{Addr: addr, Kind: schema.KindOf(addr), Action: Import, ImportID: im.ID}
	pl.imported[addr] = u
	return c
}

// explainImport explains an import: the reason, then the fields in which
// the configuration differs from what the service has (the update apply
// makes after adopting it). A field that forces replacement is said; the
// change stays an import, which apply follows with the replacement.
func (pl *planning) explainImport(c *Change, dr *schema.Resource, u *Resource) {
	reason := Reason{Code: ReasonImport, Message: fmt.Sprintf("%s will be imported: the service's unowned %s %q becomes the project's", c.Addr, c.Kind, c.ImportID)}
	if dr == nil {
		c.Before, c.BeforeHash, c.DependsOn = redact(u.Spec, u.Sensitive), u.Hash, u.DependsOn
		c.Reasons = []Reason{reason, {Code: ReasonImport, Message: "the configuration does not declare it yet: --generate-config-out writes its declaration"}}
		return
	}
	if dr.Hash == u.Hash {
		c.Before, c.BeforeHash = redact(u.Spec, u.Sensitive), u.Hash
		c.After, c.AfterHash, c.DependsOn, c.Range = redact(dr.Spec, dr.Sensitive), dr.Hash, dr.DependsOn, dr.Range
		if dr.Kind.Versioned() && u.Version != 0 {
			c.Version = &VersionChange{Action: "reuse", Number: u.Version, Current: u.Version}
		}
		c.Reasons = []Reason{reason}
		return
	}
	c.Action = Update
	pl.explain(c, dr, u)
	c.Action = Import
	c.Reasons = append([]Reason{reason}, c.Reasons...)
	if dr.Kind == schema.KindSecret {
		importedSecretValue(c)
	}
}

// importedSecretValue leaves out of an imported secret's change what the
// planner says of its local value: it was compared with the project's
// revisions, which the project does not have yet. The unowned secret's
// revisions come with it; the next plan compares the local value with them.
func importedSecretValue(c *Change) {
	c.SecretValue = ""
	fields := c.Fields[:0]
	for _, f := range c.Fields {
		if f.Path != "value" || !f.Sensitive {
			fields = append(fields, f)
		}
	}
	c.Fields = fields
	reasons := c.Reasons[:0]
	for _, r := range c.Reasons {
		if r.Code != ReasonSecret {
			reasons = append(reasons, r)
		}
	}
	c.Reasons = append(reasons, Reason{Code: ReasonImport, Message: "its value comes with it: the next plan compares the local value with it"})
}

// forgetChange is the change that forgets the removed resource sr.
func forgetChange(sr *Resource, rm *schema.Removed) *Change {
	return &Change{Addr: sr.Address, Kind: sr.Kind, Action: Forget, BeforeHash: sr.Hash, Before: redact(sr.Spec, sr.Sensitive),
		DependsOn: sr.DependsOn, Range: rm.Range,
		Reasons: []Reason{{Code: ReasonForget, Message: fmt.Sprintf("%s will be forgotten by the project, not destroyed: the service keeps it, unowned", sr.Address)}}}
}

// addressesOf are the keys of m, sorted.
func addressesOf[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// moveSymbol is "->" and true for a change that only moves its resource.
func (c *Change) moveSymbol() (string, bool) {
	return "->", c.Action == NoOp && c.MovedFrom != ""
}

// lifecyclePhrase is ActionPhrase for moves, imports and forgets, "" for
// other changes.
func lifecyclePhrase(c *Change) string {
	switch {
	case c.Action == Forget:
		return "forget (the service keeps it)"
	case c.Action == Import && c.After == nil:
		return "import (not declared in the configuration yet)"
	case c.Action == Import && c.BeforeHash != c.AfterHash:
		if len(c.ReplaceBecause) > 0 {
			return fmt.Sprintf("import, then replace (%s)", strings.Join(c.ReplaceBecause, ", "))
		}
		return "import, then update in place"
	case c.Action == Import:
		return "import"
	case c.MovedFrom != "" && c.Action == NoOp:
		return "move from " + c.MovedFrom
	case c.MovedFrom != "":
		m := *c
		m.MovedFrom = ""
		return "move from " + c.MovedFrom + ", then " + ActionPhrase(&m)
	}
	return ""
}

// lifecycleLegend adds the marks of the plan's moves, imports and forgets
// to the text view's legend.
func lifecycleLegend(p *Plan, pt painter) string {
	var s string
	if p.Summary.Import > 0 {
		s += fmt.Sprintf(", %s import", pt.action(Import, Import.Symbol()))
	}
	if p.Summary.Forget > 0 {
		s += fmt.Sprintf(", %s forget", pt.action(Forget, Forget.Symbol()))
	}
	if p.Summary.Moved > 0 {
		s += fmt.Sprintf(", %s move", pt.action(NoOp, "->"))
	}
	return s
}

// lifecycleCounts adds the counts of moves, imports and forgets to the
// summary line, those that are not 0.
func lifecycleCounts(s Summary) string {
	var out string
	if s.Import > 0 {
		out += fmt.Sprintf(", %d to import", s.Import)
	}
	if s.Forget > 0 {
		out += fmt.Sprintf(", %d to forget", s.Forget)
	}
	if s.Moved > 0 {
		out += fmt.Sprintf(", %d to move", s.Moved)
	}
	return out
}

// writeLifecycleCountTable is the Markdown count table of a plan with
// moves, imports or forgets.
func writeLifecycleCountTable(b *bytes.Buffer, p *Plan, counts map[schema.Kind]map[Action]int) {
	moved := map[schema.Kind]int{}
	for i := range p.Changes {
		if c := &p.Changes[i]; c.MovedFrom != "" {
			moved[c.Kind]++
		}
	}
	b.WriteString("| kind | delete | replace | update | create | import | forget | move |\n|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, k := range schema.Kinds {
		m := counts[k]
		if m == nil {
			continue
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %d | %d | %d |\n", k, m[Delete], m[Replace], m[Update], m[Create], m[Import], m[Forget], moved[k])
	}
}

// checkLifecycle checks a plan file's change against the lifecycle
// declarations of its desired state: a move is one of its moves (and the
// state has nothing at its new address), a forget one of its removed
// addresses, an import one of its imports. It returns the address the
// state the plan was made against has the resource at.
func (f *File) checkLifecycle(c *Change) (string, error) {
	d := f.Desired
	at := c.Addr
	if c.MovedFrom != "" {
		ok := false
		for _, m := range d.Moves {
			ok = ok || (m.From == c.MovedFrom && m.To == c.Addr)
		}
		if !ok || c.Action == Import || c.Action == Forget {
			return "", fmt.Errorf("%s: moved from %s, which the desired state does not move", c.Addr, c.MovedFrom)
		}
		if _, has := f.State.Resources[c.Addr]; has {
			return "", fmt.Errorf("%s: moved there, but the state it was planned against has it", c.Addr)
		}
		at = c.MovedFrom
	}
	switch c.Action {
	case Forget:
		ok := false
		for _, r := range d.Removed {
			ok = ok || r.Address == c.Addr
		}
		if !ok {
			return "", fmt.Errorf("%s: forgotten, but the desired state does not remove it", c.Addr)
		}
	case Import:
		ok := false
		for _, im := range d.Imports {
			ok = ok || (im.To == c.Addr && im.ID == c.ImportID)
		}
		if !ok {
			return "", fmt.Errorf("%s: imported from %q, which the desired state does not import", c.Addr, c.ImportID)
		}
	}
	return at, nil
}

// checkLifecycleDesired checks the lifecycle declarations of a plan
// file's desired state: addresses of known kinds, valid ids.
func checkLifecycleDesired(d *schema.Desired) error {
	var addrs []string
	for _, m := range d.Moves {
		if schema.KindOf(m.From) != schema.KindOf(m.To) {
			return fmt.Errorf("move %s to %s: another kind", m.From, m.To)
		}
		addrs = append(addrs, m.From, m.To)
	}
	for _, r := range d.Removed {
		addrs = append(addrs, r.Address)
	}
	for _, im := range d.Imports {
		if !schema.ValidUnownedID(im.ID) {
			return fmt.Errorf("import %s: bad id %q", im.To, im.ID)
		}
		addrs = append(addrs, im.To)
	}
	for _, a := range addrs {
		if !schema.ValidAddress(a) || schema.KindOf(a) == schema.KindImage {
			return fmt.Errorf("lifecycle declaration: bad address %q", a)
		}
	}
	return nil
}
