package planner

import (
	"errors"
	"fmt"
	"sort"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// Options shape a plan. The zero value plans every change.
type Options struct {
	// Targets limits the plan to these addresses and the changes they
	// need first (what they refer to; for a delete, what referred to it).
	Targets []string
	// Excludes leaves these addresses out, and every change that needs
	// one of them.
	Excludes []string
	// Replace forces these resources to be replaced even if unchanged; a
	// replaced function gets a new version.
	Replace []string
	// NewVersion forces these functions to get a new version even if
	// unchanged (--new-version): the image and source are reused.
	NewVersion []string
	// Destroy plans the deletion of everything the state has.
	Destroy bool
	// Secrets describe, by address, the local values of secrets read from
	// the environment or an env file: how they compare with the service's
	// revisions, never the values. A secret with a local source and no
	// entry is not compared.
	Secrets map[string]LocalSecret
	// SensitiveChanged lists, by address, the resources and images whose
	// hash is the service's but some of whose sensitive values differ from
	// the service's (its comparison says so): a hash is computed without
	// sensitive values, so only the service can tell.
	SensitiveChanged map[string]bool
	// SensitiveVersions lists, by address of a function or dataset with
	// sensitive values (its own or its image's), the numbers of its
	// versions made with the local sensitive values, as the service's
	// comparisons say: only these can be reused. A resource without an
	// entry is not restricted.
	SensitiveVersions map[string][]int64
	// Content gives old and new file contents and file lists, for the
	// line diffs of changed files; nil gives names only.
	Content Content
	// RefreshOnly plans no change: the plan has only the state's drift
	// (what changed outside cc), for cc apply --refresh-only to record.
	RefreshOnly bool
	// UndeclaredImports plans the imports whose address the configuration
	// does not declare (cc plan --generate-config-out): they adopt the
	// resource as the service has it. Without it they are errors.
	UndeclaredImports bool
}

// LocalSecret is what the planner learns of a secret's local value.
type LocalSecret struct {
	// Source is where the value is read: "OPENAI_API_KEY", "dev.env".
	Source string
	// Fingerprint labels the value so that equal labels mean equal values,
	// as the state's (State.Secrets, Version.Secrets) do: the caller makes
	// the labels from the service's comparisons, and nothing in them is
	// derived from a value. "" when the value could not be read.
	Fingerprint string
	// Problem says why it could not be read, naming the variable or file
	// and never a value.
	Problem string
}

// Content gives the planner what it shows of changed files. The planner
// itself never reads a file or calls a service: the caller does, through
// this, and only for files that changed.
type Content interface {
	// Tree returns the entries of the file tree with the digest.
	Tree(digest string) ([]schema.TreeEntry, bool)
	// File returns the content of the file with the digest; false when it
	// is not available (or too large to diff).
	File(digest string) ([]byte, bool)
}

// movedAndIgnored applies the configuration's moves to the state and
// its ignore_changes to the desired state, which then compares with the
// state at the moved addresses; a destroy does neither.
func movedAndIgnored(d *schema.Desired, st *State, o Options) (*schema.Desired, *State, moves, map[string][]string, error) {
	if o.Destroy {
		return d, st, moves{}, nil, nil
	}
	mv, err := planMoves(d, st)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	st = movedState(st, mv)
	d, ignored, err := ignoring(d, st)
	if err != nil {
		return nil, nil, nil, nil, err
	}
	return d, st, mv, ignored, nil
}

// Diff compares a project's desired state with the state its service
// holds and returns the plan that makes them equal. It does no I/O and
// reads no clock: the same inputs give the same plan.
func Diff(d *schema.Desired, st *State, o Options) (*Plan, error) {
	if d == nil {
		return nil, errors.New("no desired state")
	}
	if st == nil {
		st = &State{Project: d.Project}
	}
	if st.Project != "" && st.Project != d.Project {
		return nil, fmt.Errorf("the state is of project %s, not %s", st.Project, d.Project)
	}
	if o.RefreshOnly {
		return &Plan{FormatVersion: FormatVersion, Project: d.Project, Env: envOf(d.Project), Serial: st.Serial, RefreshOnly: true, Changes: []Change{},
			Summary: Summary{Unchanged: len(st.Resources)}, Drift: driftOf(st)}, nil
	}
	d, st, mv, ignored, err := movedAndIgnored(d, st, o)
	if err != nil {
		return nil, err
	}
	pl := newPlanning(d, st, withInstances(d, st, o))
	pl.ignored = ignored
	for to, from := range mv {
		pl.renamed[from] = to
	}
	if err := pl.expandModules(); err != nil {
		return nil, err
	}
	if err := pl.checkAddresses(); err != nil {
		return nil, err
	}
	p := &Plan{FormatVersion: FormatVersion, Project: d.Project, Env: envOf(d.Project), Serial: st.Serial, Destroy: o.Destroy, Changes: []Change{}}
	if !o.Destroy {
		if p.Data, err = resolveData(d, st); err != nil {
			return nil, err
		}
		for _, s := range p.Data {
			pl.data[s.Address] = s
		}
	}
	addrs := pl.addresses()
	order := pl.changesAt(addrs, &p.Summary)
	order = append(order, pl.undeclaredImports()...)
	if len(pl.errs) > 0 {
		return nil, pl.errs.Sort()
	}
	order = pl.markMoves(order, mv, &p.Summary)
	pl.secretWarnings(addrs)
	pl.externalSecretWarning()
	pl.createFields(order)
	for _, c := range order {
		pl.explainOnce(c)
	}
	pl.lifecycles(order)
	pl.needs(order)
	kept, skipped := pl.filter(order)
	if err := pl.refuseProtected(kept); err != nil {
		return nil, err
	}
	for _, c := range kept {
		p.Changes = append(p.Changes, *c)
		p.Summary.count(c)
	}
	p.Skipped = skipped
	p.Warnings = pl.warnings
	p.DataLoss = DataLoss(p, st)
	p.DeletesAll = deletesAll(p, len(st.Resources))
	p.Drift = driftOf(st)
	if o.Destroy {
		p.Outputs = diffOutputs(nil, st.Outputs)
	} else {
		p.Outputs = diffOutputs(d.Outputs, st.Outputs)
	}
	return p, nil
}

// newPlanning indexes the desired state (by address and alias, and its
// images by hash, none when destroying) and the state's images.
func newPlanning(d *schema.Desired, st *State, o Options) *planning {
	pl := &planning{d: d, st: st, o: o, want: map[string]*schema.Resource{}, byHash: map[string]*schema.Resource{},
		changes: map[string]*Change{}, replace: map[string]bool{}, explained: map[string]bool{},
		managed: map[string]bool{}, vsecrets: map[string][]VersionSecret{}, images: map[string]*Image{}, data: map[string]DataSource{},
		removed: map[string]*schema.Removed{}, imports: importsOf(d), imported: map[string]*Resource{}, renamed: map[string]string{}}
	for i := range d.Removed {
		pl.removed[d.Removed[i].Address] = &d.Removed[i]
	}
	if o.Destroy {
		pl.imports = map[string]*schema.Imported{} // a destroy adopts nothing
	}
	for i := range st.Images {
		pl.images[st.Images[i].Hash] = &st.Images[i]
	}
	for i := range d.Resources {
		r := &d.Resources[i]
		if r.Kind == schema.KindImage {
			pl.byHash[r.Hash] = r
		}
		if o.Destroy {
			continue
		}
		pl.want[r.Address] = r
		for _, a := range r.Aliases {
			if a == "" {
				continue
			}
			if _, _, ok := cutAddress(a); !ok {
				a = schema.Address(schema.KindImage, a)
			}
			pl.want[a] = r
		}
	}
	for _, a := range o.Replace {
		pl.replace[a] = true
	}
	pl.newVersion = map[string]bool{}
	for _, a := range o.NewVersion {
		pl.newVersion[a] = true
	}
	return pl
}

// addresses are those of the configuration and the state, sorted.
func (pl *planning) addresses() []string {
	addrs := make([]string, 0, len(pl.want)+len(pl.st.Resources))
	for a := range pl.want {
		addrs = append(addrs, a)
	}
	for _, r := range pl.st.Resources {
		if pl.want[r.Address] == nil {
			addrs = append(addrs, r.Address)
		}
	}
	sort.Strings(addrs)
	return addrs
}

// changesAt makes the change at each address that needs one, in order,
// counting the unchanged ones in sum.
func (pl *planning) changesAt(addrs []string, sum *Summary) []*Change {
	var order []*Change
	for _, addr := range addrs {
		dr, sr := pl.want[addr], pl.st.Lookup(addr)
		var c *Change
		switch {
		case dr != nil && sr == nil && pl.imports[addr] != nil:
			if c = pl.importChange(addr, pl.imports[addr], dr); c == nil {
				continue
			}
		case dr != nil && sr == nil, dr != nil && sr.Gone():
			// A sandbox that expired or was terminated is created again.
			c = &Change{Addr: addr, Kind: dr.Kind, Action: Create}
			if pl.replace[addr] {
				pl.warnings = append(pl.warnings, fmt.Sprintf("--replace %s: it does not exist yet; it is created", addr))
			}
			if pl.newVersion[addr] {
				pl.warnings = append(pl.warnings, fmt.Sprintf("--new-version %s: it does not exist yet; it is created with its first version", addr))
			}
		case dr == nil && pl.removed[addr] != nil:
			c = forgetChange(sr, pl.removed[addr])
			pl.explained[addr] = true
		case dr == nil:
			c = &Change{Addr: addr, Kind: sr.Kind, Action: Delete}
		default:
			value := pl.secretValue(addr, dr)
			if dr.Hash == sr.Hash && !pl.replace[addr] && !pl.forced(addr) && value != "changed" && !pl.versionMoves(dr, sr) && len(pl.repins(sr)) == 0 && pl.sensitiveMoved(addr) == "" &&
				len(pl.secretValuesMoved(dr)) == 0 && len(pl.dataMoves(dr, sr)) == 0 && !protectionMoves(dr, sr) {
				sum.Unchanged++
				continue
			}
			c = &Change{Addr: addr, Kind: dr.Kind, Action: Update}
			if pl.replace[addr] {
				c.Action = Replace
				c.ReplaceBecause = append(c.ReplaceBecause, "--replace")
			}
		}
		pl.changes[addr] = c
		order = append(order, c)
	}
	return order
}

// secretWarnings warn of the secrets of the configuration whose local
// value could not be read.
func (pl *planning) secretWarnings(addrs []string) {
	for _, addr := range addrs {
		r := pl.want[addr]
		ls, ok := pl.o.Secrets[addr]
		if r == nil || r.Kind != schema.KindSecret || !ok || ls.Fingerprint != "" {
			continue
		}
		if rev, has := secretRevision(pl.st, addr); has {
			pl.warnings = append(pl.warnings, fmt.Sprintf("%s: %s; the service keeps revision %d of its value", addr, ls.Problem, rev.Revision))
		} else {
			pl.warnings = append(pl.warnings, fmt.Sprintf("%s: %s, and the service has no value for it: apply will fail until it is set", addr, ls.Problem))
		}
	}
}

// count counts a change of the plan.
func (s *Summary) count(c *Change) {
	switch c.Action {
	case Create:
		s.Create++
	case Update:
		s.Update++
	case Replace:
		s.Replace++
	case Delete:
		s.Delete++
	case Forget:
		s.Forget++
	case Import:
		s.Import++
	}
	if c.MovedFrom != "" {
		s.Moved++
	}
	if v := c.Version; v != nil {
		switch {
		case v.Action == "reuse":
			s.ReusedVersions++
		case c.Kind == schema.KindScalingGroup:
			s.NewRevisions++
		default:
			s.NewVersions++
		}
	}
}

type planning struct {
	d  *schema.Desired
	st *State
	o  Options
	// want holds the desired resources by address, an image once under
	// each of its names.
	want map[string]*schema.Resource
	// byHash holds the desired images by hash.
	byHash  map[string]*schema.Resource
	changes map[string]*Change
	replace map[string]bool
	// newVersion holds the --new-version addresses.
	newVersion map[string]bool
	warnings   []string
	// explained marks the changes explained so far: a reference may ask
	// for a change's reasons before its turn.
	explained map[string]bool
	// created are the field changes of creates computed ahead, on every
	// core (createFields), by change.
	created map[*Change][]FieldChange
	// fieldScratch is addedFields' list, for the creates explain lists.
	fieldScratch []FieldChange
	// diffsShown counts the files diffed, against maxPlanFileDiffs.
	diffsShown int
	// managed caches, by secret address, whether the service manages the
	// secret's value; vsecrets, by address, a versioned resource's
	// versionSecrets.
	managed  map[string]bool
	vsecrets map[string][]VersionSecret
	// moved caches sensitiveMoved.
	moved map[string]string
	// images are the state's images, by hash.
	images map[string]*Image
	// data are the data sources as the plan resolved them, by address.
	data map[string]DataSource
	// ignored are, by address, the paths of lifecycle.ignore_changes at
	// which the configuration differs from the state (lifecycle.go).
	ignored map[string][]string
	// removed and imports are the configuration's removed and import
	// declarations by address; imported the unowned resources the
	// imports adopt; errs the positioned errors of imports that cannot be.
	removed  map[string]*schema.Removed
	imports  map[string]*schema.Imported
	imported map[string]*Resource
	errs     diag.Diagnostics
	// renamed maps the addresses the plan's moves rename to their new
	// ones: a reference that follows one does not force a replacement.
	renamed map[string]string
}

func cutAddress(a string) (schema.Kind, string, bool) { return schema.ParseAddress(a) }

func (pl *planning) explainOnce(c *Change) {
	if pl.explained[c.Addr] {
		return
	}
	pl.explained[c.Addr] = true
	if c.Action == Import {
		pl.explainImport(c, pl.want[c.Addr], pl.imported[c.Addr])
		return
	}
	pl.explain(c, pl.want[c.Addr], pl.st.Lookup(c.Addr))
	if c.MovedFrom != "" {
		c.Reasons = append([]Reason{movedReason(c.MovedFrom, c.Addr)}, c.Reasons...)
	}
}

// undeclaredImports are the changes of the imports whose address neither
// the configuration nor the state has.
func (pl *planning) undeclaredImports() []*Change {
	var out []*Change
	for _, addr := range addressesOf(pl.imports) {
		if pl.want[addr] != nil || pl.st.Lookup(addr) != nil {
			continue
		}
		if c := pl.importChange(addr, pl.imports[addr], nil); c != nil {
			pl.changes[addr] = c
			out = append(out, c)
		}
	}
	return out
}

// allAddresses lists, sorted, the addresses of the configuration and the
// state (an address in both appears twice).
func (pl *planning) allAddresses() []string {
	var all []string
	for a := range pl.want {
		all = append(all, a)
	}
	for _, r := range pl.st.Resources {
		all = append(all, r.Address)
	}
	sort.Strings(all)
	return all
}

// checkAddresses refuses option addresses that name nothing.
func (pl *planning) checkAddresses() error {
	known := func(a string) bool { return pl.want[a] != nil || pl.st.Lookup(a) != nil }
	all := pl.allAddresses()
	var errs []error
	for _, set := range []struct {
		flag  string
		addrs []string
	}{{"--target", pl.o.Targets}, {"--exclude", pl.o.Excludes}, {"--replace", pl.o.Replace}} {
		for _, a := range set.addrs {
			if _, _, ok := cutAddress(a); !ok {
				errs = append(errs, fmt.Errorf("%s %s: not an address KIND.NAME (%s.NAME, ...)", set.flag, a, schema.KindSandbox))
				continue
			}
			if !known(a) {
				errs = append(errs, pl.unknownAddress(set.flag, a, "resource", all))
				continue
			}
			if set.flag == "--replace" && schema.KindOf(a) == schema.KindImage {
				errs = append(errs, fmt.Errorf("--replace %s: an image is a value, not something to replace; change it, or replace what uses it", a))
			}
		}
	}
	errs = append(errs, pl.checkNewVersion(all))
	return errors.Join(errs...)
}

// unknownAddress is the error of a flag naming an address that neither
// the configuration nor the state (as the plan's moves leave it) has, a
// "resource" or "function": where it moves when this plan moves it away
// (issue 10: moves), else a did-you-mean among all.
func (pl *planning) unknownAddress(flag, a, what string, all []string) error {
	if to := pl.renamed[a]; to != "" {
		return fmt.Errorf("%s %s: this plan moves %s to %s; name %s", flag, a, a, to, to)
	}
	msg := fmt.Sprintf("%s %s: no such %s in the configuration or the state", flag, a, what)
	if s := diag.Suggest(a, all); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", s)
	}
	return errors.New(msg)
}

