package planner

import (
	"fmt"

	"cc.dev/cc/schema"
)

// Bounds of an explanation.
const (
	maxReasons       = 12  // reasons per change
	maxPlanFileDiffs = 200 // files with a line diff in a whole plan
	maxCauses        = 3   // causes of a referenced change quoted in a reason
	maxValueLen      = 60  // bytes of a value quoted in a reason
)

// explain fills in a change's specs, fields, files, version and reasons.
func (pl *planning) explain(c *Change, dr *schema.Resource, sr *Resource) {
	var reasons []Reason
	add := func(code, format string, args ...any) {
		reasons = append(reasons, Reason{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	if dr != nil {
		c.After, c.AfterHash, c.DependsOn, c.Range = redact(dr.Spec, dr.Sensitive), dr.Hash, dr.DependsOn, dr.Range
	}
	if sr != nil {
		c.Before, c.BeforeHash = redact(sr.Spec, sr.Sensitive), sr.Hash
		if dr == nil {
			c.DependsOn = sr.DependsOn
		}
	}
	if dr != nil && dr.Kind.Versioned() {
		c.Version = pl.predictVersion(dr, sr)
	}

	switch c.Action {
	case Create:
		if sr != nil && sr.Gone() {
			// Nothing runs there: the create replaces nothing.
			reasons = append(reasons, pl.goneReason(sr))
			c.Before, c.BeforeHash = nil, ""
		} else {
			add(ReasonNew, "new in the configuration")
		}
		if f, ok := pl.created[c]; ok {
			c.Fields = f
		} else {
			c.Fields = addedFields(dr, &pl.fieldScratch)
		}
	case Delete:
		if pl.o.Destroy {
			add(ReasonDestroy, "destroy: every resource of the project is deleted")
		} else {
			add(ReasonRemoved, "no longer in the configuration")
		}
	default:
		if r := pl.driftReason(c.Addr); r != nil {
			reasons = append(reasons, *r)
		}
		reasons = append(reasons, pl.explainUpdate(c, dr, sr)...)
		reasons = append(reasons, pl.revisionReasons(c, dr, sr)...)
	}
	if dr != nil && dr.Kind == schema.KindSecret {
		pl.explainSecretValue(c, dr, &reasons)
	}
	if len(reasons) == 0 {
		// Same fields, another hash: the spec's encoding changed.
		add(ReasonField, "the spec changed (hash %s → %s)", short(c.BeforeHash), short(c.AfterHash))
	}
	c.Reasons = dedupe(reasons)
}

// explainUpdate fills in the fields of a change of a resource in both the
// configuration and the state, makes it a replace when a field forces
// one, and returns its reasons.
func (pl *planning) explainUpdate(c *Change, dr *schema.Resource, sr *Resource) []Reason {
	var reasons []Reason
	add := func(code, format string, args ...any) {
		reasons = append(reasons, Reason{Code: code, Message: fmt.Sprintf(format, args...)})
	}
	before, after := decode(sr.Spec), decode(dr.Spec)
	if !pl.o.SensitiveChanged[c.Addr] {
		after = maskUnchanged(before, after, dr.Sensitive)
	}
	sens := newSensitivity(sr.Sensitive, dr.Sensitive)
	d := &fieldDiffer{sens: sens}
	d.diff(nil, before, after, true, true)
	c.Fields = d.out
	pl.markReplacement(c, d.paths, before, after)
	if pl.replace[c.Addr] {
		add(ReasonReplaceReq, "replacement requested with --replace")
	}
	reasons = append(reasons, pl.forcedReason(c)...)
	if m := pl.sensitiveMoved(c.Addr); m != "" && sr.Hash == dr.Hash {
		add(ReasonSensitive, "%s (the service compared it; its hash is made without it)", m)
	}
	reasons = append(reasons, pl.causes(c, before, after, d, sens, sr)...)
	if c.Version != nil {
		reasons = append(reasons, pl.versionReasons(c, dr, sr)...)
	}
	reasons = append(reasons, pl.repinReasons(sr)...)
	reasons = append(reasons, pl.dataMoves(dr, sr)...)
	reasons = append(reasons, protectionReasons(dr, sr)...)
	reasons = append(reasons, pl.secretValueReasons(c, dr)...)
	if c.Version != nil && c.Version.Action == "reuse" && sr.Hash != dr.Hash {
		add(ReasonReuse, "same content as version %d, which is made current again: nothing is rebuilt or uploaded", c.Version.Number)
	}
	if _, ok := pl.images[dr.Hash]; ok && c.Kind == schema.KindImage && pl.sensitiveMoved(c.Addr) == "" {
		add(ReasonReuse, "the service has this image already (%s): nothing is rebuilt", short(dr.Hash))
	}
	return reasons
}

// markReplacement marks the fields at paths (those of c.Fields) that force
// c's replacement, records the top-level fields that do in
// c.ReplaceBecause, and makes c a replace when any does.
func (pl *planning) markReplacement(c *Change, paths []path, before, after any) {
	replaceBy := map[string]bool{}
	for i, p := range paths {
		if pl.forcesReplacement(c.Kind, p, valueAt(before, p), valueAt(after, p)) {
			c.Fields[i].ForcesReplacement = true
			top := p[:1].String()
			if c.Kind == schema.KindEvaluation {
				top = p.String()
			}
			if !replaceBy[top] {
				replaceBy[top] = true
				c.ReplaceBecause = append(c.ReplaceBecause, top)
			}
		}
	}
	if len(replaceBy) > 0 {
		c.Action = Replace
	}
}

func (pl *planning) explainSecretValue(c *Change, dr *schema.Resource, reasons *[]Reason) {
	ls, ok := pl.o.Secrets[c.Addr]
	if !ok {
		return
	}
	rev, _ := secretRevision(pl.st, c.Addr)
	if ls.Fingerprint == "" {
		return
	}
	switch v := pl.secretValue(c.Addr, dr); v {
	case "set":
		c.SecretValue = v
		c.Fields = append(c.Fields, FieldChange{Path: "value", Op: "added", Sensitive: true})
		if c.Action != Create {
			*reasons = append(*reasons, Reason{Code: ReasonSecret, Message: fmt.Sprintf("value set from %s (the service has none)", ls.Source)})
		}
	case "changed":
		c.SecretValue = v
		c.Fields = append(c.Fields, FieldChange{Path: "value", Op: "changed", Sensitive: true})
		*reasons = append(*reasons, Reason{Code: ReasonSecret,
			Message: fmt.Sprintf("secret value changed: %s differs from revision %d, a new revision is made", ls.Source, rev.Revision)})
	}
}

func dedupe(rs []Reason) []Reason {
	seen := map[string]bool{}
	out := make([]Reason, 0, len(rs))
	for _, r := range rs {
		if seen[r.Message] {
			continue
		}
		seen[r.Message] = true
		out = append(out, r)
	}
	if len(out) > maxReasons {
		n := len(out) - maxReasons + 1
		out = append(out[:maxReasons-1], Reason{Code: ReasonField, Message: fmt.Sprintf("and %d more changes", n)})
	}
	return out
}

// maskUnchanged replaces in after the sensitive values the state has only
// as the placeholder (the service sends no sensitive value) with the
// placeholder too, so that they compare equal: the service compared them
// (Options.SensitiveChanged) and found them unchanged.
func maskUnchanged(before, after any, ptrs []string) any {
	for _, p := range ptrs {
		if b, ok := schema.ValueAt(before, p); ok && b == schema.Redacted {
			if a, ok := schema.ValueAt(after, p); ok && a != nil {
				after = redactAt(after, schema.SplitPointer(p))
			}
		}
	}
	return after
}
