package applier

import (
	"errors"
	"fmt"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// MissingSecretValues refuses, before anything changes, a plan that
// creates a secret whose local value src cannot read (an environment
// variable not set, an env file without the key): Apply would fail on it
// halfway. Each error is positioned at the secret's declaration; nil when
// every value is there, or not local (ErrNotLocal).
func MissingSecretValues(p *planner.Plan, d *schema.Desired, src SecretSource) error {
	var errs []error
	for i := range p.Changes {
		ch := &p.Changes[i]
		if ch.Kind != schema.KindSecret || ch.Action != planner.Create {
			continue
		}
		r := d.Lookup(ch.Addr)
		if r == nil {
			continue
		}
		spec, err := schema.DecodeSecretSpec(r.Spec)
		if err != nil {
			continue
		}
		if _, _, err := localValue(src, r, spec); err != nil && !errors.Is(err, ErrNotLocal) {
			if ch.Range != nil && !ch.Range.IsZero() {
				err = fmt.Errorf("%s: %w", ch.Range, err)
			}
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("nothing was applied: a new secret needs its value, read when it is applied:\n%w\nSet it and apply again", errors.Join(errs...))
	}
	return nil
}
