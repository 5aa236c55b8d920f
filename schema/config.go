package schema

import (
	"bytes"
	"encoding/json"
)

// The types in this file mirror the CUE definitions field for field (a test
// keeps them in step). They are what a validated configuration decodes into,
// in either language; references to other resources arrive as copies of the
// resource carrying its address in ID ("$id").

// Config is one project (#Config).
type Config struct {
	Project       string                   `json:"project"`
	Images        map[string]*Image        `json:"images,omitempty"`
	Secrets       map[string]*Secret       `json:"secrets,omitempty"`
	Volumes       map[string]*Volume       `json:"volumes,omitempty"`
	Datasets      map[string]*Dataset      `json:"datasets,omitempty"`
	Suites        map[string]*Suite        `json:"suites,omitempty"`
	Sandboxes     map[string]*Sandbox      `json:"sandboxes,omitempty"`
	Functions     map[string]*Function     `json:"functions,omitempty"`
	Containers    map[string]*Container    `json:"containers,omitempty"`
	ScalingGroups map[string]*ScalingGroup `json:"scaling_groups,omitempty"`
	Trainings     map[string]*Training     `json:"trainings,omitempty"`
	Evaluations   map[string]*Evaluation   `json:"evaluations,omitempty"`
	Data          *Data                    `json:"data,omitempty"`

	// Moved, Removed and Imports are the lifecycle declarations (#Moved,
	// #Import): they change how the plan treats what the service has.
	Moved   []Move   `json:"moved,omitempty"`
	Removed []string `json:"removed,omitempty"`
	Imports []Import `json:"imports,omitempty"`

	// Outputs are the project's output values (#Output), by name.
	Outputs map[string]*ConfigOutput `json:"outputs,omitempty"`
}

// Data are the data sources of a project (#Data), by kind and name.
type Data struct {
	Volumes   map[string]*DataVolume   `json:"volumes,omitempty"`
	Datasets  map[string]*DataDataset  `json:"datasets,omitempty"`
	Functions map[string]*DataFunction `json:"functions,omitempty"`
	Secrets   map[string]*DataSecret   `json:"secrets,omitempty"`
}

// DataVolume is a volume the service has (#DataVolume).
type DataVolume struct {
	ID   string `json:"$id,omitempty"`
	Name string `json:"name"`
}

// DataDataset is a dataset the service has (#DataDataset).
type DataDataset struct {
	ID       string `json:"$id,omitempty"`
	Name     string `json:"name"`
	Revision int64  `json:"revision,omitempty"`
}

// DataFunction is a function the service has (#DataFunction).
type DataFunction struct {
	ID      string `json:"$id,omitempty"`
	Name    string `json:"name"`
	Version int64  `json:"version,omitempty"`
}

// DataSecret is a secret the service has (#DataSecret).
type DataSecret struct {
	ID   string `json:"$id,omitempty"`
	Name string `json:"name"`
}

// Image is an image recipe (#Image).
type Image struct {
	ID             string     `json:"$id,omitempty"`
	From           *ImageFrom `json:"from,omitempty"`
	FromDockerfile string     `json:"from_dockerfile,omitempty"`
	Steps          []Step     `json:"steps,omitempty"`
	Entrypoint     []string   `json:"entrypoint,omitempty"`
	Cmd            []string   `json:"cmd,omitempty"`
	User           string     `json:"user,omitempty"`
	Platform       string     `json:"platform,omitempty"`
	// Extra holds the fields of the schema that have no Go field; the
	// compiler carries them into the spec as they are.
	Extra Extra `json:"-"`
}

// ImageFrom is a registry reference or another image.
type ImageFrom struct {
	Ref   string
	Image *Image
}

func (f ImageFrom) MarshalJSON() ([]byte, error) {
	if f.Image != nil {
		return json.Marshal(f.Image)
	}
	return json.Marshal(f.Ref)
}

