package compiler

import (
	"fmt"
	"sort"
	"strconv"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

func (b *builder) secret(name string) *schema.Resource {
	b.mu.Lock()
	r, ok := b.secrets[name]
	b.mu.Unlock()
	if ok {
		return r
	}
	s := b.cfg.Secrets[name]
	path := []string{"secrets", name}
	spec := schema.SecretSpec{
		FromEnv: s.FromEnv, FromService: s.FromService, FromIntegration: s.FromIntegration,
		FromStore: s.FromStore, EnvVar: s.EnvVar,
	}
	var inputs []schema.Input
	if f := s.FromEnvFile; f != nil {
		fp := appendPath(path, "from_env_file", "path")
		have, err := b.fs.envKeys(f.Path)
		if err != nil {
			b.fileError(err, f.Path, fp, "env file")
		} else {
			keys := f.Keys
			if len(keys) == 0 {
				keys = have
			}
			for i, k := range f.Keys {
				if !contains(have, k) {
					d := b.errorf(appendPath(path, "from_env_file", "keys", strconv.Itoa(i)), "env file %s has no key %s", f.Path, k)
					if s := diag.Suggest(k, have); s != "" {
						d.Summary += fmt.Sprintf("; did you mean %s?", s)
					}
				}
			}
			keys = append([]string(nil), keys...)
			sort.Strings(keys)
			spec.FromEnvFile = &schema.EnvFileSource{Path: cleanRel(f.Path), Keys: keys}
		}
	}
	if in := spec.FromIntegration; in != nil && len(in.Keys) > 0 {
		c := *in
		c.Keys = append([]string(nil), in.Keys...)
		sort.Strings(c.Keys)
		spec.FromIntegration = &c
	}
	r = b.emit(schema.KindSecret, name, withExtra(spec, s.Extra), nil, inputs)
	b.mu.Lock()
	b.secrets[name] = r
	b.mu.Unlock()
	return r
}

// secretRef resolves a secret at a reference position.
func (b *builder) secretRef(s *schema.Secret, path []string) (schema.Ref, bool) {
	if ref, isData := b.dataRef(schema.KindSecret, s.ID, path); isData {
		return ref, ref.Ref != ""
	}
	name := b.resolve(schema.KindSecret, s.ID, s, path, func(n string) bool { return b.cfg.Secrets[n] != nil })
	if name == "" {
		return schema.Ref{}, false
	}
	r := b.secret(name)
	if r == nil {
		return schema.Ref{}, false
	}
	return schema.Ref{Ref: r.Address, Hash: r.Hash}, true
}

// singleValued reports whether a secret holds one value, so it can be the
// value of one environment variable.
func (b *builder) singleValued(name string) (bool, int) {
	b.mu.Lock()
	r := b.secrets[name]
	b.mu.Unlock()
	if r == nil {
		return true, 1
	}
	spec, err := schema.DecodeSecretSpec(r.Spec)
	if err != nil {
		return true, 1
	}
	switch {
	case spec.FromEnvFile != nil:
		return len(spec.FromEnvFile.Keys) == 1, len(spec.FromEnvFile.Keys)
	case spec.FromIntegration != nil:
		return len(spec.FromIntegration.Keys) == 1, len(spec.FromIntegration.Keys)
	}
	return true, 1
}