// secretValue says what happens to the local value of a secret: "set" (it
// has none on the service yet), "changed", or "".
func (pl *planning) secretValue(addr string, dr *schema.Resource) string {
	if dr.Kind != schema.KindSecret {
		return ""
	}
	ls, ok := pl.o.Secrets[addr]
	if !ok {
		return ""
	}
	rev, has := secretRevision(pl.st, addr)
	switch {
	case ls.Fingerprint == "":
		return ""
	case !has:
		return "set"
	case rev.Fingerprint != ls.Fingerprint:
		return "changed"
	}
	return ""
}

// needs records, for each change, the changes that must be done first:
// creates and updates after what they refer to; deletes and forgets after
// every change of what referred to them.
func (pl *planning) needs(order []*Change) {
	dependants := map[string][]string{}
	for _, r := range pl.st.Resources {
		for _, d := range r.DependsOn {
			dependants[d] = append(dependants[d], r.Address)
		}
	}
	for _, c := range order {
		var needs []string
		if c.Action == Delete || c.Action == Forget {
			for _, s := range dependants[c.Addr] {
				if dc := pl.changes[s]; dc != nil && s != c.Addr {
					needs = append(needs, s)
				}
			}
		} else {
			for _, d := range c.DependsOn {
				if dc := pl.changes[d]; dc != nil && dc.Action != Delete && d != c.Addr {
					needs = append(needs, d)
				}
			}
		}
		sort.Strings(needs)
		c.Needs = compact(needs)
	}
}