func (f *ImageFrom) UnmarshalJSON(b []byte) error {
	if isJSONString(b) {
		return json.Unmarshal(b, &f.Ref)
	}
	f.Image = new(Image)
	return json.Unmarshal(b, f.Image)
}

// Step is one build step (#Step); exactly one field is set. Digest fields
// are never in a configuration: the compiler fills them with the content
// hash of the local files the step reads.
type Step struct {
	Apt             *PackagesStep `json:"apt,omitempty"`
	Pip             *PipStep      `json:"pip,omitempty"`
	PipRequirements *FileStep     `json:"pip_requirements,omitempty"`
	Run             *CommandsStep `json:"run,omitempty"`
	Copy            *CopyStep     `json:"copy,omitempty"`
	Env             *EnvStep      `json:"env,omitempty"`
	Workdir         *PathStep     `json:"workdir,omitempty"`
	Dockerfile      *CommandsStep `json:"dockerfile,omitempty"`
}

// StepKinds lists the step kinds in schema order.
var StepKinds = []string{"apt", "pip", "pip_requirements", "run", "copy", "env", "workdir", "dockerfile"}

// Kind names the step's kind ("apt", "copy", ...), or "" when none is set.
func (s Step) Kind() string {
	switch {
	case s.Apt != nil:
		return "apt"
	case s.Pip != nil:
		return "pip"
	case s.PipRequirements != nil:
		return "pip_requirements"
	case s.Run != nil:
		return "run"
	case s.Copy != nil:
		return "copy"
	case s.Env != nil:
		return "env"
	case s.Workdir != nil:
		return "workdir"
	case s.Dockerfile != nil:
		return "dockerfile"
	}
	return ""
}

// Kinds lists every step kind that is set, for the exactly-one check.
func (s Step) Kinds() []string {
	var ks []string
	for _, k := range []struct {
		name string
		set  bool
	}{
		{"apt", s.Apt != nil}, {"pip", s.Pip != nil}, {"pip_requirements", s.PipRequirements != nil},
		{"run", s.Run != nil}, {"copy", s.Copy != nil}, {"env", s.Env != nil},
		{"workdir", s.Workdir != nil}, {"dockerfile", s.Dockerfile != nil},
	} {
		if k.set {
			ks = append(ks, k.name)
		}
	}
	return ks
}

type PackagesStep struct {
	Packages []string `json:"packages"`
}

type PipStep struct {
	Packages       []string `json:"packages"`
	IndexURL       string   `json:"index_url,omitempty"`
	ExtraIndexURLs []string `json:"extra_index_urls,omitempty"`
}

type FileStep struct {
	File   string `json:"file"`
	Digest string `json:"digest,omitempty"`
}

type CommandsStep struct {
	Commands []string `json:"commands"`
}

type CopyStep struct {
	Src    string `json:"src"`
	Dst    string `json:"dst"`
	Mode   string `json:"mode,omitempty"`
	Digest string `json:"digest,omitempty"`
}

type EnvStep struct {
	Vars map[string]string `json:"vars"`
}

type PathStep struct {
	Path string `json:"path"`
}

// Secret says where a secret value comes from (#Secret).
type Secret struct {
	ID              string             `json:"$id,omitempty"`
	FromEnv         string             `json:"from_env,omitempty"`
	FromEnvFile     *EnvFileSource     `json:"from_env_file,omitempty"`
	FromService     string             `json:"from_service,omitempty"`
	FromIntegration *IntegrationSource `json:"from_integration,omitempty"`
	FromStore       *StoreSource       `json:"from_store,omitempty"`
	EnvVar          string             `json:"env_var,omitempty"`
	// Name is set only where a data source is used (a copy of
	// #DataSecret): the resource the service has, by name.
	Name string `json:"name,omitempty"`
	// Lifecycle is how cc treats the resource beyond its spec; it is
	// in no spec or hash.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Extra holds the fields of the schema that have no Go field; the
	// compiler carries them into the spec as they are.
	Extra Extra `json:"-"`
}

