package schema

import "fmt"

// Training is a training job (#Training).
type Training struct {
	Image *Image `json:"image"`
	TrainingSettings
	// Process is the process beside command (entrypoint, args).
	Process
	Datasets     []DatasetMount      `json:"dataset_mounts,omitempty"`
	VolumeMounts []VolumeMount       `json:"volume_mounts,omitempty"`
	Env          map[string]EnvValue `json:"env,omitempty"`
	EnvFrom      []*Secret           `json:"env_from,omitempty"`
	// Lifecycle is how cc treats the resource beyond its spec; it is
	// in no spec or hash.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Extra holds the fields of the schema that have no Go field; the
	// compiler carries them into the spec as they are.
	Extra Extra `json:"-"`
}

// TrainingSettings are the fields a training's config and spec share.
type TrainingSettings struct {
	Command   []string   `json:"command,omitempty"`
	Resources *Resources `json:"resources,omitempty"`
}

// DatasetMount mounts a dataset read-only at a path (#DatasetMount).
type DatasetMount struct {
	Dataset *Dataset `json:"dataset"`
	Path    string   `json:"path"`
}

// DatasetMountSpec is a compiled dataset mount: the dataset by address
// and hash, so that a new revision of it changes the training's hash.
type DatasetMountSpec struct {
	Dataset Ref    `json:"dataset"`
	Path    string `json:"path"`
}

// TrainingSpec is a compiled training.
type TrainingSpec struct {
	Image string `json:"image"`
	TrainingSettings
	Datasets     []DatasetMountSpec `json:"dataset_mounts,omitempty"`
	VolumeMounts []VolumeMountSpec  `json:"volume_mounts,omitempty"`
	Env          map[string]EnvSpec `json:"env,omitempty"`
	EnvFrom      []Ref              `json:"env_from,omitempty"`
	// Args, set only without a Command, replaces the image's CMD under
	// its ENTRYPOINT; an entrypoint is folded into Command.
	Args *[]string `json:"args,omitempty"`
}

// MarshalJSON writes the training's Extra fields into its JSON.
func (v Training) MarshalJSON() ([]byte, error) {
	type plain Training
	return marshalWithExtra(plain(v), v.Extra)
}

func (s *TrainingSpec) refs() []refUse {
	out := append(envRefs(s.Env, s.EnvFrom), mountRefs(s.VolumeMounts)...)
	for i := range s.Datasets {
		out = append(out, refUse{fmt.Sprintf("dataset_mounts[%d].dataset", i), &s.Datasets[i].Dataset, KindDataset})
	}
	return out
}

func (s *TrainingSpec) validate() error {
	if err := checkWorkload(s.Image, s.Resources, s.VolumeMounts); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i, m := range s.Datasets {
		if len(m.Path) == 0 || m.Path[0] != '/' {
			return fmt.Errorf("dataset_mounts[%d].path %q is not absolute", i, m.Path)
		}
		if seen[m.Path] {
			return fmt.Errorf("dataset_mounts[%d]: two datasets are mounted at %s", i, m.Path)
		}
		seen[m.Path] = true
	}
	return nil
}
