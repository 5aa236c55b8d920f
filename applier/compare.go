package applier

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/service"
)

// reading is a project's state read together with the service's answers
// to the comparisons of local values made in the same call (issue 8 item
// 8): an unchanged plan costs that one call and nothing else.
type reading struct {
	// State is the project's state.
	State   *service.State
	local   *localValues
	matches []service.ValueMatch
}

// localValues are the local values to compare with the service's, read
// before the state is (the request carries them): every local secret
// value, and every sensitive value of the desired state, each once, at
// the place the service keys it.
type localValues struct {
	vals []service.ValueToCompare
	// secrets are the secrets with a local value (by index in vals), and
	// those whose value could not be read (index -1).
	secrets []localSecret
	// own indexes the values at a resource's own sensitive pointers, by
	// address and pointer.
	own map[[2]string]int
	// versioned are the values a version of a function or dataset is
	// made with (versionValues), by address: indexes in vals.
	versioned map[string][]int
	// empty are the *EmptyValueError of from_env secrets whose variable
	// is set to the empty string: a plan refuses them, a destroy does not
	// need them.
	empty []error
}

type localSecret struct {
	addr, source, problem string
	at                    int
}

// locals reads the local values of d to compare.
func (a *Applier) locals(d *schema.Desired) *localValues {
	l := &localValues{own: map[[2]string]int{}, versioned: map[string][]int{}}
	add := func(addr, ptr string, v []byte) int {
		k := [2]string{addr, ptr}
		if i, ok := l.own[k]; ok {
			return i
		}
		l.own[k] = len(l.vals)
		l.vals = append(l.vals, service.ValueToCompare{Address: addr, Pointer: ptr, Value: v})
		return len(l.vals) - 1
	}
	for i := range d.Resources {
		r := &d.Resources[i]
		if r.Kind != schema.KindSecret || a.secrets == nil {
			continue
		}
		spec, err := schema.DecodeSecretSpec(r.Spec)
		if err != nil {
			continue
		}
		v, source, err := localValue(a.secrets, r, spec)
		var ev *EmptyValueError
		if errors.As(err, &ev) {
			l.empty = append(l.empty, err)
		}
		switch {
		case errors.Is(err, ErrNotLocal):
			continue
		case err != nil:
			l.secrets = append(l.secrets, localSecret{addr: r.Address, source: source, problem: problem(err), at: -1})
			continue
		}
		l.secrets = append(l.secrets, localSecret{addr: r.Address, source: source, at: add(r.Address, "", v)})
	}
	for i := range d.Resources {
		r := &d.Resources[i]
		for _, p := range r.Sensitive {
			if v, ok := schema.SensitiveValue(r.Spec, p); ok {
				add(r.Address, p, v)
			}
		}
	}
	// When no image has a sensitive value, a versioned resource's own
	// pointers are all it has, and its spec need not be decoded to follow
	// its image chain (issue 13: 14% of a cached no-op plan of 10,000
	// resources went to those decodes): versionValues gets no images.
	byHash := map[string]*schema.Resource{}
	sensitiveImages := false
	for i := range d.Resources {
		if r := &d.Resources[i]; r.Kind == schema.KindImage {
			byHash[r.Hash] = r
			sensitiveImages = sensitiveImages || len(r.Sensitive) > 0
		}
	}
	if !sensitiveImages {
		byHash = nil
	}
	for i := range d.Resources {
		r := &d.Resources[i]
		if !r.Kind.Versioned() {
			continue
		}
		for _, x := range versionValues(r, byHash) {
			l.versioned[r.Address] = append(l.versioned[r.Address], add(r.Address, x.Pointer, x.Value))
		}
	}
	return l
}

// read reads the project's state, comparing the local values with the
// service's in the same call. Its error is the service's.
func (a *Applier) read(ctx context.Context, d *schema.Desired) (*reading, error) {
	l := a.locals(d)
	// The data sources and the imports' unowned resources are read in the
	// same call (issue 10).
	st, matches, err := a.svc.GetStateComparing(ctx, d.Project, l.vals, service.WithData(planner.DataLookups(d)...), service.WithUnowned(unownedOf(d)...))
	if err != nil {
		return nil, err
	}
	if matches == nil {
		// A service that does not compare values in GetState: every
		// local value is taken as changed, so nothing is left out of the
		// plan.
		matches = make([]service.ValueMatch, len(l.vals))
		for i := range matches {
			matches[i] = service.ValueMatch{Comparison: service.Different}
		}
	}
	return &reading{State: st, local: l, matches: matches}, nil
}