// Sources lists the from_* fields that are set, for the exactly-one check.
func (s *Secret) Sources() []string {
	var out []string
	if s.FromEnv != "" {
		out = append(out, "from_env")
	}
	if s.FromEnvFile != nil {
		out = append(out, "from_env_file")
	}
	if s.FromService != "" {
		out = append(out, "from_service")
	}
	if s.FromIntegration != nil {
		out = append(out, "from_integration")
	}
	if s.FromStore != nil {
		out = append(out, "from_store")
	}
	return out
}

// SecretSources lists the source fields in schema order.
var SecretSources = []string{"from_env", "from_env_file", "from_service", "from_integration", "from_store"}

type EnvFileSource struct {
	Path string   `json:"path"`
	Keys []string `json:"keys,omitempty"`
}

type IntegrationSource struct {
	Name string   `json:"name"`
	Keys []string `json:"keys,omitempty"`
}

type StoreSource struct {
	Store string `json:"store"`
	Name  string `json:"name"`
	Field string `json:"field,omitempty"`
}

// Credential scopes a secret to host patterns (#Credential).
type Credential struct {
	Hosts  []string `json:"hosts"`
	Secret *Secret  `json:"secret"`
}

// EnvValue is a literal string or a secret reference (#EnvValue).
type EnvValue struct {
	Value  string
	Secret *Secret
}

func (e EnvValue) MarshalJSON() ([]byte, error) {
	if e.Secret != nil {
		return json.Marshal(e.Secret)
	}
	return json.Marshal(e.Value)
}

func (e *EnvValue) UnmarshalJSON(b []byte) error {
	if isJSONString(b) {
		return json.Unmarshal(b, &e.Value)
	}
	e.Secret = new(Secret)
	return json.Unmarshal(b, e.Secret)
}

// Volume is persistent storage (#Volume).
type Volume struct {
	ID string `json:"$id,omitempty"`
	// Name is set only where a data source is used (a copy of
	// #DataVolume): the resource the service has, by name.
	Name string `json:"name,omitempty"`
	VolumeSettings
	// Lifecycle is how cc treats the resource beyond its spec; it is
	// in no spec or hash.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Extra holds the fields of the schema that have no Go field; the
	// compiler carries them into the spec as they are.
	Extra Extra `json:"-"`
}

// VolumeSettings are the fields a volume's config and spec share.
type VolumeSettings struct {
	Size string `json:"size"`
}

// Dataset is tabular data (#Dataset).
type Dataset struct {
	ID    string   `json:"$id,omitempty"`
	Files []string `json:"files,omitempty"`
	// Rows and Columns are an inline table (issue 11); Columns compiles
	// to Rows.
	Rows    []map[string]Scalar `json:"rows,omitempty"`
	Columns map[string][]Scalar `json:"columns,omitempty"`
	// Name is the dataset's platform name; where a data source is used (a
	// copy of #DataDataset), it and Revision name the resource the service
	// has.
	Name     string `json:"name,omitempty"`
	Revision int64  `json:"revision,omitempty"`
	DatasetSettings
	// Lifecycle is how cc treats the resource beyond its spec; it is
	// in no spec or hash.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Extra holds the fields of the schema that have no Go field; the
	// compiler carries them into the spec as they are.
	Extra Extra `json:"-"`
}

// DatasetSettings are the fields a dataset's config and spec share. The
// spec's format is never empty: the compiler fills it from the files'
// extension.
type DatasetSettings struct {
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty"`
}

// Resources are compute requests and limits (#Resources).
type Resources struct {
	Requests *ResourceList `json:"requests,omitempty"`
	Limits   *ResourceList `json:"limits,omitempty"`
	GPU      *GPU          `json:"gpu,omitempty"`
}

type ResourceList struct {
	CPU    string `json:"cpu,omitempty"`
	Memory string `json:"memory,omitempty"`
}

