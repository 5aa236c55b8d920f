package compiler

import (
	"strconv"
	"strings"

	"cc.dev/cc/schema"
)

// envSpec compiles an env map; deps collects the secrets it refers to.
func (b *builder) envSpec(env map[string]schema.EnvValue, path []string, deps *[]string) map[string]schema.EnvSpec {
	if len(env) == 0 {
		return nil
	}
	out := map[string]schema.EnvSpec{}
	for _, k := range sortedKeys(env) {
		v := env[k]
		if v.Secret == nil {
			out[k] = schema.EnvSpec{Value: v.Value}
			continue
		}
		p := appendPath(path, k)
		ref, ok := b.secretRef(v.Secret, p)
		if !ok {
			continue
		}
		if single, n := b.singleValued(strings.TrimPrefix(ref.Ref, "secret.")); !single {
			d := b.errorf(p, "env %s: %s holds %d values, and an environment variable holds one", k, ref.Ref, n)
			d.Detail = "select one key, or inject all of them with env_from"
			continue
		}
		*deps = append(*deps, ref.Ref)
		out[k] = schema.EnvSpec{Secret: &ref}
	}
	return out
}

func (b *builder) secretRefs(ss []*schema.Secret, path []string, deps *[]string) []schema.Ref {
	var out []schema.Ref
	for i, s := range ss {
		if ref, ok := b.secretRef(s, appendPath(path, strconv.Itoa(i))); ok {
			out = append(out, ref)
			*deps = append(*deps, ref.Ref)
		}
	}
	return out
}

func (b *builder) volumeMounts(vms []schema.VolumeMount, path []string, deps *[]string) []schema.VolumeMountSpec {
	var out []schema.VolumeMountSpec
	seen := map[string]bool{}
	for i, vm := range vms {
		p := appendPath(path, strconv.Itoa(i))
		if ref, isData := b.dataRef(schema.KindVolume, vm.Volume.ID, appendPath(p, "volume")); isData {
			if ref.Ref != "" {
				out = append(out, schema.VolumeMountSpec{Volume: ref, Path: vm.Path, ReadOnly: vm.ReadOnly})
				*deps = append(*deps, ref.Ref)
			}
			continue
		}
		name := b.resolve(schema.KindVolume, vm.Volume.ID, vm.Volume, appendPath(p, "volume"), func(n string) bool { return b.cfg.Volumes[n] != nil })
		if name == "" {
			continue
		}
		if seen[vm.Path] {
			b.errorf(appendPath(p, "path"), "two volumes are mounted at %s", vm.Path)
		}
		seen[vm.Path] = true
		addr := schema.Address(schema.KindVolume, name)
		out = append(out, schema.VolumeMountSpec{Volume: schema.Ref{Ref: addr}, Path: vm.Path, ReadOnly: vm.ReadOnly})
		*deps = append(*deps, addr)
	}
	return out
}

// workloadImage resolves the image of the sandbox or function at path to
// its hash, a dependency of the workload; "" when it is in error.
func (b *builder) workloadImage(img *schema.Image, path []string, deps *[]string) string {
	h := b.imageRef(img, appendPath(path, "image"))
	if h != "" {
		*deps = append(*deps, "#"+h)
	}
	return h
}

// environment compiles the env and env_from of the sandbox or function at
// path, and refuses two sources for one variable.
func (b *builder) environment(env map[string]schema.EnvValue, from []*schema.Secret, path []string, deps *[]string) (map[string]schema.EnvSpec, []schema.Ref) {
	specs := b.envSpec(env, appendPath(path, "env"), deps)
	refs := b.secretRefs(from, appendPath(path, "env_from"), deps)
	b.envClashes(env, refs, len(from), path)
	return specs, refs
}

func (b *builder) sandbox(name string) {
	s := b.cfg.Sandboxes[name]
	path := []string{"sandboxes", name}
	var deps []string
	spec := schema.SandboxSpec{SandboxSettings: s.SandboxSettings}
	b.checkResources(s.Resources, appendPath(path, "resources"))
	img := s.Image
	if img == nil {
		img = defaultSandboxImage() // issue 11: a sandbox without an image
	}
	spec.Image = b.workloadImage(img, path, &deps)
	spec.Env, spec.EnvFrom = b.environment(s.Env, s.EnvFrom, path, &deps)
	spec.Credentials = b.credentials(s.Credentials, appendPath(path, "credentials"), &deps)
	spec.VolumeMounts = b.volumeMounts(s.VolumeMounts, appendPath(path, "volume_mounts"), &deps)
	var inputs []schema.Input
	spec.MountedFiles = b.mountedFiles(s.MountedFiles, appendPath(path, "mounted_files"), &inputs)
	spec.S3Mount = b.s3Mount(s.S3Mount, appendPath(path, "s3_mount"), &deps)
	spec.Command, spec.Args = foldProcess(s.Command, s.Process)
	b.emit(schema.KindSandbox, name, withExtra(spec, s.Extra), deps, inputs)
}

func (b *builder) function(name string) *schema.Resource {
	b.mu.Lock()
	if r, ok := b.functions[name]; ok {
		b.mu.Unlock()
		return r
	}
	b.functions[name] = nil // in progress
	b.mu.Unlock()
	f := b.cfg.Functions[name]
	path := []string{"functions", name}
	var deps []string
	spec := schema.FunctionSpec{FunctionSettings: f.FunctionSettings}
	b.checkResources(f.Resources, appendPath(path, "resources"))
	spec.Image = b.workloadImage(f.Image, path, &deps)
	var paths []string
	for _, p := range f.Source.Paths {
		paths = append(paths, cleanRel(p))
	}
	spec.Source = schema.SourceSpec{Paths: paths, Include: f.Source.Include, Exclude: f.Source.Exclude}
	var inputs []schema.Input
	t := b.fs.tree(paths, "", f.Source.Include, f.Source.Exclude)
	if t.err != nil {
		b.fileError(t.err, strings.Join(paths, ", "), appendPath(path, "source", "paths"), "function source")
	} else {
		spec.Source.Digest = t.digest
		inputs = append(inputs, schema.Input{Path: strings.Join(paths, ","), Digest: t.digest, Tree: true})
	}
	spec.Env, spec.EnvFrom = b.environment(f.Env, f.EnvFrom, path, &deps)
	spec.VolumeMounts = b.volumeMounts(f.VolumeMounts, appendPath(path, "volume_mounts"), &deps)
	spec.Credentials = b.credentials(f.Credentials, appendPath(path, "credentials"), &deps)
	spec.MountedFiles = b.mountedFiles(f.MountedFiles, appendPath(path, "mounted_files"), &inputs)
	spec.S3Mount = b.s3Mount(f.S3Mount, appendPath(path, "s3_mount"), &deps)
	r := b.emit(schema.KindFunction, name, withExtra(spec, f.Extra), deps, inputs)
	b.mu.Lock()
	b.functions[name] = r
	b.mu.Unlock()
	return r
}

// functionRef resolves a function at a reference position.
func (b *builder) functionRef(fn *schema.Function, path []string) (schema.Ref, bool) {
	if ref, isData := b.dataRef(schema.KindFunction, fn.ID, path); isData {
		return ref, ref.Ref != ""
	}
	name := b.resolve(schema.KindFunction, fn.ID, fn, path, func(n string) bool { return b.cfg.Functions[n] != nil })
	if name == "" {
		return schema.Ref{}, false
	}
	r := b.function(name)
	if r == nil {
		return schema.Ref{}, false
	}
	return schema.Ref{Ref: r.Address, Hash: r.Hash}, true
}
