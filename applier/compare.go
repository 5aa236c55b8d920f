package applier

import (
	"context"
	"errors"
	"fmt"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// compare fills in what the planner needs to know of local values that
// only the service can compare (issue 8 item 8): how each local secret
// value compares with the revisions the state names, and which resources
// with an unchanged hash have a sensitive value that differs. Nothing
// derived from a value is computed here; the service answers EQUAL or
// DIFFERENT, rate-limited.
func (a *Applier) compare(ctx context.Context, d *schema.Desired, st *service.State, o *planner.Options) error {
	var vals []service.ValueToCompare
	type secretAsk struct {
		addr   string
		source string
		revs   []service.SecretValue // in order: the current, then those versions name
		first  int                   // index in vals
	}
	var secrets []secretAsk
	if o.Secrets == nil && a.secrets != nil {
		o.Secrets = map[string]planner.LocalSecret{}
		for i := range d.Resources {
			r := &d.Resources[i]
			if r.Kind != schema.KindSecret {
				continue
			}
			spec, err := secretSpec(r.Spec)
			if err != nil {
				continue
			}
			v, source, err := a.secrets.Value(r.Address, spec)
			switch {
			case errors.Is(err, ErrNotLocal):
				continue
			case err != nil:
				o.Secrets[r.Address] = planner.LocalSecret{Source: source, Problem: problem(err)}
				continue
			}
			ask := secretAsk{addr: r.Address, source: source, first: len(vals)}
			seen := map[int64]bool{}
			add := func(sv service.SecretValue) {
				if sv.SameValueAs == 0 || seen[sv.SameValueAs] {
					return
				}
				seen[sv.SameValueAs] = true
				ask.revs = append(ask.revs, sv)
				vals = append(vals, service.ValueToCompare{Address: r.Address, Value: v, Revision: sv.SameValueAs})
			}
			if cur := st.SecretValue(r.Address); cur != nil {
				add(*cur)
			}
			for _, sr := range st.Resources {
				for _, ver := range sr.Versions {
					for _, s := range ver.Secrets {
						if s.Address == r.Address {
							add(s)
						}
					}
				}
			}
			secrets = append(secrets, ask)
		}
	}
	// Sensitive values of resources whose hash the service has already.
	type sensAsk struct {
		addr  string
		first int
		n     int
	}
	var sens []sensAsk
	for i := range d.Resources {
		r := &d.Resources[i]
		sr := st.Lookup(r.Address)
		if len(r.Sensitive) == 0 || sr == nil || sr.Hash != r.Hash {
			continue
		}
		ask := sensAsk{addr: r.Address, first: len(vals)}
		for _, p := range r.Sensitive {
			v, ok := schema.SensitiveValue(r.Spec, p)
			if !ok {
				continue
			}
			vals = append(vals, service.ValueToCompare{Address: r.Address, Pointer: p, Value: v})
			ask.n++
		}
		sens = append(sens, ask)
	}
	var res []service.Comparison
	for len(res) < len(vals) {
		end := min(len(vals), len(res)+10_000)
		part, err := a.svc.CompareValues(ctx, d.Project, vals[len(res):end])
		if err != nil {
			return fmt.Errorf("compare local values with project %s's: %w", d.Project, err)
		}
		res = append(res, part...)
	}
	for _, s := range secrets {
		label := "the local value from " + s.source
		for i, rv := range s.revs {
			if res[s.first+i] == service.Equal {
				label = valueLabel(rv)
				break
			}
		}
		o.Secrets[s.addr] = planner.LocalSecret{Source: s.source, Fingerprint: label}
	}
	for _, s := range sens {
		for i := 0; i < s.n; i++ {
			if res[s.first+i] != service.Equal {
				if o.SensitiveChanged == nil {
					o.SensitiveChanged = map[string]bool{}
				}
				o.SensitiveChanged[s.addr] = true
				break
			}
		}
	}
	return nil
}
