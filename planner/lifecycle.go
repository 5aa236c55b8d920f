package planner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// The lifecycle of resources (issue 10): prevent_destroy refuses a plan
// that deletes or replaces a protected resource (protected by the
// configuration, or by the state, which keeps the flag from the last
// apply); ignore_changes keeps the service's values at some paths;
// create_before_destroy marks a replacement that starts the new resource
// first.

// ReasonLifecycle is the reason code of what a resource's lifecycle does
// to a change: create before destroy, values kept by ignore_changes.
const ReasonLifecycle = "lifecycle"

// LifecycleChange is what a resource's lifecycle does to its change.
type LifecycleChange struct {
	// PreventDestroy: after the change the resource is protected (the
	// service refuses to delete or replace it); PreventDestroyAt is where
	// that is declared, "file:line:col" relative to the project root,
	// which apply sends for the service to keep.
	PreventDestroy   bool   `json:"prevent_destroy,omitempty"`
	PreventDestroyAt string `json:"prevent_destroy_at,omitempty"`
	// Protection is "set" or "removed" when the change protects or
	// unprotects the resource (a change of the state even when the spec
	// stays as it is), "" otherwise.
	Protection string `json:"protection,omitempty"`
	// CreateBeforeDestroy: the replacement starts before the old resource
	// stops (a replace only).
	CreateBeforeDestroy bool `json:"create_before_destroy,omitempty"`
	// Ignored are the paths of ignore_changes at which the configuration
	// differs from the service: left as the service has them.
	Ignored []string `json:"ignored,omitempty"`
}

// IgnoreChanges is r with the values at the paths of its
// lifecycle.ignore_changes taken from current, the spec the service has
// for it (as a plan's Change.Before holds it), and its hash made again as
// the compiler makes it (schema.SpecHash); r itself when that changes
// nothing. It also returns the paths at which r differed from current. A
// path that touches a sensitive value (of r, or currentSens of current) is
// an error: the service sends no sensitive value, so none can be kept.
func IgnoreChanges(r *schema.Resource, current json.RawMessage, currentSens []string) (*schema.Resource, []string, error) {
	if r == nil || r.Lifecycle == nil || len(r.Lifecycle.IgnoreChanges) == 0 || len(current) == 0 {
		return r, nil, nil
	}
	want, have := decode(r.Spec), decode(current)
	var differed []string
	for _, p := range r.Lifecycle.IgnoreChanges {
		segs := strings.Split(p, ".")
		if touchesSensitive(segs, r.Sensitive, currentSens) {
			return nil, nil, fmt.Errorf("%s: lifecycle.ignore_changes %s: a sensitive value cannot be kept as the service has it", r.Address, p)
		}
		hv, hok := valueAtKeys(have, segs)
		wv, wok := valueAtKeys(want, segs)
		if hok == wok && bytes.Equal(encode(hv), encode(wv)) {
			continue
		}
		differed = append(differed, p)
		want = setAtKeys(want, segs, hv, hok)
	}
	if len(differed) == 0 {
		return r, nil, nil
	}
	canon, err := schema.Canonical(want)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: lifecycle.ignore_changes: %v", r.Address, err)
	}
	hash, err := schema.SpecHash(canon, r.Sensitive)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: lifecycle.ignore_changes: %v", r.Address, err)
	}
	out := *r
	out.Spec, out.Hash = canon, hash
	return &out, differed, nil
}

// touchesSensitive reports whether the path segs and a sensitive JSON
// pointer of either list name overlapping values.
func touchesSensitive(segs []string, lists ...[]string) bool {
	for _, l := range lists {
		for _, ptr := range l {
			p := schema.SplitPointer(ptr)
			n := min(len(p), len(segs))
			if strings.Join(p[:n], "\x00") == strings.Join(segs[:n], "\x00") {
				return true
			}
		}
	}
	return false
}

// valueAtKeys is the value at the keys of nested objects in v.
func valueAtKeys(v any, keys []string) (any, bool) {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[k]; !ok {
			return nil, false
		}
	}
	return v, true
}