// compare fills in what the planner needs to know of local values that
// only the service can compare: how each local secret value compares with
// the revisions the state names, which resources with an unchanged hash
// have a sensitive value that differs, and which versions were made with
// the local sensitive values. Nothing derived from a value is computed
// here; the service answered EQUAL or DIFFERENT and the revisions or
// versions with an equal value.
func (r *reading) compare(d *schema.Desired, o *planner.Options) {
	if o.Secrets == nil && len(r.local.secrets) > 0 {
		o.Secrets = r.localSecrets()
	}
	r.sensitiveChanged(d, o)
	r.sensitiveVersions(d, o)
}

// localSecrets labels each local secret value: with the label of the
// first revision the service says has an equal value (the current one,
// then those versions name), else as the local value of its source.
func (r *reading) localSecrets() map[string]planner.LocalSecret {
	st, m := r.State, r.matches
	out := map[string]planner.LocalSecret{}
	// The revisions of each secret the versions name, in the state's
	// order, gathered in one pass (one pass a secret was 1,000 secrets
	// times 40,000 resources).
	named := map[string][]service.SecretValue{}
	if len(r.local.secrets) > 0 {
		for _, sr := range st.Resources {
			for _, ver := range sr.Versions {
				for _, sv := range ver.Secrets {
					named[sv.Address] = append(named[sv.Address], sv)
				}
			}
		}
	}
	for _, s := range r.local.secrets {
		if s.at < 0 {
			out[s.addr] = planner.LocalSecret{Source: s.source, Problem: s.problem}
			continue
		}
		equal := map[int64]bool{}
		for _, rev := range m[s.at].EqualRevisions {
			equal[rev] = true
		}
		label := "the local value from " + s.source
		// In order: the current revision, then those versions name.
		found := false
		try := func(sv service.SecretValue) {
			if !found && sv.SameValueAs != 0 && equal[sv.Revision] {
				label, found = sv.Label(), true
			}
		}
		if cur := st.SecretValue(s.addr); cur != nil {
			if m[s.at].Comparison == service.Equal {
				equal[cur.Revision] = true
			}
			try(*cur)
		}
		for _, sv := range named[s.addr] {
			try(sv)
		}
		out[s.addr] = planner.LocalSecret{Source: s.source, Fingerprint: label}
	}
	return out
}

// sensitiveChanged marks the resources whose hash the service has already
// but a sensitive value of which differs from the service's.
func (r *reading) sensitiveChanged(d *schema.Desired, o *planner.Options) {
	for i := range d.Resources {
		dr := &d.Resources[i]
		sr := r.State.Lookup(dr.Address)
		if len(dr.Sensitive) == 0 || sr == nil || sr.Hash != dr.Hash {
			continue
		}
		for _, p := range dr.Sensitive {
			at, ok := r.local.own[[2]string{dr.Address, p}]
			if ok && r.matches[at].Comparison != service.Equal {
				if o.SensitiveChanged == nil {
					o.SensitiveChanged = map[string]bool{}
				}
				o.SensitiveChanged[dr.Address] = true
				break
			}
		}
	}
}

// sensitiveVersions lists, for each function and dataset with sensitive
// values (its own or its images'), the versions made with the local ones.
func (r *reading) sensitiveVersions(d *schema.Desired, o *planner.Options) {
	for addr, ats := range r.local.versioned {
		sr, dr := r.State.Lookup(addr), d.Lookup(addr)
		if sr == nil || dr == nil {
			continue
		}
		if o.SensitiveVersions == nil {
			o.SensitiveVersions = map[string][]int64{}
		}
		same := []int64{}
		for _, v := range sr.Versions {
			if v.Hash != dr.Hash || v.Key == "" {
				continue
			}
			all := true
			for _, at := range ats {
				all = all && slices.Contains(r.matches[at].EqualRevisions, v.Version)
			}
			if all {
				same = append(same, v.Version)
			}
		}
		o.SensitiveVersions[addr] = same
	}
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
	if len(images) == 0 {
		return out
	}
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
