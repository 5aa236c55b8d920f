package planner

import (
	"fmt"
	"sort"
	"strings"

	"cc.dev/cc/schema"
)

// Revisions of scaling groups (issue 11: scaling groups). Every applied
// change of a scaling group appends a revision, numbered on from the
// highest in the state (which has every revision, from the one read of
// it): the planner predicts the number from there, and says which fields
// make the new revision. A change back to an earlier revision's content,
// after cc rollback, appends one too: the plan says so.

// revisionReasons explain the new revision a change of a scaling group
// makes; none for other kinds, a change that makes none, or a delete.
func (pl *planning) revisionReasons(c *Change, dr *schema.Resource, sr *Resource) []Reason {
	v := c.Version
	if dr == nil || sr == nil || v == nil || v.Action != "new" || dr.Kind.ReusesVersions() {
		return nil
	}
	msg := fmt.Sprintf("every applied change of a scaling group appends a revision: revision %d (now %d)", v.Number, v.Current)
	if fields := topFields(c.Fields); len(fields) > 0 {
		msg += ", for " + strings.Join(fields, ", ")
	}
	out := []Reason{{Code: ReasonNewRevision, Message: msg}}
	for i := range sr.Versions {
		old := &sr.Versions[i]
		if old.Version != sr.Version && versionIs(old, dr.Hash, pl.versionSecrets(dr)) {
			out = append(out, Reason{Code: ReasonNewRevision, Message: fmt.Sprintf(
				"the configuration has revision %d's content and revision %d is current: a scaling group reuses no earlier revision, so this appends revision %d",
				old.Version, sr.Version, v.Number)})
			break
		}
	}
	return out
}

// topFields are the top-level fields of a spec the field changes are
// under ("image", "replicas"), sorted and unique.
func topFields(fs []FieldChange) []string {
	seen := map[string]bool{}
	var out []string
	for _, f := range fs {
		top := f.Path
		if i := strings.IndexAny(top, ".["); i >= 0 {
			top = top[:i]
		}
		if top != "" && !seen[top] {
			seen[top] = true
			out = append(out, top)
		}
	}
	sort.Strings(out)
	return out
}

// checkNewRevisions refuses a plan read from a file whose
// summary.new_revisions is not the number of its scaling group changes
// that append a revision: every view prints the count.
func checkNewRevisions(p *Plan) error {
	n := 0
	for i := range p.Changes {
		c := &p.Changes[i]
		if v := c.Version; v != nil && v.Action != "reuse" && c.Kind == schema.KindScalingGroup {
			n++
		}
	}
	if n != p.Summary.NewRevisions {
		return fmt.Errorf("summary.new_revisions is %d, but the plan appends %d revisions", p.Summary.NewRevisions, n)
	}
	return nil
}
