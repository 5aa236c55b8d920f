package planner

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"cc.dev/cc/schema"
)

// OutputChange is a change of one of the project's output values (issue
// 12: outputs): created, updated or deleted. A sensitive output's values
// are never in the plan: Before and After are left out and Sensitive is
// set.
type OutputChange struct {
	Name   string `json:"name"`
	Action Action `json:"action"`
	// Before and After are the value's JSON before and after the apply,
	// absent for a create (Before), a delete (After) or a sensitive value.
	Before    json.RawMessage `json:"before,omitempty"`
	After     json.RawMessage `json:"after,omitempty"`
	Sensitive bool            `json:"sensitive,omitempty"`
}

// OutputsHeading introduces the output changes in the text view, as
// Terraform's does.
const OutputsHeading = "Changes to Outputs:"

// diffOutputs compares the desired outputs (none when destroying) with the
// stored ones, by name.
func diffOutputs(want, have []schema.Output) []OutputChange {
	old := map[string]schema.Output{}
	for _, o := range have {
		old[o.Name] = o
	}
	var out []OutputChange
	seen := map[string]bool{}
	for _, w := range want {
		seen[w.Name] = true
		h, ok := old[w.Name]
		c := OutputChange{Name: w.Name, Action: Create, After: w.Value, Sensitive: w.Sensitive || (ok && h.Sensitive)}
		if ok {
			if bytes.Equal(h.Value, w.Value) && h.Sensitive == w.Sensitive && h.Description == w.Description {
				continue
			}
			c.Action, c.Before = Update, h.Value
		}
		out = append(out, c)
	}
	for _, h := range have {
		if !seen[h.Name] {
			out = append(out, OutputChange{Name: h.Name, Action: Delete, Before: h.Value, Sensitive: h.Sensitive})
		}
	}
	for i := range out {
		if out[i].Sensitive {
			out[i].Before, out[i].After = nil, nil
		}
	}
	sortOutputChanges(out)
	return out
}

func sortOutputChanges(cs []OutputChange) {
	sort.Slice(cs, func(i, j int) bool { return cs[i].Name < cs[j].Name })
}

// OutputLine renders one output change: "+ url = "https://..."",
// "~ n = 1 -> 2", "- old = "x"", values of sensitive ones as (sensitive).
func OutputLine(c OutputChange) string {
	show := func(v json.RawMessage) string {
		if c.Sensitive {
			return schema.Redacted
		}
		return string(v)
	}
	switch c.Action {
	case Update:
		return fmt.Sprintf("%s %s = %s -> %s", c.Action.Symbol(), c.Name, show(c.Before), show(c.After))
	case Delete:
		return fmt.Sprintf("%s %s = %s -> null", c.Action.Symbol(), c.Name, show(c.Before))
	}
	return fmt.Sprintf("%s %s = %s", c.Action.Symbol(), c.Name, show(c.After))
}

// writeOutputChanges writes the text view's output section.
func writeOutputChanges(w io.Writer, p *Plan, pt painter) {
	if len(p.Outputs) == 0 {
		return
	}
	fmt.Fprintln(w, OutputsHeading)
	for _, c := range p.Outputs {
		fmt.Fprintf(w, "  %s\n", pt.action(c.Action, OutputLine(c)))
	}
	fmt.Fprintln(w)
}

// writeMarkdownOutputs writes the Markdown view's output section.
func writeMarkdownOutputs(w io.Writer, p *Plan) {
	if len(p.Outputs) == 0 {
		return
	}
	fmt.Fprintf(w, "\n**%s**\n\n```diff\n", OutputsHeading)
	for _, c := range p.Outputs {
		// A fence in a value would end the block early.
		fmt.Fprintf(w, "%s\n", strings.ReplaceAll(OutputLine(c), "```", "` ` `"))
	}
	fmt.Fprintf(w, "```\n")
}

// checkOutputChanges validates the output changes and outputs of a plan
// file.
func checkOutputChanges(p *Plan, d *schema.Desired) error {
	if err := schema.CheckOutputs(d.Outputs); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, c := range p.Outputs {
		if !schema.ValidOutputName(c.Name) || seen[c.Name] || (i > 0 && p.Outputs[i-1].Name > c.Name) {
			return fmt.Errorf("output change %q: names must be identifiers, sorted, each once", c.Name)
		}
		seen[c.Name] = true
		if c.Action != Create && c.Action != Update && c.Action != Delete {
			return fmt.Errorf("output change %s: action %s", c.Name, c.Action)
		}
		for _, v := range []json.RawMessage{c.Before, c.After} {
			if v != nil && (!json.Valid(v) || len(v) > schema.MaxOutputValue) {
				return fmt.Errorf("output change %s: value is not JSON of at most %d bytes", c.Name, schema.MaxOutputValue)
			}
		}
		if c.Sensitive && (c.Before != nil || c.After != nil) {
			return fmt.Errorf("output change %s: a sensitive output's values are never in a plan", c.Name)
		}
	}
	return nil
}
