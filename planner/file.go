package planner

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"cc.dev/cc/schema"
)

// FileKind marks a plan file.
const FileKind = "cc-plan"

// File is a saved plan (cc plan --out): the plan, the desired state it
// was made from, the state serial and resource hashes it was made
// against, and where the configuration is. It holds no secret value:
// secrets are read again at apply time, and values from sensitive
// variables are replaced by Sentinel (cc apply compiles the configuration
// again for them, and checks that it still gives the same hashes).
type File struct {
	FormatVersion int    `json:"format_version"`
	Kind          string `json:"kind"`
	Config        Config `json:"config"`
	// State is what the plan was made against.
	State Snapshot `json:"state"`
	// Desired is the desired state, with sensitive values redacted.
	Desired *schema.Desired `json:"desired"`
	Plan    *Plan           `json:"plan"`
}

// Config says how a plan was planned. It names no directory: the
// project is named by the plan's project name and the state's lineage
// (Snapshot), and cc apply is given the project directory to apply it in,
// whose state must be the one planned against (File.Check).
type Config struct {
	// File is the configuration file cc plan was named, when it was one
	// file rather than the project directory: a name in the project
	// directory, never a path ("main.hcl"); "" for the directory.
	File string `json:"file,omitempty"`
	Lang string `json:"lang,omitempty"`
	// Fingerprint identifies the desired state (Fingerprint).
	Fingerprint string `json:"fingerprint"`
	// SensitiveMAC identifies the sensitive values the plan was made with
	// (SensitiveMAC), keyed with a key that is not in the file; "" when
	// the desired state has none.
	SensitiveMAC string `json:"sensitive_mac,omitempty"`
	// Server is the service the plan was made against; "" for the
	// embedded default on Root/.cc/state.db.
	Server   string   `json:"server,omitempty"`
	Targets  []string `json:"targets,omitempty"`
	Excludes []string `json:"excludes,omitempty"`
	Replace  []string `json:"replace,omitempty"`
	// NewVersion are the functions planned with --new-version: the
	// changes of those the plan has make a new version (checkNewVersions).
	NewVersion []string `json:"new_version,omitempty"`
	Destroy    bool     `json:"destroy,omitempty"`
	// AllowDataLoss: the plan was made with --allow-data-loss, so cc apply
	// carries out its DataLoss without asking for the flag again.
	AllowDataLoss bool `json:"allow_data_loss,omitempty"`
}

// Snapshot is what a plan was made against: the state's lineage and
// serial, and every resource's hash and version and every secret's
// revision, so that a plan is applied only to that state, and a stale one
// names what changed since.
type Snapshot struct {
	// Lineage is the state's random id, fixed when the project was first
	// written on its service; "" for a state never written (or a service
	// without lineages).
	Lineage string `json:"lineage,omitempty"`
	Serial  int64  `json:"serial"`
	// Resources maps addresses to "HASH" or, for versioned kinds,
	// "HASH@VERSION".
	Resources map[string]string `json:"resources"`
	// Secrets maps secret addresses to their value's revision.
	Secrets map[string]int64 `json:"secrets,omitempty"`
}

// SnapshotOf takes the snapshot of a state.
func SnapshotOf(st *State) Snapshot {
	s := Snapshot{Lineage: st.Lineage, Serial: st.Serial, Resources: map[string]string{}}
	for _, r := range st.Resources {
		s.Resources[r.Address] = snapshotEntry(&r)
	}
	for _, rev := range st.SecretValues {
		if s.Secrets == nil {
			s.Secrets = map[string]int64{}
		}
		s.Secrets[rev.Address] = rev.Revision
	}
	return s
}

func snapshotEntry(r *Resource) string {
	if r.Kind.Versioned() {
		return r.Hash + "@" + strconv.FormatInt(r.Version, 10)
	}
	if r.Gone() {
		// A sandbox that expired or was terminated (issue 10, drift): a
		// plan creates it again, and one made before it went no longer fits.
		return r.Hash + goneMark
	}
	return r.Hash
}

