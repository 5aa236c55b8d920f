package schema

import (
	"errors"
	"fmt"
	"strings"
)

// Container is one long-running service from an image (#Container).
type Container struct {
	Image *Image `json:"image"`
	ContainerSettings
	// Process is the process beside command (entrypoint, args).
	Process
	Env          map[string]EnvValue `json:"env,omitempty"`
	EnvFrom      []*Secret           `json:"env_from,omitempty"`
	Credentials  []Credential        `json:"credentials,omitempty"`
	VolumeMounts []VolumeMount       `json:"volume_mounts,omitempty"`
	MountedFiles []MountedFile       `json:"mounted_files,omitempty"`
	// Lifecycle is how cc treats the resource beyond its spec; it is
	// in no spec or hash.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Extra holds the fields of the schema that have no Go field; the
	// compiler carries them into the spec as they are.
	Extra Extra `json:"-"`
}

// ContainerSettings are the fields a container's config and spec share:
// plain values the compiler copies as they are.
type ContainerSettings struct {
	Command       []string          `json:"command,omitempty"`
	Resources     *Resources        `json:"resources,omitempty"`
	Ports         []ContainerPort   `json:"ports,omitempty"`
	HealthCheck   *HealthCheck      `json:"health_check,omitempty"`
	RestartPolicy string            `json:"restart_policy"`
	Network       *Network          `json:"network,omitempty"`
	Tags          []string          `json:"tags,omitempty"`
	Annotations   map[string]string `json:"annotations,omitempty"`
	Identity      bool              `json:"identity,omitempty"`
}

// ContainerPort is one port a container listens on (#ContainerPort).
type ContainerPort struct {
	Port     int    `json:"port"`
	Protocol string `json:"protocol"`
}

// HealthCheck probes a container (#HealthCheck).
type HealthCheck struct {
	HTTPPath         string   `json:"http_path,omitempty"`
	Command          []string `json:"command,omitempty"`
	Port             int      `json:"port,omitempty"`
	Interval         string   `json:"interval"`
	Timeout          string   `json:"timeout"`
	FailureThreshold int      `json:"failure_threshold"`
}

// ContainerSpec is a compiled container.
type ContainerSpec struct {
	Image string `json:"image"`
	ContainerSettings
	Env          map[string]EnvSpec `json:"env,omitempty"`
	EnvFrom      []Ref              `json:"env_from,omitempty"`
	Credentials  []CredentialSpec   `json:"credentials,omitempty"`
	VolumeMounts []VolumeMountSpec  `json:"volume_mounts,omitempty"`
	MountedFiles []MountedFileSpec  `json:"mounted_files,omitempty"`
	// Args, set only without a Command, replaces the image's CMD under
	// its ENTRYPOINT; an entrypoint is folded into Command.
	Args *[]string `json:"args,omitempty"`
}

// MarshalJSON writes the container's Extra fields into its JSON.
func (v Container) MarshalJSON() ([]byte, error) {
	type plain Container
	return marshalWithExtra(plain(v), v.Extra)
}

func (s *ContainerSpec) refs() []refUse {
	out := append(envRefs(s.Env, s.EnvFrom), mountRefs(s.VolumeMounts)...)
	return append(out, credentialRefs(s.Credentials)...)
}

func (s *ContainerSpec) validate() error {
	if err := checkWorkload(s.Image, s.Resources, s.VolumeMounts); err != nil {
		return err
	}
	switch s.RestartPolicy {
	case "always", "on_failure", "never":
	default:
		return fmt.Errorf("restart_policy %q: want always, on_failure or never", s.RestartPolicy)
	}
	if err := checkContainerPorts(s.Ports); err != nil {
		return err
	}
	if h := s.HealthCheck; h != nil {
		return h.validate()
	}
	return nil
}

// checkContainerPorts refuses a port out of range, a protocol other than
// tcp and udp, and one port and protocol listed twice.
func checkContainerPorts(ps []ContainerPort) error {
	seen := map[ContainerPort]bool{}
	for i, p := range ps {
		if p.Port < 1 || p.Port > 65535 {
			return fmt.Errorf("ports[%d].port %d: want 1 to 65535", i, p.Port)
		}
		if p.Protocol != "tcp" && p.Protocol != "udp" {
			return fmt.Errorf("ports[%d].protocol %q: want tcp or udp", i, p.Protocol)
		}
		if seen[p] {
			return fmt.Errorf("ports[%d]: %d/%s is listed twice", i, p.Port, p.Protocol)
		}
		seen[p] = true
	}
	return nil
}

func (h *HealthCheck) validate() error {
	if count(h.HTTPPath != "", len(h.Command) > 0) != 1 {
		return errors.New("health_check: exactly one of http_path and command")
	}
	if h.HTTPPath != "" && (!strings.HasPrefix(h.HTTPPath, "/") || h.Port == 0) {
		return fmt.Errorf("health_check: http_path %q needs to start with / and a port", h.HTTPPath)
	}
	if h.Port < 0 || h.Port > 65535 {
		return fmt.Errorf("health_check.port %d: want 1 to 65535", h.Port)
	}
	if err := checkDuration("health_check.interval", h.Interval); err != nil {
		return err
	}
	if err := checkDuration("health_check.timeout", h.Timeout); err != nil {
		return err
	}
	if h.FailureThreshold < 1 || h.FailureThreshold > 100 {
		return fmt.Errorf("health_check.failure_threshold %d: want 1 to 100", h.FailureThreshold)
	}
	return nil
}
