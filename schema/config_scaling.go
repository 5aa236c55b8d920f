package schema

import (
	"errors"
	"fmt"
)

// Scaling groups (issue 11: scaling groups): the config type, the spec
// type and its validation. The config type has Go fields only for what
// needs code (references, the resources, network and ports checks); every other
// field of #ScalingGroup rides in Extra into the spec.

// ScalingGroup is a long-running replicated service (#ScalingGroup).
type ScalingGroup struct {
	Image *Image `json:"image"`
	// Command and Process are the replicas' process (command, or
	// entrypoint and args), folded into the spec's Command and Args.
	Command []string `json:"command,omitempty"`
	Process
	Resources    *Resources          `json:"resources,omitempty"`
	Network      *Network            `json:"network,omitempty"`
	Ports        []int               `json:"ports,omitempty"`
	Env          map[string]EnvValue `json:"env,omitempty"`
	EnvFrom      []*Secret           `json:"env_from,omitempty"`
	Credentials  []Credential        `json:"credentials,omitempty"`
	VolumeMounts []VolumeMount       `json:"volume_mounts,omitempty"`
	// Lifecycle is how cc treats the resource beyond its spec; it is
	// in no spec or hash.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Extra holds the fields of the schema that have no Go field; the
	// compiler carries them into the spec as they are.
	Extra Extra `json:"-"`
}

func (v ScalingGroup) MarshalJSON() ([]byte, error) {
	type plain ScalingGroup
	return marshalWithExtra(plain(v), v.Extra)
}

// Replicas bounds a scaling group's size (#Replicas).
type Replicas struct {
	Min               int `json:"min"`
	Max               int `json:"max"`
	TargetConcurrency int `json:"target_concurrency,omitempty"`
}

// ScalingGroupSpec is a compiled scaling group. The compiler fills the
// fields it computes (image, references) and carries the rest from the
// configuration; the service decodes every field to validate it.
type ScalingGroupSpec struct {
	Image        string             `json:"image"`
	Command      []string           `json:"command,omitempty"`
	Resources    *Resources         `json:"resources,omitempty"`
	Replicas     *Replicas          `json:"replicas,omitempty"`
	Env          map[string]EnvSpec `json:"env,omitempty"`
	EnvFrom      []Ref              `json:"env_from,omitempty"`
	Credentials  []CredentialSpec   `json:"credentials,omitempty"`
	Network      *Network           `json:"network,omitempty"`
	Ports        []int              `json:"ports,omitempty"`
	VolumeMounts []VolumeMountSpec  `json:"volume_mounts,omitempty"`
	Identity     bool               `json:"identity,omitempty"`
	Tags         []string           `json:"tags,omitempty"`
	Annotations  map[string]string  `json:"annotations,omitempty"`
	// Args, set only without a Command, replaces the image's CMD under
	// its ENTRYPOINT; an entrypoint is folded into Command.
	Args *[]string `json:"args,omitempty"`
}

func (s *ScalingGroupSpec) refs() []refUse {
	out := append(envRefs(s.Env, s.EnvFrom), mountRefs(s.VolumeMounts)...)
	for i := range s.Credentials {
		out = append(out, refUse{fmt.Sprintf("credentials[%d].secret", i), &s.Credentials[i].Secret, KindSecret})
	}
	return out
}

func (s *ScalingGroupSpec) validate() error {
	if err := checkImageRef("image", s.Image); err != nil {
		return err
	}
	if err := checkResources(s.Resources); err != nil {
		return err
	}
	if r := s.Replicas; r != nil && (r.Min < 0 || r.Max < 1 || r.Max < r.Min || r.TargetConcurrency < 0) {
		return fmt.Errorf("replicas %+v: want 0 <= min <= max, max >= 1, target_concurrency >= 1 when set", *r)
	}
	if err := checkPorts(s.Ports); err != nil {
		return err
	}
	for i, c := range s.Credentials {
		if len(c.Hosts) == 0 {
			return fmt.Errorf("credentials[%d]: no hosts", i)
		}
	}
	return checkMounts(s.VolumeMounts)
}

// checkPorts refuses a port out of range or listed twice.
func checkPorts(ports []int) error {
	seen := map[int]bool{}
	for i, p := range ports {
		if p < 1 || p > 65535 {
			return fmt.Errorf("ports[%d] %d: want 1 to 65535", i, p)
		}
		if seen[p] {
			return fmt.Errorf("ports[%d]: port %d is listed twice", i, p)
		}
		seen[p] = true
	}
	if len(ports) > 64 {
		return errors.New("ports: at most 64")
	}
	return nil
}