// setAtKeys sets the value at keys in the object v (making the objects on
// the way), or, when !ok, removes it, and any object it leaves empty; it
// returns v.
func setAtKeys(v any, keys []string, x any, ok bool) any {
	m, isMap := v.(map[string]any)
	if !isMap {
		if !ok {
			return v
		}
		m = map[string]any{}
	}
	if len(keys) == 1 {
		if ok {
			m[keys[0]] = x
		} else {
			delete(m, keys[0])
		}
		return m
	}
	child := setAtKeys(m[keys[0]], keys[1:], x, ok)
	if cm, isObj := child.(map[string]any); isObj && len(cm) == 0 {
		delete(m, keys[0])
	} else if child != nil {
		m[keys[0]] = child
	}
	return m
}

// ignoring is d with IgnoreChanges done to each of its resources that the
// state has, and the paths that differed, by address; d itself when no
// resource ignores anything.
func ignoring(d *schema.Desired, st *State) (*schema.Desired, map[string][]string, error) {
	var out *schema.Desired
	var ignored map[string][]string
	for i := range d.Resources {
		r := &d.Resources[i]
		if r.Lifecycle == nil || len(r.Lifecycle.IgnoreChanges) == 0 {
			continue
		}
		sr := st.Lookup(r.Address)
		if sr == nil {
			continue // a create uses the configuration's values
		}
		nr, differed, err := IgnoreChanges(r, sr.Spec, sr.Sensitive)
		if err != nil {
			return nil, nil, err
		}
		if len(differed) == 0 {
			continue
		}
		if out == nil {
			cp := *d
			cp.Resources = append([]schema.Resource(nil), d.Resources...)
			out, ignored = &cp, map[string][]string{}
		}
		out.Resources[i] = *nr
		ignored[r.Address] = differed
	}
	if out == nil {
		return d, nil, nil
	}
	return out, ignored, nil
}

// protectionMoves reports whether applying dr changes whether the
// resource sr is protected: an update of the state only, when nothing
// else changes.
func protectionMoves(dr *schema.Resource, sr *Resource) bool {
	return dr.Lifecycle.Protected() != sr.PreventDestroy
}

// protectionReasons explain a change of whether a resource is protected.
func protectionReasons(dr *schema.Resource, sr *Resource) []Reason {
	switch {
	case dr == nil || sr == nil || !protectionMoves(dr, sr):
		return nil
	case dr.Lifecycle.Protected():
		return []Reason{{Code: ReasonSetting, Message: "lifecycle.prevent_destroy set: the service will refuse to delete or replace it"}}
	}
	return []Reason{{Code: ReasonSetting, Message: "lifecycle.prevent_destroy removed: the service will no longer refuse to delete or replace it"}}
}

// lifecycles fills in what each change's lifecycle does, with its reasons.
func (pl *planning) lifecycles(order []*Change) {
	for _, c := range order {
		dr := pl.want[c.Addr]
		if dr == nil || c.Action == Delete {
			continue
		}
		lc := &LifecycleChange{Ignored: pl.ignored[c.Addr]}
		if dr.Lifecycle.Protected() {
			lc.PreventDestroy, lc.PreventDestroyAt = true, dr.Lifecycle.Position()
		}
		if sr := pl.st.Lookup(c.Addr); sr != nil && protectionMoves(dr, sr) {
			lc.Protection = map[bool]string{true: "set", false: "removed"}[lc.PreventDestroy]
		}
		if c.Action == Replace && dr.Lifecycle != nil && dr.Lifecycle.CreateBeforeDestroy {
			lc.CreateBeforeDestroy = true
			c.Reasons = append(c.Reasons, Reason{Code: ReasonLifecycle,
				Message: "create before destroy: the replacement starts before the old one stops (lifecycle.create_before_destroy)"})
		}
		if len(lc.Ignored) > 0 {
			c.Reasons = append(c.Reasons, Reason{Code: ReasonLifecycle,
				Message: fmt.Sprintf("lifecycle.ignore_changes: %s left as the service has them", strings.Join(lc.Ignored, ", "))})
		}
		if lc.PreventDestroy || lc.Protection != "" || lc.CreateBeforeDestroy || len(lc.Ignored) > 0 {
			c.Lifecycle = lc
		}
	}
}

