package applier

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"google.golang.org/grpc/codes"

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
	// The versions of functions and datasets with sensitive values (their
	// own or their images') that were made with the local ones.
	type versionAsk struct {
		addr    string
		version int64
		first   int
		n       int
	}
	var vasks []versionAsk
	byHash := map[string]*schema.Resource{}
	for i := range d.Resources {
		if r := &d.Resources[i]; r.Kind == schema.KindImage {
			byHash[r.Hash] = r
		}
	}
	asked := map[string]bool{}
	for i := range d.Resources {
		r := &d.Resources[i]
		sr := st.Lookup(r.Address)
		if !r.Kind.Versioned() || sr == nil {
			continue
		}
		values := versionValues(r, byHash)
		if len(values) == 0 {
			continue
		}
		asked[r.Address] = true
		for _, v := range sr.Versions {
			if v.Hash != r.Hash || v.Key == "" {
				continue
			}
			ask := versionAsk{addr: r.Address, version: v.Version, first: len(vals), n: len(values)}
			for _, x := range values {
				vals = append(vals, service.ValueToCompare{Address: r.Address, Pointer: x.Pointer, Value: x.Value, Revision: v.Version})
			}
			vasks = append(vasks, ask)
		}
	}
	var res []service.Comparison
	for len(res) < len(vals) {
		end := min(len(vals), len(res)+10_000)
		part, err := a.svc.CompareValues(ctx, d.Project, vals[len(res):end])
		var se *service.Error
		if errors.As(err, &se) && se.Code == codes.Unimplemented {
			// A service older than CompareValues: every local value is
			// taken as changed, so nothing is left out of the plan.
			part = make([]service.Comparison, end-len(res))
			for i := range part {
				part[i] = service.Different
			}
			err = nil
		}
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
	for a := range asked {
		if o.SensitiveVersions == nil {
			o.SensitiveVersions = map[string][]int64{}
		}
		o.SensitiveVersions[a] = []int64{}
	}
	for _, v := range vasks {
		same := true
		for i := 0; i < v.n; i++ {
			same = same && res[v.first+i] == service.Equal
		}
		if same {
			o.SensitiveVersions[v.addr] = append(o.SensitiveVersions[v.addr], v.version)
		}
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

// versionValues are the sensitive values a version of r is made with, as
// the service keys it: r's own, and those of the image it runs under
// "/image" (of that one's base under "/image/from_image", and so on).
func versionValues(r *schema.Resource, images map[string]*schema.Resource) []service.ValueToCompare {
	var out []service.ValueToCompare
	add := func(spec []byte, ptrs []string, prefix string) {
		for _, p := range ptrs {
			if v, ok := schema.SensitiveValue(spec, p); ok {
				out = append(out, service.ValueToCompare{Pointer: prefix + p, Value: v})
			}
		}
	}
	add(r.Spec, r.Sensitive, "")
	var s struct {
		Image string `json:"image"`
	}
	if json.Unmarshal(r.Spec, &s) != nil {
		return out
	}
	prefix := "/image"
	for h, n := s.Image, 0; h != "" && n < 64; n++ {
		img := images[h]
		if img == nil {
			break
		}
		add(img.Spec, img.Sensitive, prefix)
		var is schema.ImageSpec
		if json.Unmarshal(img.Spec, &is) != nil {
			break
		}
		h, prefix = is.FromImage, prefix+"/from_image"
	}
	return out
}