// goneMark ends the snapshot entry of a sandbox that no longer runs.
const goneMark = " gone"

// Changes lists what differs between the snapshot and a later state, one
// line per address: "function.rank changed (version 2 → 3)".
func (s Snapshot) Changes(st *State) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range st.Resources {
		seen[r.Address] = true
		old, ok := s.Resources[r.Address]
		now := snapshotEntry(&r)
		switch {
		case !ok:
			out = append(out, r.Address+" was created")
		case old != now && strings.TrimSuffix(old, goneMark) == strings.TrimSuffix(now, goneMark):
			out = append(out, fmt.Sprintf("%s is %s", r.Address, r.Status))
		case old != now:
			oh, ov, _ := strings.Cut(old, "@")
			nh, nv, _ := strings.Cut(now, "@")
			switch {
			case oh == nh && ov != nv:
				out = append(out, fmt.Sprintf("%s changed (version %s → %s)", r.Address, ov, nv))
			case ov != nv:
				out = append(out, fmt.Sprintf("%s changed (%s → %s, version %s → %s)", r.Address, short(oh), short(nh), ov, nv))
			default:
				out = append(out, fmt.Sprintf("%s changed (%s → %s)", r.Address, short(oh), short(nh)))
			}
		}
	}
	for a := range s.Resources {
		if !seen[a] {
			out = append(out, a+" was deleted")
		}
	}
	for _, rev := range st.SecretValues {
		if old, ok := s.Secrets[rev.Address]; !ok || old != rev.Revision {
			out = append(out, fmt.Sprintf("%s has a new value (revision %d)", rev.Address, rev.Revision))
		}
	}
	for a := range s.Secrets {
		if st.SecretValue(a) == nil && !seen[a] && s.Resources[a] == "" {
			out = append(out, a+"'s value was deleted")
		}
	}
	sort.Strings(out)
	return out
}

// MismatchError says why a plan file does not fit the state it is applied
// to.
type MismatchError struct {
	Project string
	// Moved: the state's serial moved since the plan was made (From, To).
	Moved    bool
	From, To int64
	// Why says it in a sentence when the serial did not move: another
	// lineage, or other resources at the same serial.
	Why string
	// Changes list what differs, one line per address (Snapshot.Changes).
	Changes []string
}

func (e *MismatchError) Error() string {
	s := e.Why
	if e.Moved {
		s = fmt.Sprintf("project %s moved from serial %d to %d since the plan was made", e.Project, e.From, e.To)
	}
	if len(e.Changes) > 0 {
		s += ": " + strings.Join(e.Changes, "; ")
	}
	return s
}

// Check reports whether the file's plan may be applied to st, the state
// its service holds now: the same lineage, the same serial, and every
// resource and secret revision as they were. A file made against a state
// never written (lineage "") fits only a state still empty: a first plan is
// not applied again once the project exists. nil when it fits.
func (f *File) Check(st *State) error {
	s := f.State
	project := f.Plan.Project
	switch {
	case s.Lineage == st.Lineage:
	case s.Lineage == "":
		if st.Serial != 0 || len(st.Resources) > 0 {
			return &MismatchError{Project: project, Why: fmt.Sprintf(
				"the plan was made against an empty state, before project %s was written; its state has been created since (lineage %s, serial %d): a first plan applies only to a state still empty",
				project, st.Lineage, st.Serial)}
		}
	default:
		now := st.Lineage
		if now == "" {
			now = "none"
		}
		return &MismatchError{Project: project, Why: fmt.Sprintf(
			"the plan was made against project state with lineage %s; this service's state has lineage %s: it is another server or a recreated project",
			s.Lineage, now)}
	}
	if data := f.dataChanges(st); len(data) > 0 {
		// The unowned resources move without the project's serial.
		return &MismatchError{Project: project, Changes: data, Why: fmt.Sprintf(
			"a data source of project %s resolves to something else than when the plan was made", project)}
	}
	changes := s.Changes(st)
	if s.Serial != st.Serial {
		return &MismatchError{Project: project, Moved: true, From: s.Serial, To: st.Serial, Changes: changes}
	}
	if len(changes) > 0 {
		return &MismatchError{Project: project, Changes: changes, Why: fmt.Sprintf(
			"project %s is at serial %d as when the plan was made, but its state is not the one the plan was made against (another server, or a rewritten state)",
			project, st.Serial)}
	}
	return nil
}