// ProtectedError refuses a plan that would delete or replace resources
// protected by lifecycle.prevent_destroy: one diagnostic each, at where
// the protection is declared (the configuration's, or the one the state
// recorded when the declaration is gone), naming what forces the change.
type ProtectedError struct {
	Diagnostics diag.Diagnostics
}

func (e *ProtectedError) Error() string { return e.Diagnostics.Error() }

// Unwrap gives the diagnostics to errors.As.
func (e *ProtectedError) Unwrap() error { return e.Diagnostics }

// refuseProtected is the *ProtectedError of the changes that delete or
// replace a protected resource, or nil.
func (pl *planning) refuseProtected(kept []*Change) error {
	var ds diag.Diagnostics
	for _, c := range kept {
		if !c.Action.IsDestructive() {
			continue
		}
		dr, sr := pl.want[c.Addr], pl.st.Lookup(c.Addr)
		if dr == nil && pl.o.Destroy {
			dr = pl.d.Lookup(c.Addr) // still declared, and cited there
		}
		var rng *diag.Range
		detail := "remove prevent_destroy and apply that first to allow it"
		switch {
		case dr != nil && dr.Lifecycle.Protected():
			rng = dr.Lifecycle.Range
		case sr != nil && sr.PreventDestroy:
			// The configuration no longer says so: the state does, with
			// where it was declared when last applied.
			rng = parsePosition(sr.PreventDestroyAt)
			detail = "it was declared there when last applied; declare it again without prevent_destroy and apply that first to allow it"
		default:
			continue
		}
		d := diag.Errorf(rng, "%s is protected by lifecycle.prevent_destroy, and this plan would %s it: %s",
			c.Addr, c.Action, pl.forcedBy(c, dr))
		d.Detail = detail
		ds = append(ds, d)
	}
	if len(ds) == 0 {
		return nil
	}
	return &ProtectedError{Diagnostics: ds.Sort()}
}

// forcedBy names what forces a destructive change.
func (pl *planning) forcedBy(c *Change, dr *schema.Resource) string {
	switch {
	case c.Action == Replace:
		var fields, flags []string
		for _, b := range c.ReplaceBecause {
			if b == "--replace" {
				flags = append(flags, "--replace "+c.Addr+" was given")
			} else {
				fields = append(fields, b)
			}
		}
		if len(fields) > 0 {
			verb := "forces"
			if len(fields) > 1 {
				verb = "force"
			}
			flags = append([]string{fmt.Sprintf("a change of %s %s replacement", strings.Join(fields, ", "), verb)}, flags...)
		}
		return strings.Join(flags, "; ")
	case pl.o.Destroy:
		return "cc destroy deletes every resource of the project"
	case dr == nil:
		return "it was removed from the configuration"
	}
	return "it is deleted"
}

// positionRE is "file:line:col".
var positionRE = lazyRE(`^(.+):([0-9]{1,9}):([0-9]{1,9})$`)

