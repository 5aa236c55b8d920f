package compiler

import (
	"strconv"
	"strings"

	"cc.dev/cc/schema"
)

// training compiles one training job: its datasets by address and hash
// (a new revision is a new job), and only secrets the service holds.
func (b *builder) training(name string) {
	t := b.cfg.Trainings[name]
	path := []string{"trainings", name}
	var deps []string
	spec := schema.TrainingSpec{TrainingSettings: t.TrainingSettings}
	b.checkResources(t.Resources, appendPath(path, "resources"))
	spec.Image = b.workloadImage(t.Image, path, &deps)
	spec.Env, spec.EnvFrom = b.environment(t.Env, t.EnvFrom, path, &deps)
	b.serviceSecretsOnly(t, spec, path)
	spec.Datasets = b.datasetMounts(t.Datasets, appendPath(path, "dataset_mounts"), &deps)
	spec.VolumeMounts = b.volumeMounts(t.VolumeMounts, appendPath(path, "volume_mounts"), &deps)
	spec.Command, spec.Args = foldProcess(t.Command, t.Process)
	b.emit(schema.KindTraining, name, withExtra(spec, t.Extra), deps, nil)
}

// datasetMounts resolves the datasets a training mounts, of the project
// or data sources, each at its own path.
func (b *builder) datasetMounts(ms []schema.DatasetMount, path []string, deps *[]string) []schema.DatasetMountSpec {
	var out []schema.DatasetMountSpec
	seen := map[string]bool{}
	for i, m := range ms {
		p := appendPath(path, strconv.Itoa(i))
		if seen[m.Path] {
			b.errorf(appendPath(p, "path"), "two datasets are mounted at %s", m.Path)
		}
		seen[m.Path] = true
		dp := appendPath(p, "dataset")
		if ref, isData := b.dataRef(schema.KindDataset, m.Dataset.ID, dp); isData {
			if ref.Ref != "" {
				out = append(out, schema.DatasetMountSpec{Dataset: ref, Path: m.Path})
				*deps = append(*deps, ref.Ref)
			}
			continue
		}
		dname := b.resolve(schema.KindDataset, m.Dataset.ID, m.Dataset, dp, func(n string) bool { return b.cfg.Datasets[n] != nil })
		if dname == "" {
			continue
		}
		if r := b.dataset(dname); r != nil {
			out = append(out, schema.DatasetMountSpec{Dataset: schema.Ref{Ref: r.Address, Hash: r.Hash}, Path: m.Path})
			*deps = append(*deps, r.Address)
		}
	}
	return out
}

// serviceSecretsOnly refuses, at its use, every secret of the training
// that is read on the machine running cc (from_env, from_env_file): seed
// A's training supports only platform secret references.
func (b *builder) serviceSecretsOnly(t *schema.Training, spec schema.TrainingSpec, path []string) {
	for _, k := range sortedKeys(t.Env) {
		if e := spec.Env[k]; e.Secret != nil {
			b.localSecretUse(e.Secret.Ref, appendPath(path, "env", k), "env "+k)
		}
	}
	if len(spec.EnvFrom) != len(t.EnvFrom) {
		return // a reference did not resolve: reported already
	}
	for i, r := range spec.EnvFrom {
		b.localSecretUse(r.Ref, appendPath(path, "env_from", strconv.Itoa(i)), "env_from["+strconv.Itoa(i)+"]")
	}
}

// localSecretUse reports the use at path of the secret at addr when its
// source is local.
func (b *builder) localSecretUse(addr string, path []string, what string) {
	name, ok := strings.CutPrefix(addr, "secret.")
	s := b.cfg.Secrets[name]
	if !ok || s == nil {
		return // a data source: held by the service
	}
	var local string
	switch {
	case s.FromEnv != "":
		local = "the local environment (from_env " + s.FromEnv + ")"
	case s.FromEnvFile != nil:
		local = "a local file (from_env_file " + s.FromEnvFile.Path + ")"
	default:
		return
	}
	d := b.errorf(path, "training %s: %s comes from %s, and a training accepts only secrets the service holds (from_service, from_integration, from_store, data.secrets.NAME)", what, addr, local)
	d.Detail = "a training job runs on the platform after cc apply has finished, where no local environment or file can be read; store the value on the service and refer to it there"
}
