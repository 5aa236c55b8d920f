package schema

import "encoding/json"

// The types in this file are the canonical specs of compiled resources, the
// Spec of a Resource. A reference to another resource is its hash (images)
// or a Ref (everything else), never a copy; local inputs carry digests.

// Ref refers to another resource by address; Hash is its content hash when
// the referrer's identity depends on it (secrets, datasets, functions).
type Ref struct {
	Ref  string `json:"ref"`
	Hash string `json:"hash,omitempty"`
}

// FileInput is a local file by path and content digest.
type FileInput struct {
	Path   string `json:"path"`
	Digest string `json:"digest"`
}

// DockerfileInput is an image's Dockerfile: its path and content digest,
// and the tree digest of its build context, the Dockerfile's directory.
type DockerfileInput struct {
	Path    string `json:"path"`
	Digest  string `json:"digest"`
	Context string `json:"context"`
}

// ImageSpec is a compiled image. Exactly one of From, FromImage and
// FromDockerfile is set.
type ImageSpec struct {
	From           string           `json:"from,omitempty"`
	FromImage      string           `json:"from_image,omitempty"`
	FromDockerfile *DockerfileInput `json:"from_dockerfile,omitempty"`
	Steps          []Step           `json:"steps,omitempty"`
	Entrypoint     []string         `json:"entrypoint,omitempty"`
	Cmd            []string         `json:"cmd,omitempty"`
	User           string           `json:"user,omitempty"`
	Platform       string           `json:"platform,omitempty"`
}

// SecretSpec is a compiled secret: its source. For from_env_file the keys
// are those selected, or all keys of the file when none were.
type SecretSpec struct {
	FromEnv         string             `json:"from_env,omitempty"`
	FromEnvFile     *EnvFileSource     `json:"from_env_file,omitempty"`
	FromService     string             `json:"from_service,omitempty"`
	FromIntegration *IntegrationSource `json:"from_integration,omitempty"`
	FromStore       *StoreSource       `json:"from_store,omitempty"`
	EnvVar          string             `json:"env_var,omitempty"`
}

// VolumeSpec is a compiled volume.
type VolumeSpec struct {
	VolumeSettings
}

// DatasetSpec is a compiled dataset.
type DatasetSpec struct {
	// Name is the dataset's platform name when it differs from its
	// address.
	Name  string      `json:"name,omitempty"`
	Files []FileInput `json:"files,omitempty"`
	// Rows is an inline table, each row's cells by column (issue 11).
	Rows []map[string]Scalar `json:"rows,omitempty"`
	DatasetSettings
}

// EnvSpec is a literal value or a secret reference.
type EnvSpec struct {
	Value  string
	Secret *Ref
}

func (e EnvSpec) MarshalJSON() ([]byte, error) {
	if e.Secret != nil {
		return json.Marshal(e.Secret)
	}
	return json.Marshal(e.Value)
}

func (e *EnvSpec) UnmarshalJSON(b []byte) error {
	if isJSONString(b) {
		return json.Unmarshal(b, &e.Value)
	}
	e.Secret = new(Ref)
	return json.Unmarshal(b, e.Secret)
}

type CredentialSpec struct {
	Hosts  []string `json:"hosts"`
	Secret Ref      `json:"secret"`
}

type VolumeMountSpec struct {
	Volume   Ref    `json:"volume"`
	Path     string `json:"path"`
	ReadOnly bool   `json:"read_only,omitempty"`
}

type MountedFileSpec struct {
	Src    string `json:"src"`
	Path   string `json:"path"`
	Mode   string `json:"mode,omitempty"`
	Digest string `json:"digest"`
}

// SandboxSpec is a compiled sandbox.
type SandboxSpec struct {
	Image string `json:"image"`
	SandboxSettings
	Env          map[string]EnvSpec `json:"env,omitempty"`
	EnvFrom      []Ref              `json:"env_from,omitempty"`
	Credentials  []CredentialSpec   `json:"credentials,omitempty"`
	VolumeMounts []VolumeMountSpec  `json:"volume_mounts,omitempty"`
	MountedFiles []MountedFileSpec  `json:"mounted_files,omitempty"`
	// Args, set only without a Command, replaces the image's CMD under
	// its ENTRYPOINT; an entrypoint is folded into Command.
	Args    *[]string    `json:"args,omitempty"`
	S3Mount *S3MountSpec `json:"s3_mount,omitempty"`
}

// S3MountSpec is a compiled S3 mount: its credentials by reference.
type S3MountSpec struct {
	Bucket      string `json:"bucket"`
	Prefix      string `json:"prefix,omitempty"`
	MountPath   string `json:"mount_path"`
	ReadOnly    bool   `json:"read_only,omitempty"`
	Credentials *Ref   `json:"credentials,omitempty"`
}

// SourceSpec is a function's source with the digest of its tree.
type SourceSpec struct {
	Paths   []string `json:"paths"`
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
	Digest  string   `json:"digest"`
}

// FunctionSpec is a compiled function.
type FunctionSpec struct {
	Image  string     `json:"image"`
	Source SourceSpec `json:"source"`
	FunctionSettings
	Env          map[string]EnvSpec `json:"env,omitempty"`
	EnvFrom      []Ref              `json:"env_from,omitempty"`
	VolumeMounts []VolumeMountSpec  `json:"volume_mounts,omitempty"`
	Credentials  []CredentialSpec   `json:"credentials,omitempty"`
	MountedFiles []MountedFileSpec  `json:"mounted_files,omitempty"`
	S3Mount      *S3MountSpec       `json:"s3_mount,omitempty"`
}

// EvaluationSpec is a compiled evaluation.
type EvaluationSpec struct {
	Dataset Ref          `json:"dataset"`
	Task    *Ref         `json:"task,omitempty"`
	Scorers []ScorerSpec `json:"scorers"`
	Suite   *Ref         `json:"suite,omitempty"`
	EvaluationSettings
}

// ScorerSpec is a compiled scorer: as Scorer, with references resolved.
type ScorerSpec struct {
	BuiltinScorers
	LLMJudge *LLMJudgeSpec `json:"llm_judge,omitempty"`
	Function *Ref          `json:"function,omitempty"`
	ScorerSettings
}

// LLMJudgeSpec is a compiled LLM judge.
type LLMJudgeSpec struct {
	JudgeSettings
	APIKey *Ref `json:"api_key,omitempty"`
}