type GPU struct {
	Count int    `json:"count"`
	Type  string `json:"type,omitempty"`
}

// Network configures ingress and egress (#Network).
type Network struct {
	IngressMode  string   `json:"ingress_mode,omitempty"`
	ExposedPorts []int    `json:"exposed_ports,omitempty"`
	EgressMode   string   `json:"egress_mode,omitempty"`
	EgressAllow  []string `json:"egress_allow,omitempty"`
}

type VolumeMount struct {
	Volume   *Volume `json:"volume"`
	Path     string  `json:"path"`
	ReadOnly bool    `json:"read_only,omitempty"`
}

type MountedFile struct {
	Src  string `json:"src"`
	Path string `json:"path"`
	Mode string `json:"mode,omitempty"`
}

// Snapshot is a file-system snapshot mount (#Snapshot).
type Snapshot struct {
	MountPath   string `json:"mount_path"`
	Size        string `json:"size,omitempty"`
	RestoreFrom string `json:"restore_from,omitempty"`
}

// Sandbox is a long-lived container (#Sandbox).
type Sandbox struct {
	Image *Image `json:"image"`
	SandboxSettings
	Env          map[string]EnvValue `json:"env,omitempty"`
	EnvFrom      []*Secret           `json:"env_from,omitempty"`
	Credentials  []Credential        `json:"credentials,omitempty"`
	VolumeMounts []VolumeMount       `json:"volume_mounts,omitempty"`
	MountedFiles []MountedFile       `json:"mounted_files,omitempty"`
	// Process is the process as the image's ENTRYPOINT and CMD
	// replaced; the compiler folds it into the spec's Command and Args.
	Process
	S3Mount *S3Mount `json:"s3_mount,omitempty"`
	// Lifecycle is how cc treats the resource beyond its spec; it is
	// in no spec or hash.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Extra holds the fields of the schema that have no Go field; the
	// compiler carries them into the spec as they are.
	Extra Extra `json:"-"`
}

// S3Mount mounts an S3 bucket (#S3Mount).
type S3Mount struct {
	Bucket      string  `json:"bucket"`
	Prefix      string  `json:"prefix,omitempty"`
	MountPath   string  `json:"mount_path"`
	ReadOnly    bool    `json:"read_only,omitempty"`
	Credentials *Secret `json:"credentials,omitempty"`
}