// filter applies --target and --exclude.
func (pl *planning) filter(order []*Change) (kept []*Change, skipped []string) {
	keep := map[string]bool{}
	for _, c := range order {
		keep[c.Addr] = true
	}
	if len(pl.o.Targets) > 0 {
		keep = map[string]bool{}
		var visit func(a string)
		visit = func(a string) {
			c := pl.changes[a]
			if c == nil || keep[a] {
				return
			}
			keep[a] = true
			for _, n := range c.Needs {
				visit(n)
			}
		}
		for _, t := range pl.o.Targets {
			visit(t)
		}
	}
	if len(pl.o.Excludes) > 0 {
		neededBy := map[string][]string{}
		for _, c := range order {
			for _, n := range c.Needs {
				neededBy[n] = append(neededBy[n], c.Addr)
			}
		}
		var drop func(a string)
		drop = func(a string) {
			if !keep[a] {
				return
			}
			delete(keep, a)
			for _, b := range neededBy[a] {
				drop(b)
			}
		}
		for _, e := range pl.o.Excludes {
			drop(e)
		}
	}
	for _, c := range order {
		if keep[c.Addr] {
			kept = append(kept, c)
		} else {
			skipped = append(skipped, c.Addr)
		}
	}
	return kept, skipped
}

func compact(s []string) []string {
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// sensitiveMoved says why a resource whose hash is the service's changes
// all the same: "" when it does not, else that a sensitive value of its
// own or of an image it uses (directly or as a base) differs from the
// service's. It never names a value.
func (pl *planning) sensitiveMoved(addr string) string {
	if pl.moved == nil {
		pl.moved = map[string]string{}
	}
	if m, ok := pl.moved[addr]; ok {
		return m
	}
	pl.moved[addr] = "" // a cycle adds nothing
	dr := pl.want[addr]
	if dr == nil {
		return ""
	}
	m := ""
	if pl.o.SensitiveChanged[dr.Address] || pl.o.SensitiveChanged[addr] {
		m = "a sensitive value changed"
	} else {
		for _, d := range dr.DependsOn {
			if schema.KindOf(d) == schema.KindImage && pl.sensitiveMoved(d) != "" {
				m = "a sensitive value of " + d + " changed"
				break
			}
		}
	}
	pl.moved[addr] = m
	return m
}