// parsePosition reads a "file:line:col" the state recorded; a file-only
// range when it is not one.
func parsePosition(s string) *diag.Range {
	m := positionRE().FindStringSubmatch(s)
	if m == nil {
		if s == "" {
			return nil
		}
		return &diag.Range{File: s}
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	return &diag.Range{File: m[1], Start: diag.Pos{Line: line, Col: col}, End: diag.Pos{Line: line, Col: col}}
}

// Symbol is the change's mark in the text and Markdown views: its
// action's, but "+/-" for a replacement created before the old resource
// is destroyed and "->" for a change that only moves the resource.
func (c *Change) Symbol() string {
	if s, ok := c.moveSymbol(); ok {
		return s
	}
	if c.Action == Replace && c.Lifecycle != nil && c.Lifecycle.CreateBeforeDestroy {
		return "+/-"
	}
	return c.Action.Symbol()
}

// createsBeforeDestroy reports whether a change of p is a replacement
// created before the old resource is destroyed.
func createsBeforeDestroy(p *Plan) bool {
	for i := range p.Changes {
		if p.Changes[i].Symbol() == "+/-" {
			return true
		}
	}
	return false
}

// declaredAtRE is a position a plan file may carry: "file:line:col",
// without control characters, at most 512 bytes (as the service takes).
var declaredAtRE = lazyRE(`^[^\x00-\x1f\x7f]{1,500}:[0-9]{1,9}:[0-9]{1,9}$`)

// checkLifecycle checks the lifecycle of a plan file's desired resource:
// the form the compiler gives (sorted, each once), paths of the kind's
// schema, create_before_destroy only where the schema allows it.
func checkLifecycle(r *schema.Resource) error {
	lc := r.Lifecycle
	if lc == nil {
		return nil
	}
	if lc.IsZero() || r.Kind == schema.KindImage {
		return fmt.Errorf("%s: an empty lifecycle, or one on an image", r.Address)
	}
	s := schema.Default()
	for i, p := range lc.IgnoreChanges {
		if i > 0 && lc.IgnoreChanges[i-1] >= p {
			return fmt.Errorf("%s: lifecycle.ignore_changes not sorted or repeated at %q", r.Address, p)
		}
		if msg := s.FieldPathProblem(r.Kind, p); msg != "" {
			return fmt.Errorf("%s: lifecycle.ignore_changes %q: %s", r.Address, p, msg)
		}
	}
	if lc.CreateBeforeDestroy && !s.CreateBeforeDestroy(r.Kind) {
		return fmt.Errorf("%s: create_before_destroy on a %s", r.Address, r.Kind)
	}
	return nil
}

// checkChangeLifecycle checks a plan file's change's lifecycle against its
// desired resource r (nil for a delete): what the plan says the lifecycle
// does must be what the resource's lifecycle does.
func checkChangeLifecycle(c *Change, r *schema.Resource) error {
	l := c.Lifecycle
	if l == nil {
		if r != nil && c.Action != Delete && r.Lifecycle.Protected() {
			return fmt.Errorf("%s: the desired state protects it, and the plan does not say so", c.Addr)
		}
		return nil
	}
	var rl *schema.Lifecycle
	if r != nil {
		rl = r.Lifecycle
	}
	switch {
	case c.Action == Delete || r == nil:
		return fmt.Errorf("%s: a lifecycle on a delete", c.Addr)
	case l.PreventDestroy != rl.Protected():
		return fmt.Errorf("%s: prevent_destroy is %t in the plan, %t in the desired state", c.Addr, l.PreventDestroy, rl.Protected())
	case l.PreventDestroyAt != "" && (!l.PreventDestroy || !declaredAtRE().MatchString(l.PreventDestroyAt)):
		return fmt.Errorf("%s: bad prevent_destroy_at %q", c.Addr, l.PreventDestroyAt)
	case l.Protection != "" && l.Protection != map[bool]string{true: "set", false: "removed"}[l.PreventDestroy]:
		return fmt.Errorf("%s: protection %q with prevent_destroy %t", c.Addr, l.Protection, l.PreventDestroy)
	case l.CreateBeforeDestroy && (c.Action != Replace || rl == nil || !rl.CreateBeforeDestroy):
		return fmt.Errorf("%s: create_before_destroy on a %s its desired state does not allow", c.Addr, c.Action)
	}
	for _, p := range l.Ignored {
		if rl == nil || !slices.Contains(rl.IgnoreChanges, p) {
			return fmt.Errorf("%s: ignored %q is not in its lifecycle.ignore_changes", c.Addr, p)
		}
	}
	return nil
}
