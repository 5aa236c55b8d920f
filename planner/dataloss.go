package planner

import (
	"encoding/json"
	"sort"
	"strconv"
	"strings"

	"cc.dev/cc/schema"
)

// DataLoss lists, sorted by address, the resources whose data the plan
// destroys: the volumes and datasets it deletes or replaces (a replace
// deletes the old one first), and the sandboxes with a snapshot mount it
// deletes or replaces. The specs are the state's (st may be nil), or the
// change's Before where st has none: apply checks a plan it did not make
// against the state it applies to, never against what the plan says.
func DataLoss(p *Plan, st *State) []string {
	var out []string
	for i := range p.Changes {
		c := &p.Changes[i]
		if c.Action != Delete && c.Action != Replace {
			continue
		}
		spec := c.Before
		if r := st.Lookup(c.Addr); r != nil {
			spec = r.Spec
		}
		if bearsData(c.Kind, spec) {
			out = append(out, c.Addr)
		}
	}
	sort.Strings(out)
	return out
}

// bearsData reports whether a resource of kind with spec holds data that
// dies with it.
func bearsData(k schema.Kind, spec json.RawMessage) bool {
	switch k {
	case schema.KindVolume, schema.KindDataset:
		return true
	case schema.KindSandbox:
		var s struct {
			Snapshot json.RawMessage `json:"snapshot"`
		}
		if json.Unmarshal(spec, &s) != nil {
			// A spec that is missing or cannot be read may have had one.
			return true
		}
		return len(s.Snapshot) > 0 && string(s.Snapshot) != "null"
	}
	return false
}

// deletesAll reports whether the plan deletes every resource of st, and
// st has at least one.
func deletesAll(p *Plan, resources int) bool {
	n := 0
	for i := range p.Changes {
		if p.Changes[i].Action == Delete {
			n++
		}
	}
	return resources > 0 && n == resources
}

// maxDataLossNamed is how many resources DataLossLine names.
const maxDataLossNamed = 20

// DataLossLine says what the plan's data loss is, for the top of a view:
// "Data loss: this plan destroys the data of 2 resources: dataset.goldens
// (delete), volume.cache (replace)."; "" when there is none.
func DataLossLine(p *Plan) string {
	if len(p.DataLoss) == 0 {
		return ""
	}
	names := DataLossNames(p, p.DataLoss)
	more := ""
	if len(names) > maxDataLossNamed {
		names, more = names[:maxDataLossNamed], " and "+strconv.Itoa(len(names)-maxDataLossNamed)+" more (the JSON view lists them all)"
	}
	n := len(p.DataLoss)
	return "Data loss: this plan destroys the data of " + strconv.Itoa(n) + " " + plural(n, "resource", "resources") + ": " + strings.Join(names, ", ") + more +
		". cc apply carries it out only with --allow-data-loss."
}

// DataLossNames names each address of loss (the plan's DataLoss, or what
// apply finds against the state) with its action in p, in the order the
// changes are shown: "volume.cache (replace)".
func DataLossNames(p *Plan, loss []string) []string {
	actions := make(map[string]Action, len(p.Changes))
	for i := range p.Changes {
		actions[p.Changes[i].Addr] = p.Changes[i].Action
	}
	names := make([]string, len(loss))
	for i, a := range InShownOrder(loss) {
		names[i] = a
		if act, ok := actions[a]; ok {
			names[i] += " (" + act.String() + ")"
		}
	}
	return names
}

// DeletesAllLine is the first line of a plan that deletes every resource
// of its project; "" for any other plan.
func DeletesAllLine(p *Plan) string {
	if !p.DeletesAll {
		return ""
	}
	n := 0
	for i := range p.Changes {
		if p.Changes[i].Action == Delete {
			n++
		}
	}
	return "This plan deletes every resource of project " + schema.ScopeTitle(p.Project) + " (" + strconv.Itoa(n) + " " + plural(n, "resource", "resources") + ")."
}