// SandboxSettings are the fields a sandbox's config and spec share: plain
// values the compiler copies as they are.
type SandboxSettings struct {
	Command     []string          `json:"command,omitempty"`
	Resources   *Resources        `json:"resources,omitempty"`
	Network     *Network          `json:"network,omitempty"`
	Snapshot    *Snapshot         `json:"snapshot,omitempty"`
	Lifetime    string            `json:"lifetime,omitempty"`
	Tags        []string          `json:"tags,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
	Identity    bool              `json:"identity,omitempty"`
}

// Source is a function's code (#Source).
type Source struct {
	Paths   []string `json:"paths"`
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// Scaling bounds a function's replicas (#Scaling).
type Scaling struct {
	MinReplicas int `json:"min_replicas"`
	MaxReplicas int `json:"max_replicas"`
	Concurrency int `json:"concurrency"`
}

// Function is a deployable function (#Function).
type Function struct {
	ID     string `json:"$id,omitempty"`
	Image  *Image `json:"image"`
	Source Source `json:"source"`
	// Name and Version is set only where a data source is used (a copy of
	// #DataFunction): the resource the service has, by name.
	Name    string `json:"name,omitempty"`
	Version int64  `json:"version,omitempty"`
	FunctionSettings
	Env          map[string]EnvValue `json:"env,omitempty"`
	EnvFrom      []*Secret           `json:"env_from,omitempty"`
	VolumeMounts []VolumeMount       `json:"volume_mounts,omitempty"`
	Credentials  []Credential        `json:"credentials,omitempty"`
	MountedFiles []MountedFile       `json:"mounted_files,omitempty"`
	S3Mount      *S3Mount            `json:"s3_mount,omitempty"`
	// Lifecycle is how cc treats the resource beyond its spec; it is
	// in no spec or hash.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Extra holds the fields of the schema that have no Go field; the
	// compiler carries them into the spec as they are.
	Extra Extra `json:"-"`
}

// FunctionSettings are the fields a function's config and spec share.
type FunctionSettings struct {
	Handler string `json:"handler"`
	// Methods are a function class's methods (#Function.methods).
	Methods   []string   `json:"methods,omitempty"`
	Resources *Resources `json:"resources,omitempty"`
	Network   *Network   `json:"network,omitempty"`
	Timeout   string     `json:"timeout"`
	Retries   int        `json:"retries"`
	Scaling   *Scaling   `json:"scaling,omitempty"`
	// VersionTrigger is free text whose change gives the function a new
	// version and nothing else (#Function.version_trigger).
	VersionTrigger string `json:"version_trigger,omitempty"`
}

// Evaluation scores a task over a dataset (#Evaluation).
type Evaluation struct {
	Dataset *Dataset  `json:"dataset"`
	Task    *Function `json:"task,omitempty"`
	Scorers []Scorer  `json:"scorers"`
	Suite   *SuiteRef `json:"suite,omitempty"`
	EvaluationSettings
	// Lifecycle is how cc treats the resource beyond its spec; it is
	// in no spec or hash.
	Lifecycle *Lifecycle `json:"lifecycle,omitempty"`
	// Extra holds the fields of the schema that have no Go field; the
	// compiler carries them into the spec as they are.
	Extra Extra `json:"-"`
}

// EvaluationSettings are the fields an evaluation's config and spec share.
type EvaluationSettings struct {
	Title        string            `json:"title,omitempty"`
	ExternalTask *ExternalTask     `json:"external_task,omitempty"`
	Metadata     map[string]string `json:"metadata,omitempty"`
}

// ExternalTask is a function deployed outside this project
// (#ExternalFunction), a task's or a scorer's.
type ExternalTask struct {
	Name      string `json:"name,omitempty"`
	VersionID string `json:"version_id,omitempty"`
}

// Scorer is one scorer (#Scorer); exactly one field is set.
type Scorer struct {
	BuiltinScorers
	LLMJudge *LLMJudge `json:"llm_judge,omitempty"`
	Function *Function `json:"function,omitempty"`
	ScorerSettings
}

// ScorerSettings are the fields of a scorer that its config and spec
// share beside the built-ins: a function deployed elsewhere, and the
// named scores a function scorer returns.
type ScorerSettings struct {
	ExternalFunction *ExternalTask `json:"external_function,omitempty"`
	Scores           []string      `json:"scores,omitempty"`
}

// BuiltinScorers are the built-in scorer kinds, the same in a scorer's
// config and spec.
type BuiltinScorers struct {
	ExactMatch          *ExactMatch          `json:"exact_match,omitempty"`
	Levenshtein         *Levenshtein         `json:"levenshtein,omitempty"`
	RegexMatch          *RegexMatch          `json:"regex_match,omitempty"`
	Contains            *Contains            `json:"contains,omitempty"`
	NumericClose        *NumericClose        `json:"numeric_close,omitempty"`
	StringSimilarity    *StringSimilarity    `json:"string_similarity,omitempty"`
	JSONValid           *JSONValid           `json:"json_valid,omitempty"`
	JSONMatch           *JSONMatch           `json:"json_match,omitempty"`
	EmbeddingSimilarity *EmbeddingSimilarity `json:"embedding_similarity,omitempty"`
}

// ScorerKinds lists the scorer kinds in schema order.
var ScorerKinds = []string{"exact_match", "levenshtein", "regex_match", "contains", "numeric_close",
	"string_similarity", "json_valid", "json_match", "embedding_similarity", "llm_judge", "function",
	"external_function"}

// Kinds lists every scorer kind that is set, for the exactly-one check.
func (s Scorer) Kinds() []string {
	var ks []string
	for i, set := range []bool{s.ExactMatch != nil, s.Levenshtein != nil, s.RegexMatch != nil,
		s.Contains != nil, s.NumericClose != nil, s.StringSimilarity != nil, s.JSONValid != nil,
		s.JSONMatch != nil, s.EmbeddingSimilarity != nil, s.LLMJudge != nil, s.Function != nil,
		s.ExternalFunction != nil} {
		if set {
			ks = append(ks, ScorerKinds[i])
		}
	}
	return ks
}

type ExactMatch struct {
	Inputs             []string `json:"inputs"`
	CaseInsensitive    bool     `json:"case_insensitive"`
	Trim               bool     `json:"trim"`
	CollapseWhitespace bool     `json:"collapse_whitespace"`
}

type Levenshtein struct {
	Inputs          []string `json:"inputs"`
	CaseInsensitive bool     `json:"case_insensitive"`
}

type RegexMatch struct {
	Inputs    []string `json:"inputs"`
	Pattern   string   `json:"pattern"`
	FullMatch bool     `json:"full_match"`
}

type Contains struct {
	Inputs          []string `json:"inputs"`
	Mode            string   `json:"mode"`
	CaseInsensitive bool     `json:"case_insensitive"`
}

type NumericClose struct {
	Inputs []string `json:"inputs"`
	AbsTol *Number  `json:"abs_tol,omitempty"`
	RelTol *Number  `json:"rel_tol,omitempty"`
	Graded bool     `json:"graded"`
}

type StringSimilarity struct {
	Inputs []string `json:"inputs"`
	Method string   `json:"method"`
}

type JSONValid struct {
	Inputs []string `json:"inputs"`
}

type JSONMatch struct {
	Inputs []string `json:"inputs"`
	Paths  []string `json:"paths,omitempty"`
}

type EmbeddingSimilarity struct {
	Inputs []string `json:"inputs"`
	Model  string   `json:"model,omitempty"`
}

// LLMJudge grades with a model (#LLMJudge).
type LLMJudge struct {
	JudgeSettings
	APIKey *Secret `json:"api_key,omitempty"`
}

// JudgeSettings are the fields an LLM judge's config and spec share.
type JudgeSettings struct {
	Name         string            `json:"name,omitempty"`
	Model        string            `json:"model"`
	Instructions string            `json:"instructions"`
	Inputs       []string          `json:"inputs"`
	Prompt       string            `json:"prompt,omitempty"`
	Parse        string            `json:"parse,omitempty"`
	Fields       []JudgeField      `json:"fields"`
	BaseURL      string            `json:"base_url,omitempty"`
	Completion   map[string]Scalar `json:"completion,omitempty"`
}

// JudgeField is one field of a judge's reply (#JudgeField).
type JudgeField struct {
	Name        string       `json:"name"`
	Type        string       `json:"type"`
	Range       []Number     `json:"range,omitempty"`
	Description string       `json:"description,omitempty"`
	Values      []string     `json:"values,omitempty"`
	Items       *JudgeType   `json:"items,omitempty"`
	Fields      []JudgeField `json:"fields,omitempty"`
}

// JudgeType is the type of a list field's items (#JudgeType).
type JudgeType struct {
	Type   string       `json:"type"`
	Range  []Number     `json:"range,omitempty"`
	Values []string     `json:"values,omitempty"`
	Items  *JudgeType   `json:"items,omitempty"`
	Fields []JudgeField `json:"fields,omitempty"`
}

// Extra holds a config's fields that the schema declares and the Go type
// does not, by name, as plain data (maps, lists, strings, bools and
// numbers); nil when there are none.
type Extra map[string]any

// Number keeps a JSON number exactly as written after canonicalization.
type Number = json.Number

// Scalar is a JSON string, number or boolean kept verbatim.
type Scalar = json.RawMessage

func isJSONString(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '"'
}
