package compiler

import (
	"fmt"
	"strconv"

	"cc.dev/cc/schema"
)

// envSource is one source of an environment variable of a workload: an
// env key or a secret of env_from, and where it is written.
type envSource struct {
	path []string
	what string // "env", or the secret's address
	how  string // how the secret names the variable
}

// envClashes refuses two sources of one environment variable in a sandbox
// or function (issue 9 item 1): the platform refuses them when it merges
// the environment (SDK B: "Duplicate env_var targets across secrets raise
// ValueError at merge time"). env is the workload's env map, refs its
// compiled env_from and n the number of env_from entries written; when a
// reference failed (refs is shorter) that is reported already.
func (b *builder) envClashes(env map[string]schema.EnvValue, refs []schema.Ref, n int, path []string) {
	if len(refs) != n || n == 0 {
		return
	}
	seen := map[string]envSource{}
	for _, k := range sortedKeys(env) {
		seen[k] = envSource{path: appendPath(path, "env", k), what: "env"}
	}
	listed := map[string][]string{}
	for i, ref := range refs {
		p := appendPath(path, "env_from", strconv.Itoa(i))
		if first, dup := listed[ref.Ref]; dup {
			b.clashf(p, first, "env_from lists %s twice", ref.Ref)
			continue
		}
		listed[ref.Ref] = p
		for _, v := range b.injected(ref.Ref) {
			src := envSource{path: p, what: ref.Ref, how: v.how}
			if first, dup := seen[v.name]; dup {
				b.clashf(p, first.path, "environment variable %s is set twice: by %s and by %s",
					v.name, src.describe(), first.describe())
				continue
			}
			seen[v.name] = src
		}
	}
}

func (s envSource) describe() string {
	if s.what == "env" {
		return "env"
	}
	return fmt.Sprintf("env_from %s (%s)", s.what, s.how)
}

func (b *builder) clashf(path, first []string, format string, args ...any) {
	d := clash(b.ld.loc, path, first, format, args...)
	b.mu.Lock()
	b.diags = append(b.diags, d)
	b.mu.Unlock()
}

// injectedVar is a variable a secret injects in bulk, and why it has that
// name.
type injectedVar struct{ name, how string }

// injected lists the variables the compiled secret at addr injects when
// it is used in bulk (env_from): its env_var when it holds one value,
// otherwise its own names — the local variable of from_env, the keys of
// from_env_file (every key of the file when none is selected) and of
// from_integration, the name of from_service and of from_store (SDK B:
// env_var "defaults to name"). An integration without keys injects
// whatever the integration holds, which is not known here.
func (b *builder) injected(addr string) []injectedVar {
	b.mu.Lock()
	r := b.secrets[addr[len("secret."):]]
	b.mu.Unlock()
	if r == nil {
		return nil
	}
	s, err := schema.DecodeSecretSpec(r.Spec)
	if err != nil {
		return nil
	}
	var names []string
	var how string
	switch {
	case s.FromEnv != "":
		names, how = []string{s.FromEnv}, "the name of its from_env"
	case s.FromService != "":
		names, how = []string{s.FromService}, "the name of its from_service"
	case s.FromStore != nil:
		names, how = []string{s.FromStore.Name}, "the name of its from_store"
	case s.FromEnvFile != nil:
		names, how = s.FromEnvFile.Keys, fmt.Sprintf("a key of its env file %s", s.FromEnvFile.Path)
	case s.FromIntegration != nil:
		names, how = s.FromIntegration.Keys, fmt.Sprintf("a key of its integration %s", s.FromIntegration.Name)
	}
	if s.EnvVar != "" && len(names) == 1 {
		names, how = []string{s.EnvVar}, "its env_var"
	}
	out := make([]injectedVar, len(names))
	for i, n := range names {
		out[i] = injectedVar{n, how}
	}
	return out
}
