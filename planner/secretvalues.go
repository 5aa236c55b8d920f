package planner

import (
	"fmt"
	"slices"
	"sort"

	"cc.dev/cc/schema"
)

// A resource that receives a secret's value (a sandbox's env, env_from or
// credentials, an evaluation's judge key) holds it from when it was made
// or updated: when the value the service manages changes, the resource
// changes too (issue 9 item 8). A function or dataset records the values
// in its versions instead (versions.go). Where the value reaches a field
// that replaces the resource (a sandbox's environment is fixed at start),
// the change is a replace.

// secretValuesMoved lists the secrets, by address, whose values dr
// receives and whose local value differs from the service's (or is set
// where the service has none). None for the versioned kinds, secrets and
// images.
func (pl *planning) secretValuesMoved(dr *schema.Resource) []string {
	switch {
	case dr.Kind == schema.KindSecret, dr.Kind == schema.KindImage, dr.Kind.Versioned():
		return nil
	}
	var out []string
	for _, d := range dr.DependsOn {
		if schema.KindOf(d) != schema.KindSecret || !pl.managedSecret(d) {
			continue
		}
		if sr := pl.want[d]; sr != nil && pl.secretValue(d, sr) != "" {
			out = append(out, d)
		}
	}
	return out
}

// secretValueReasons explain the change of c, the update of dr, by the
// secret values it receives that change, and make c a replace where one
// reaches a field that replaces the resource.
func (pl *planning) secretValueReasons(c *Change, dr *schema.Resource) []Reason {
	moved := pl.secretValuesMoved(dr)
	if len(moved) == 0 {
		return nil
	}
	spec, _ := decode(dr.Spec).(map[string]any)
	s := pl.d.Schema
	if s == nil {
		s = schema.Default()
	}
	names := make([]string, 0, len(spec))
	for name := range spec {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Reason
	for _, addr := range moved {
		word := "changed"
		if pl.secretValue(addr, pl.want[addr]) == "set" {
			word = "set"
		}
		out = append(out, Reason{Code: ReasonSecret, Message: fmt.Sprintf("secret %s value %s", addr, word)})
		for _, name := range names {
			f := s.Kind(dr.Kind).Field(name)
			if f == nil || f.Replace != schema.ReplaceAlways || !refersTo(spec[name], addr) {
				continue
			}
			c.Action = Replace
			if !slices.Contains(c.ReplaceBecause, name) {
				c.ReplaceBecause = append(c.ReplaceBecause, name)
			}
		}
	}
	return out
}

// refersTo reports whether v holds a reference ({"ref": addr}) to addr.
func refersTo(v any, addr string) bool {
	switch v := v.(type) {
	case map[string]any:
		if v["ref"] == addr {
			return true
		}
		for _, e := range v {
			if refersTo(e, addr) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if refersTo(e, addr) {
				return true
			}
		}
	}
	return false
}