// Fingerprint identifies a desired state: the sha256 of its project, and
// of every address with its hash and aliases. Since hashes cover specs and
// the digests of local files, equal fingerprints mean equal desired states.
func Fingerprint(d *schema.Desired) string {
	type entry struct {
		Address string   `json:"address"`
		Hash    string   `json:"hash"`
		Aliases []string `json:"aliases,omitempty"`
	}
	// The lifecycle declarations too (issue 10), when there are any.
	v := struct {
		Project   string  `json:"project"`
		Resources []entry `json:"resources"`
		// Data are the data sources (issue 10), by what they name: absent
		// when there are none, so that the fingerprints of desired states
		// without any are as they were.
		Data    []schema.DataSource `json:"data,omitempty"`
		Moves   []schema.Moved      `json:"moves,omitempty"`
		Removed []schema.Removed    `json:"removed,omitempty"`
		Imports []schema.Imported   `json:"imports,omitempty"`
		// Outputs (issue 12), sensitive values redacted.
		Outputs []schema.Output `json:"outputs,omitempty"`
	}{Project: d.Project, Resources: []entry{}, Data: d.Data, Moves: d.Moves, Removed: d.Removed, Imports: d.Imports, Outputs: schema.RedactedOutputs(d.Outputs)}
	for _, r := range d.Resources {
		v.Resources = append(v.Resources, entry{r.Address, r.Hash, r.Aliases})
	}
	h, _, err := schema.HashOf(v)
	if err != nil {
		return ""
	}
	return h
}

// NewFile makes the plan file of a plan: the desired state is copied with
// every sensitive value redacted.
func NewFile(p *Plan, d *schema.Desired, st *State, cfg Config) *File {
	cfg.Fingerprint = Fingerprint(d)
	rd := &schema.Desired{FormatVersion: d.FormatVersion, Project: d.Project, Trees: d.Trees, Root: d.Root, Data: d.Data,
		Moves: d.Moves, Removed: d.Removed, Imports: d.Imports, Outputs: schema.RedactedOutputs(d.Outputs)}
	rd.Resources = make([]schema.Resource, len(d.Resources))
	for i, r := range d.Resources {
		rd.Resources[i] = r.Redacted()
	}
	return &File{FormatVersion: FormatVersion, Kind: FileKind, Config: cfg, State: SnapshotOf(st), Desired: rd, Plan: p}
}

// NeedsSensitive lists the changes whose specs hold values from sensitive
// variables, which the file does not have.
func (f *File) NeedsSensitive() []string {
	var out []string
	for _, c := range f.Plan.Changes {
		if c.Action == Delete {
			continue
		}
		if r := f.lookup(c.Addr); r != nil && len(r.Sensitive) > 0 {
			out = append(out, c.Addr)
		}
	}
	// Issue 12: a sensitive output the apply stores.
	if len(f.Plan.Outputs) > 0 {
		for _, o := range f.Desired.Outputs {
			if o.Sensitive {
				out = append(out, "output."+o.Name)
			}
		}
	}
	return out
}

func (f *File) lookup(addr string) *schema.Resource {
	if r := f.Desired.Lookup(addr); r != nil {
		return r
	}
	if k, name, ok := cutAddress(addr); ok && k == schema.KindImage {
		for i := range f.Desired.Resources {
			r := &f.Desired.Resources[i]
			for _, a := range r.Aliases {
				if a == name || a == addr {
					return r
				}
			}
		}
	}
	return nil
}

// Write writes the file as indented JSON.
func (f *File) Write(w io.Writer) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(f); err != nil {
		return err
	}
	_, err := w.Write(b.Bytes())
	return err
}

