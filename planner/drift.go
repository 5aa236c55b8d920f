package planner

import (
	"errors"
	"fmt"
	"strconv"
	"time"

	"cc.dev/cc/schema"
	"cc.dev/cc/state"
)

// Drift (issue 10): what was changed outside cc since cc last applied it,
// as the service recorded it. Every view shows it in a "Changed outside cc
// since the last apply" section before the plan; the plan itself then puts
// the configuration back (the normal diff against the state's spec, which
// is what the service has), and creates again a sandbox that expired or
// was terminated.

// DriftChange is one change made outside cc: a record of the state.
type DriftChange struct {
	Address string      `json:"address"`
	Kind    schema.Kind `json:"kind"`
	// What is "changed" (fields changed through the API), "terminated"
	// (a sandbox stopped through the API) or "expired" (a sandbox whose
	// lifetime passed).
	What string `json:"what"`
	// Actor is who did it: the name of the token of the call, "local" on
	// a server without tokens; absent for an expiry.
	Actor string `json:"actor,omitempty"`
	// At is when, as the service's clock had it.
	At time.Time `json:"at"`
	// Serial is the state serial the change made (absent for an expiry,
	// which changes no serial).
	Serial int64 `json:"serial,omitempty"`
	// Fields are the fields a "changed" record changed: before is what
	// cc last applied, after what the service has now. A sensitive one
	// has no values.
	Fields []FieldChange `json:"fields,omitempty"`
}

// Drifted reports whether the plan has a "changed outside cc" section.
func (p *Plan) Drifted() bool { return len(p.Drift) > 0 }

// driftOf is the state's drift, as the plan shows it.
func driftOf(st *State) []DriftChange {
	var out []DriftChange
	for _, d := range st.Drift {
		dc := DriftChange{Address: d.Address, Kind: schema.KindOf(d.Address), What: d.What, Actor: d.Actor, At: d.At.UTC(), Serial: d.Serial}
		var sens sensitivity
		if r := st.Lookup(d.Address); r != nil {
			sens = newSensitivity(r.Sensitive)
		}
		for _, f := range d.Fields {
			dc.Fields = append(dc.Fields, driftField(f, sens))
		}
		out = append(out, dc)
	}
	return out
}

// driftField is a field changed outside cc, as a plan shows it. A field
// at or under a sensitive pointer of the resource has no values, whatever
// the record holds.
func driftField(f state.DriftField, sens sensitivity) FieldChange {
	fc := FieldChange{Path: pointerPath(f.Pointer).String(), Op: "changed", Before: f.Before, After: f.After}
	switch {
	case f.Before == nil:
		fc.Op = "added"
	case f.After == nil:
		fc.Op = "removed"
	}
	if f.Sensitive || sens.at(f.Pointer) {
		fc.Sensitive, fc.Before, fc.After = true, nil, nil
	}
	return fc
}

// pointerPath is the path of a JSON pointer: elements that are numbers
// are list indexes.
func pointerPath(ptr string) path {
	var p path
	for _, e := range schema.SplitPointer(ptr) {
		if i, err := strconv.Atoi(e); err == nil && i >= 0 && strconv.Itoa(i) == e {
			p = append(p, seg{index: i})
			continue
		}
		p = append(p, seg{key: e, index: -1})
	}
	return p
}

// DriftLine says what happened, by whom and when: "changed by sdk-bot at
// 2030-01-02T03:04:05Z", "expired at ...".
func DriftLine(d *DriftChange) string {
	at := d.At.UTC().Format(time.RFC3339)
	switch {
	case d.What == state.DriftExpired:
		return "expired at " + at
	case d.Actor != "":
		return fmt.Sprintf("%s by %s at %s", d.What, d.Actor, at)
	}
	return fmt.Sprintf("%s at %s", d.What, at)
}

// driftSymbol marks a record: ~ for changed fields, - for a sandbox gone.
func driftSymbol(d *DriftChange) string {
	if d.What == state.DriftChanged {
		return "~"
	}
	return "-"
}

// goneReason is why a sandbox that expired or was terminated is created
// again.
func (pl *planning) goneReason(sr *Resource) Reason {
	if sr.Status == state.StatusExpired {
		at := sr.ExpiredAt
		for _, d := range pl.st.Drift {
			if d.Address == sr.Address && d.What == state.DriftExpired {
				at = d.At
			}
		}
		return Reason{Code: ReasonExpired, Message: fmt.Sprintf("expired at %s, will be created again", at.UTC().Format(time.RFC3339))}
	}
	line := "terminated at " + sr.UpdatedAt.UTC().Format(time.RFC3339)
	for i := range pl.st.Drift {
		if d := &pl.st.Drift[i]; d.Address == sr.Address && d.What == state.DriftTerminated {
			dc := DriftChange{What: d.What, Actor: d.Actor, At: d.At}
			line = DriftLine(&dc)
		}
	}
	return Reason{Code: ReasonExpired, Message: line + ", will be created again"}
}

// driftReason is, for a resource changed outside cc since cc last applied
// it, why the plan changes it: to put the configuration back.
func (pl *planning) driftReason(addr string) *Reason {
	var last *state.Drift
	for i := range pl.st.Drift {
		if d := &pl.st.Drift[i]; d.Address == addr && d.What == state.DriftChanged {
			last = d
		}
	}
	if last == nil {
		return nil
	}
	dc := DriftChange{What: last.What, Actor: last.Actor, At: last.At}
	return &Reason{Code: ReasonDrift, Message: DriftLine(&dc) + " outside cc: the configuration puts it back"}
}

// checkDrift checks the drift of a plan read from a file: a refresh-only
// plan is never saved (cc apply --refresh-only plans again), and each
// record names a resource, says what happened, and shows no value of a
// sensitive field.
func checkDrift(p *Plan) error {
	if p.RefreshOnly {
		return errors.New("a refresh-only plan is not applied from a file: run cc apply --refresh-only")
	}
	for i := range p.Drift {
		d := &p.Drift[i]
		if !schema.ValidAddress(d.Address) || schema.KindOf(d.Address) != d.Kind {
			return fmt.Errorf("drift %d: bad address %q or kind %q", i, d.Address, d.Kind)
		}
		if i > 0 && (p.Drift[i-1].Address > d.Address || (p.Drift[i-1].Address == d.Address && p.Drift[i-1].Serial > d.Serial)) {
			return fmt.Errorf("drift not sorted at %s", d.Address)
		}
		switch d.What {
		case state.DriftChanged, state.DriftTerminated, state.DriftExpired:
		default:
			return fmt.Errorf("drift of %s: what %q", d.Address, d.What)
		}
		if d.Serial < 0 || len(d.Actor) > 256 {
			return fmt.Errorf("drift of %s: bad serial or actor", d.Address)
		}
		for _, f := range d.Fields {
			if f.Path == "" || (f.Op != "added" && f.Op != "removed" && f.Op != "changed") || (f.Sensitive && (f.Before != nil || f.After != nil)) {
				return fmt.Errorf("drift of %s: bad field %q", d.Address, f.Path)
			}
		}
	}
	return nil
}
