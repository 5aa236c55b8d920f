package schema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// The patterns of config.cue, for checking compiled specs without CUE.
var (
	quantityRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$`)
	durationRE = regexp.MustCompile(`^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`)
	digestRE   = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	nameRE     = regexp.MustCompile(`^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$`)
)

// ValidName reports whether s is a resource or project name: a lowercase
// DNS label (#Name).
func ValidName(s string) bool { return nameRE.MatchString(s) }

// ValidateSpec checks a compiled spec of kind k as a service receives it,
// from a client it may not trust: a JSON object that decodes into the
// kind's spec type with no field the type lacks and nothing after it, and
// that keeps the rules of the schema a compiled spec always keeps
// (required fields, one source of several, sizes and durations in their
// forms, positive counts). It does not resolve references.
func ValidateSpec(k Kind, spec []byte) error {
	_, err := SpecRefs(k, spec)
	return err
}

// specType is the Go type of a kind's spec, as SpecRefs decodes it.
type specType interface {
	validate() error
	refs() []refUse
}

// specValue is a new spec of kind k's Go type.
func specValue(k Kind) (specType, error) {
	var v specType
	switch k {
	case KindImage:
		v = new(ImageSpec)
	case KindSecret:
		v = new(SecretSpec)
	case KindVolume:
		v = new(VolumeSpec)
	case KindDataset:
		v = new(DatasetSpec)
	case KindSuite:
		v = new(SuiteSpec)
	case KindSandbox:
		v = new(SandboxSpec)
	case KindFunction:
		v = new(FunctionSpec)
	case KindContainer:
		v = new(ContainerSpec)
	case KindTraining:
		v = new(TrainingSpec)
	case KindScalingGroup:
		v = new(ScalingGroupSpec)
	case KindEvaluation:
		v = new(EvaluationSpec)
	default:
		return nil, fmt.Errorf("unknown kind %q", k)
	}
	return v, nil
}

// SpecRefs validates a spec as ValidateSpec does and returns the addresses
// its references name (Ref fields), sorted and unique: a resource's
// DependsOn must name each of them.
func SpecRefs(k Kind, spec []byte) ([]string, error) {
	v, err := specValue(k)
	if err != nil {
		return nil, err
	}
	if t := bytes.TrimLeft(spec, " \t\r\n"); len(t) == 0 || t[0] != '{' {
		return nil, fmt.Errorf("a %s spec is a JSON object", k)
	}
	spec, err = withoutSchemaOnly(k, spec, v)
	if err != nil {
		return nil, fmt.Errorf("%s spec: %w", k, err)
	}
	dec := json.NewDecoder(bytes.NewReader(spec))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, fmt.Errorf("%s spec: %w", k, err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("%s spec: data after the object", k)
	}
	if err := v.validate(); err != nil {
		return nil, fmt.Errorf("%s spec: %w", k, err)
	}
	var out []string
	for _, u := range v.refs() {
		if u.ref == nil {
			continue
		}
		if err := checkRef(u.field, u.ref, u.kind); err != nil {
			return nil, fmt.Errorf("%s spec: %w", k, err)
		}
		out = append(out, u.ref.Ref)
	}
	sort.Strings(out)
	return slices.Compact(out), nil
}

// refUse is a reference in a spec: where it is, and the kind it must name.
type refUse struct {
	field string
	ref   *Ref
	kind  Kind
}

func (*ImageSpec) refs() []refUse   { return nil }
func (*SecretSpec) refs() []refUse  { return nil }
func (*VolumeSpec) refs() []refUse  { return nil }
func (*DatasetSpec) refs() []refUse { return nil }
func (*SuiteSpec) refs() []refUse   { return nil }

func envRefs(env map[string]EnvSpec, from []Ref) []refUse {
	var out []refUse
	for k, e := range env {
		out = append(out, refUse{"env " + k, e.Secret, KindSecret})
	}
	for i := range from {
		out = append(out, refUse{fmt.Sprintf("env_from[%d]", i), &from[i], KindSecret})
	}
	return out
}

func mountRefs(ms []VolumeMountSpec) []refUse {
	var out []refUse
	for i := range ms {
		out = append(out, refUse{fmt.Sprintf("volume_mounts[%d].volume", i), &ms[i].Volume, KindVolume})
	}
	return out
}

func (s *SandboxSpec) refs() []refUse {
	out := append(envRefs(s.Env, s.EnvFrom), mountRefs(s.VolumeMounts)...)
	out = append(out, credentialRefs(s.Credentials)...)
	if s.S3Mount != nil {
		out = append(out, refUse{"s3_mount.credentials", s.S3Mount.Credentials, KindSecret})
	}
	return out
}

func credentialRefs(cs []CredentialSpec) []refUse {
	var out []refUse
	for i := range cs {
		out = append(out, refUse{fmt.Sprintf("credentials[%d].secret", i), &cs[i].Secret, KindSecret})
	}
	return out
}

func (s *FunctionSpec) refs() []refUse {
	out := append(envRefs(s.Env, s.EnvFrom), mountRefs(s.VolumeMounts)...)
	out = append(out, credentialRefs(s.Credentials)...)
	if s.S3Mount != nil {
		out = append(out, refUse{"s3_mount.credentials", s.S3Mount.Credentials, KindSecret})
	}
	return out
}

func (s *EvaluationSpec) refs() []refUse {
	out := []refUse{{"dataset", &s.Dataset, KindDataset}, {"task", s.Task, KindFunction}, {"suite", s.Suite, KindSuite}}
	for i, sc := range s.Scorers {
		out = append(out, refUse{fmt.Sprintf("scorers[%d].function", i), sc.Function, KindFunction})
		if sc.LLMJudge != nil {
			out = append(out, refUse{fmt.Sprintf("scorers[%d].llm_judge.api_key", i), sc.LLMJudge.APIKey, KindSecret})
		}
	}
	return out
}

func checkQuantity(field, s string, positive bool) error {
	if !quantityRE.MatchString(s) {
		return fmt.Errorf("%s %q is not a quantity such as 256Mi or 4Gi", field, s)
	}
	if positive && strings.Trim(strings.TrimRight(s, "KMGTPEik"), "0.") == "" {
		return fmt.Errorf("%s %q: want more than 0", field, s)
	}
	return nil
}

func checkDuration(field, s string) error {
	if !durationRE.MatchString(s) {
		return fmt.Errorf("%s %q is not a duration such as 30s or 5m", field, s)
	}
	return nil
}

func checkRef(field string, r *Ref, kind Kind) error {
	if dk, _, ok := ParseDataAddress(r.Ref); ok {
		// A data source (issue 10): resolved when planned, so no hash.
		if dk != kind {
			return fmt.Errorf("%s: ref %q is not a %s", field, r.Ref, kind)
		}
		if r.Hash != "" {
			return fmt.Errorf("%s: ref %q is a data source, resolved when planned, and has no hash", field, r.Ref)
		}
		return nil
	}
	k, _, ok := ParseAddress(r.Ref)
	if !ok {
		return fmt.Errorf("%s: ref %q is not a resource's address (KIND.NAME)", field, r.Ref)
	}
	if k != kind {
		return fmt.Errorf("%s: ref %q is not a %s", field, r.Ref, kind)
	}
	if r.Hash != "" && !digestRE.MatchString(r.Hash) {
		return fmt.Errorf("%s: hash %q is not sha256:HEX", field, r.Hash)
	}
	return nil
}

func checkDigest(field, d string) error {
	if !digestRE.MatchString(d) {
		return fmt.Errorf("%s %q is not sha256:HEX", field, d)
	}
	return nil
}

func count(set ...bool) int {
	n := 0
	for _, s := range set {
		if s {
			n++
		}
	}
	return n
}

func (s *ImageSpec) validate() error {
	if count(s.From != "", s.FromImage != "", s.FromDockerfile != nil) != 1 {
		return errors.New("exactly one of from, from_image and from_dockerfile")
	}
	if s.FromImage != "" && !digestRE.MatchString(s.FromImage) {
		return fmt.Errorf("from_image %q is not an image's hash", s.FromImage)
	}
	if d := s.FromDockerfile; d != nil {
		if err := checkDigest("from_dockerfile.digest", d.Digest); err != nil {
			return err
		}
		if err := checkDigest("from_dockerfile.context", d.Context); err != nil {
			return err
		}
	}
	return nil
}

func (s *SecretSpec) validate() error {
	if count(s.FromEnv != "", s.FromEnvFile != nil, s.FromService != "", s.FromIntegration != nil, s.FromStore != nil) != 1 {
		return errors.New("exactly one of from_env, from_env_file, from_service, from_integration and from_store")
	}
	return nil
}

func (s *SuiteSpec) validate() error {
	if s.Title == "" {
		return errNoTitle
	}
	return nil
}

func (s *VolumeSpec) validate() error { return checkQuantity("size", s.Size, true) }

func (s *DatasetSpec) validate() error {
	if (len(s.Files) == 0) == (len(s.Rows) == 0) {
		return errors.New("files or rows: want exactly one of them")
	}
	for i, f := range s.Files {
		if f.Path == "" {
			return fmt.Errorf("files[%d]: no path", i)
		}
		if err := checkDigest(fmt.Sprintf("files[%d].digest", i), f.Digest); err != nil {
			return err
		}
	}
	return s.validateRows()
}

// checkWorkload checks what every kind that runs an image has: the image
// by hash, the resources, the volume mounts.
func checkWorkload(image string, r *Resources, ms []VolumeMountSpec) error {
	if err := checkImageRef("image", image); err != nil {
		return err
	}
	if err := checkResources(r); err != nil {
		return err
	}
	return checkMounts(ms)
}

func checkResources(r *Resources) error {
	if r == nil {
		return nil
	}
	for _, l := range []*ResourceList{r.Requests, r.Limits} {
		if l != nil && l.Memory != "" {
			if err := checkQuantity("resources memory", l.Memory, true); err != nil {
				return err
			}
		}
	}
	if r.GPU != nil && r.GPU.Count <= 0 {
		return fmt.Errorf("resources.gpu.count %d: want more than 0", r.GPU.Count)
	}
	return nil
}

func checkMounts(ms []VolumeMountSpec) error {
	for i, m := range ms {
		if !strings.HasPrefix(m.Path, "/") {
			return fmt.Errorf("volume_mounts[%d].path %q is not absolute", i, m.Path)
		}
	}
	return nil
}

func checkImageRef(field, s string) error {
	if !digestRE.MatchString(s) {
		return fmt.Errorf("%s %q is not an image's hash", field, s)
	}
	return nil
}

func (s *SandboxSpec) validate() error {
	if err := checkWorkload(s.Image, s.Resources, s.VolumeMounts); err != nil {
		return err
	}
	if s.Snapshot != nil && s.Snapshot.Size != "" {
		if err := checkQuantity("snapshot.size", s.Snapshot.Size, true); err != nil {
			return err
		}
	}
	if s.Lifetime != "" {
		if err := checkDuration("lifetime", s.Lifetime); err != nil {
			return err
		}
	}
	return nil
}

func (s *FunctionSpec) validate() error {
	if err := checkImageRef("image", s.Image); err != nil {
		return err
	}
	if len(s.Source.Paths) == 0 {
		return errors.New("source.paths: want at least one")
	}
	if err := checkDigest("source.digest", s.Source.Digest); err != nil {
		return err
	}
	if s.Handler == "" {
		return errors.New("no handler")
	}
	if err := checkDuration("timeout", s.Timeout); err != nil {
		return err
	}
	if s.Retries < 0 || s.Retries > 10 {
		return fmt.Errorf("retries %d: want 0 to 10", s.Retries)
	}
	if err := checkVersionTrigger(s.VersionTrigger); err != nil {
		return err
	}
	if sc := s.Scaling; sc != nil && (sc.MinReplicas < 0 || sc.MaxReplicas < 1 || sc.MaxReplicas < sc.MinReplicas || sc.Concurrency < 1) {
		return fmt.Errorf("scaling %+v: want 0 <= min_replicas <= max_replicas, max_replicas >= 1, concurrency >= 1", *sc)
	}
	if err := checkResources(s.Resources); err != nil {
		return err
	}
	return checkMounts(s.VolumeMounts)
}

func (s *EvaluationSpec) validate() error { return s.validateScorers() }