var (
	hashRE    = lazyRE(`^sha256:[0-9a-f]{64}$`)
	lineageRE = lazyRE(`^[A-Za-z0-9._:-]{0,128}$`)
	// configFileRE is a file name in the project directory, not a path.
	configFileRE = lazyRE(`^[^/\\\x00]{1,255}\.(cue|hcl)$`)
)

// MaxFileSize is the largest plan file ReadFile reads.
const MaxFileSize = 256 << 20

// ReadFile reads and checks a plan file, which is untrusted input: at
// most MaxFileSize bytes of one JSON object with no unknown field and
// nothing after it. Anything malformed, truncated or inconsistent is an
// error that says where, never a panic.
func ReadFile(b []byte) (*File, error) {
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("%d bytes: a plan file has at most %d (planner.MaxFileSize)", len(b), MaxFileSize)
	}
	if t := bytes.TrimLeft(b, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, errors.New("not a cc plan file (not a JSON object)")
	}
	var probe struct {
		FormatVersion *int   `json:"format_version"`
		Kind          string `json:"kind"`
		Config        struct {
			Root *string `json:"root"`
		} `json:"config"`
	}
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, jsonError(b, err)
	}
	if probe.Kind != FileKind {
		return nil, errors.New("not a cc plan file (no \"kind\": \"cc-plan\")")
	}
	if probe.FormatVersion == nil || *probe.FormatVersion != FormatVersion {
		v := "none"
		if probe.FormatVersion != nil {
			v = strconv.Itoa(*probe.FormatVersion)
		}
		return nil, fmt.Errorf("plan file format version %s; this cc reads version %d: plan again with this cc", v, FormatVersion)
	}
	if probe.Config.Root != nil {
		return nil, errors.New("a plan file of an earlier cc, which named its project by absolute path (config.root); this cc names it by project name and lineage: plan again with this cc")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, jsonError(b, err)
	}
	if err := f.check(); err != nil {
		return nil, fmt.Errorf("inconsistent plan: %w", err)
	}
	return &f, nil
}

// jsonError puts the line and column of a JSON error first.
func jsonError(b []byte, err error) error {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(b)) {
		return err
	}
	if off > 0 {
		off-- // the offset is of the byte after the one that failed
	}
	line := 1 + bytes.Count(b[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(b[:off], '\n')
	return fmt.Errorf("%d:%d: %w", line, col, err)
}

func (f *File) check() error {
	if f.Plan == nil || f.Desired == nil {
		return errors.New("no plan or no desired state")
	}
	p, d := f.Plan, f.Desired
	if _, env := schema.SplitScope(p.Project); !schema.ValidScope(p.Project) || d.Project != p.Project || p.Env != env {
		return fmt.Errorf("project %q (environment %q) of the plan and %q of the desired state", p.Project, p.Env, d.Project)
	}
	if p.FormatVersion != FormatVersion {
		return fmt.Errorf("plan format version %d", p.FormatVersion)
	}
	if p.Serial < 0 || p.Serial != f.State.Serial {
		return fmt.Errorf("plan serial %d and state serial %d", p.Serial, f.State.Serial)
	}
	if l := f.Config.Lang; l != "cue" && l != "hcl" {
		return fmt.Errorf("config lang %q: want cue or hcl", l)
	}
	if c := f.Config.File; c != "" && (!configFileRE().MatchString(c) || strings.HasPrefix(c, ".") || filepath.Ext(c) != "."+f.Config.Lang) {
		return fmt.Errorf("config file %q: want the name of a .cue or .hcl file in the project directory", c)
	}
	if !lineageRE().MatchString(f.State.Lineage) {
		return fmt.Errorf("bad lineage %q", f.State.Lineage)
	}
	if err := checkDesired(d); err != nil {
		return err
	}
	if err := checkDrift(p); err != nil {
		return err
	}
	if err := checkOutputChanges(p, d); err != nil {
		return err
	}
	if err := f.checkData(); err != nil {
		return err
	}
	index, err := f.checkChanges()
	if err != nil {
		return err
	}
	if err := f.checkNewVersions(); err != nil {
		return err
	}
	if err := checkNewRevisions(p); err != nil {
		return err
	}
	// What every view shows first must be what the plan does.
	if got := DataLoss(p, nil); strings.Join(got, ",") != strings.Join(p.DataLoss, ",") {
		return fmt.Errorf("the plan destroys the data of [%s], but says [%s]", strings.Join(got, ", "), strings.Join(p.DataLoss, ", "))
	}
	if got := deletesAll(p, len(f.State.Resources)); got != p.DeletesAll {
		return fmt.Errorf("deletes_all is %t, but the plan deletes %d of the %d resources it was planned against", p.DeletesAll, p.Summary.Delete, len(f.State.Resources))
	}
	return checkNeeds(p, index)
}

// checkDesired checks the desired state of a file: addresses, order,
// hashes of the specs (made canonical again) and of the trees.
func checkDesired(d *schema.Desired) error {
	for i := range d.Resources {
		r := &d.Resources[i]
		if !schema.ValidAddress(r.Address) || schema.KindOf(r.Address) != r.Kind {
			return fmt.Errorf("desired resource %d: bad address %q or kind %q", i, r.Address, r.Kind)
		}
		if i > 0 && d.Resources[i-1].Address >= r.Address {
			return fmt.Errorf("desired resources not sorted at %s", r.Address)
		}
		if !hashRE().MatchString(r.Hash) {
			return fmt.Errorf("%s: bad hash %q", r.Address, r.Hash)
		}
		// The file is indented: specs are canonical again once read.
		c, err := schema.Canonical(r.Spec)
		if err != nil {
			return fmt.Errorf("%s: spec is not JSON: %v", r.Address, err)
		}
		r.Spec = c
		if len(r.Sensitive) == 0 && schema.Hash(c) != r.Hash {
			return fmt.Errorf("%s: the spec does not have the hash %s", r.Address, r.Hash)
		}
		// A spec with sensitive values is hashed with them replaced, as
		// the file has it; an image's hash has its declaration's path too.
		if h, err := schema.RedactedHash(c, r.Sensitive); len(r.Sensitive) > 0 && r.Kind != schema.KindImage && (err != nil || h != r.Hash) {
			return fmt.Errorf("%s: the spec does not have the hash %s", r.Address, r.Hash)
		}
		for _, dep := range r.DependsOn {
			if _, _, data := schema.ParseDataAddress(dep); !data && !schema.ValidAddress(dep) {
				return fmt.Errorf("%s: bad dependency %q", r.Address, dep)
			}
		}
		if err := checkLifecycle(r); err != nil {
			return err
		}
	}
	if err := checkLifecycleDesired(d); err != nil {
		return err
	}
	for digest, entries := range d.Trees {
		if h, _, err := schema.HashOf(entries); err != nil || h != digest {
			return fmt.Errorf("tree %s: its entries do not have that digest", digest)
		}
	}
	return nil
}

// checkChanges checks each change of the file's plan against the state it
// was planned against and the desired state, and indexes them by address.
func (f *File) checkChanges() (map[string]*Change, error) {
	p := f.Plan
	index := map[string]*Change{}
	for i := range p.Changes {
		c := &p.Changes[i]
		if !schema.ValidAddress(c.Addr) || schema.KindOf(c.Addr) != c.Kind {
			return nil, fmt.Errorf("change %d: bad address %q or kind %q", i, c.Addr, c.Kind)
		}
		if c.Action < NoOp || c.Action > Import || (c.Action == NoOp && c.MovedFrom == "") {
			return nil, fmt.Errorf("%s: action %v", c.Addr, c.Action)
		}
		if index[c.Addr] != nil {
			return nil, fmt.Errorf("%s: two changes", c.Addr)
		}
		index[c.Addr] = c
		at, err := f.checkLifecycle(c)
		if err != nil {
			return nil, err
		}
		// What the plan changes is what the state it was made against
		// holds: a create (or import) of nothing, a change of what was
		// there (at the address it moves from).
		old, had := f.State.Resources[at]
		old, gone := strings.CutSuffix(old, goneMark)
		oldHash, _, _ := strings.Cut(old, "@")
		fresh := c.Action == Create || c.Action == Import
		switch {
		case fresh && had && !gone:
			return nil, fmt.Errorf("%s: %s, but the state it was planned against has it", c.Addr, map[Action]string{Create: "created", Import: "imported"}[c.Action])
		case !fresh && !had:
			return nil, fmt.Errorf("%s: to %s, but the state it was planned against does not have it", at, c.Action)
		case !fresh && oldHash != c.BeforeHash:
			return nil, fmt.Errorf("%s: planned from hash %s, but the state it was planned against has %s", at, c.BeforeHash, oldHash)
		}
		if c.Action == Import && c.After == nil {
			continue // adopted as the service has it (--generate-config-out)
		}
		if c.Action != Delete && c.Action != Forget {
			r := f.lookup(c.Addr)
			if r == nil {
				return nil, fmt.Errorf("%s: to %s but not in the desired state", c.Addr, c.Action)
			}
			if c.Action != Create {
				var err error
				if r, _, err = IgnoreChanges(r, c.Before, nil); err != nil {
					return nil, err
				}
			}
			if r.Hash != c.AfterHash {
				return nil, fmt.Errorf("%s: planned hash %s, desired %s", c.Addr, c.AfterHash, r.Hash)
			}
		}
		if err := checkChangeLifecycle(c, f.lookup(c.Addr)); err != nil {
			return nil, err
		}
	}
	return index, nil
}

// checkNeeds checks that the needs of the changes name changes of the
// plan, without cycles.
func checkNeeds(p *Plan, index map[string]*Change) error {
	state := map[string]int{}
	var visit func(c *Change, depth int) error
	visit = func(c *Change, depth int) error {
		switch state[c.Addr] {
		case 1:
			return fmt.Errorf("%s: the order of changes has a cycle", c.Addr)
		case 2:
			return nil
		}
		if depth > len(p.Changes) {
			return fmt.Errorf("%s: the order of changes has a cycle", c.Addr)
		}
		state[c.Addr] = 1
		for _, n := range c.Needs {
			nc := index[n]
			if nc == nil {
				return fmt.Errorf("%s needs %s, which the plan does not change", c.Addr, n)
			}
			if err := visit(nc, depth+1); err != nil {
				return err
			}
		}
		state[c.Addr] = 2
		return nil
	}
	for i := range p.Changes {
		if err := visit(&p.Changes[i], 0); err != nil {
			return err
		}
	}
	return nil
}

// SensitiveMAC is "hmac-sha256:" + hex of HMAC-SHA256, keyed with key,
// over every sensitive value of d with its address and pointer: what tells
// cc apply PLANFILE that the configuration compiled again has the values
// the plan was made with. Without the key (kept outside the plan file)
// nothing in it can be checked against a guess. "" when d has no
// sensitive value.
func SensitiveMAC(d *schema.Desired, key []byte) string {
	m := hmac.New(sha256.New, key)
	n := 0
	for _, r := range d.Resources {
		for _, p := range r.Sensitive {
			v, _ := schema.SensitiveValue(r.Spec, p)
			for _, s := range [][]byte{[]byte(r.Address), []byte(p), v} {
				fmt.Fprintf(m, "%d:", len(s))
				m.Write(s)
			}
			n++
		}
	}
	for _, o := range d.Outputs {
		if o.Sensitive {
			for _, s := range [][]byte{[]byte("output." + o.Name), o.Value} {
				fmt.Fprintf(m, "%d:", len(s))
				m.Write(s)
			}
			n++
		}
	}
	if n == 0 {
		return ""
	}
	return "hmac-sha256:" + hex.EncodeToString(m.Sum(nil))
}

// lazyRE compiles expr the first time it is used: the patterns of plan
// files are large programs (counted repeats), and most commands never
// read a plan file, so none of them pays for compiling them at start.
func lazyRE(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
