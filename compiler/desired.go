package compiler

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// builder compiles a decoded configuration into the Desired state.
type builder struct {
	p       *project
	ld      *loaded
	lock    *schema.Lock
	offline bool
	fs      *fileHasher
	fsErr   error
	cfg     *schema.Config
	diags   diag.Diagnostics

	images    map[string]*imageEntry // by hash
	imageHash map[string]string      // named image → hash
	secrets   map[string]*schema.Resource
	datasets  map[string]*schema.Resource
	functions map[string]*schema.Resource
	out       []*schema.Resource
	floating  map[string]bool
	content   contentIndex

	// mu guards the maps above and diags and out while functions and
	// sandboxes compile in parallel.
	mu sync.Mutex
}

type imageEntry struct {
	hash      string
	spec      []byte
	sensitive []string // JSON pointers into spec
	names     []string
	deps      []string // hashes of base images
	inputs    []schema.Input
	rng       *diag.Range
	ranges    map[string]*diag.Range
	path      string // config path of the declaration rng points at
}

func newBuilder(p *project, ld *loaded, lock *schema.Lock, offline bool) *builder {
	b := &builder{
		p: p, ld: ld, lock: lock, offline: offline,
		images: map[string]*imageEntry{}, imageHash: map[string]string{},
		secrets: map[string]*schema.Resource{}, datasets: map[string]*schema.Resource{},
		functions: map[string]*schema.Resource{}, floating: map[string]bool{},
	}
	b.fs, b.fsErr = newFileHasher(p.root)
	if b.fs != nil {
		b.fs.track = p.track
	}
	return b
}

func (b *builder) errorf(path []string, format string, args ...any) *diag.Diagnostic {
	d := diag.Errorf(b.ld.loc.at(path), format, args...)
	b.mu.Lock()
	b.diags = append(b.diags, d)
	b.mu.Unlock()
	return d
}

// unlocked lists floating base references cc.lock does not pin.
func (b *builder) unlocked() []string { return sortedKeys(b.floating) }

func (b *builder) build(cfg *schema.Config) (*schema.Desired, diag.Diagnostics) {
	if b.fsErr != nil {
		return nil, diag.Diagnostics{diag.Errorf(&diag.Range{File: b.p.display(filepath.Join(b.p.root, ".ccignore"))}, "%v", b.fsErr)}
	}
	b.cfg = cfg
	tr := b.p.track
	// each compiles a collection's resources in order, saying so, until
	// the compilation is stopped.
	each := func(kind schema.Kind, names []string, f func(string)) {
		for _, name := range names {
			if tr.isStopped() {
				return
			}
			tr.setf("compiling %s.%s", kind, name)
			f(name)
		}
	}
	each(schema.KindImage, sortedKeys(cfg.Images), func(name string) { b.namedImage(name) })
	each(schema.KindSecret, sortedKeys(cfg.Secrets), func(name string) { b.secret(name) })
	each(schema.KindVolume, sortedKeys(cfg.Volumes), func(name string) {
		v := cfg.Volumes[name]
		b.emit(schema.KindVolume, name, schema.VolumeSpec{Size: v.Size}, nil, nil)
	})
	each(schema.KindDataset, sortedKeys(cfg.Datasets), func(name string) { b.dataset(name) })
	// Functions and sandboxes are most of a large project and depend only
	// on what is compiled above: compile them in parallel.
	tr.set("compiling functions and sandboxes")
	parallel(sortedKeys(cfg.Functions), func(name string) {
		if !tr.isStopped() {
			b.function(name)
		}
	})
	parallel(sortedKeys(cfg.Sandboxes), func(name string) {
		if !tr.isStopped() {
			b.sandbox(name)
		}
	})
	each(schema.KindEvaluation, sortedKeys(cfg.Evaluations), b.evaluation)
	if b.diags.HasErrors() {
		return nil, b.diags
	}
	d := &schema.Desired{FormatVersion: schema.FormatVersion, Project: cfg.Project, Root: b.p.root, Trees: b.fs.entries}
	addr := b.imageAddresses()
	for _, e := range b.images {
		names := append([]string(nil), e.names...)
		sort.Strings(names)
		r := schema.Resource{Kind: schema.KindImage, Hash: e.hash, Spec: e.spec, Sensitive: e.sensitive, Inputs: e.inputs, Range: e.rng, Ranges: e.ranges}
		r.Address = addr[e.hash]
		r.Name = strings.TrimPrefix(r.Address, "image.")
		if len(names) > 1 {
			r.Aliases = names[1:]
		}
		for _, h := range e.deps {
			r.DependsOn = append(r.DependsOn, addr[h])
		}
		d.Resources = append(d.Resources, r)
	}
	for _, r := range b.out {
		for i, dep := range r.DependsOn {
			if h, ok := strings.CutPrefix(dep, "#"); ok {
				r.DependsOn[i] = addr[h]
			}
		}
		d.Resources = append(d.Resources, *r)
	}
	for i := range d.Resources {
		d.Resources[i].DependsOn = uniqSorted(d.Resources[i].DependsOn)
	}
	sort.Slice(d.Resources, func(i, j int) bool { return d.Resources[i].Address < d.Resources[j].Address })
	if len(d.Trees) == 0 {
		d.Trees = nil
	}
	return d, b.diags
}

// imageAddresses names each image: image.NAME by its first name, or
// image.HASHPREFIX when it was never named.
func (b *builder) imageAddresses() map[string]string {
	addr := map[string]string{}
	for h, e := range b.images {
		if len(e.names) > 0 {
			names := append([]string(nil), e.names...)
			sort.Strings(names)
			addr[h] = "image." + names[0]
		} else {
			addr[h] = "image." + strings.TrimPrefix(h, "sha256:")[:12]
		}
	}
	return addr
}

// emit records a resource (not an image) with its canonical spec.
func (b *builder) emit(kind schema.Kind, name string, spec any, deps []string, inputs []schema.Input) *schema.Resource {
	hash, canon, err := schema.HashOf(spec)
	if err != nil {
		b.errorf([]string{kind.Plural(), name}, "internal error: %v", err)
		return nil
	}
	path := []string{kind.Plural(), name}
	sens := b.sensitiveIn(kind, path, canon)
	if len(sens) > 0 {
		// The hash is over the spec with each sensitive value replaced by a
		// placeholder: it reveals nothing of them (issue 8 item 8). The
		// service tells a changed sensitive value by its own fingerprints.
		if hash, err = schema.RedactedHash(canon, sens); err != nil {
			b.errorf(path, "internal error: %v", err)
			return nil
		}
	}
	r := &schema.Resource{
		Address: schema.Address(kind, name), Kind: kind, Name: name, Hash: hash, Spec: canon,
		DependsOn: deps, Inputs: inputs, Range: b.ld.loc.key(path), Sensitive: sens,
	}
	b.mu.Lock()
	b.out = append(b.out, r)
	b.mu.Unlock()
	return r
}

// sensitiveIn returns JSON pointers into the canonical spec canon of the
// resource (or image) of kind declared at path for the sensitive values
// under path. A value reached through a reference (an image by hash, a
// secret, volume, dataset or function by Ref) is the referred resource's,
// not this one's: the spec holds the reference, not the value. A position
// the spec does not have as such (a list the compiler sorts, a path it
// rewrites) gives its nearest enclosing one, so nothing derived from a
// sensitive value is ever left unmarked.
func (b *builder) sensitiveIn(kind schema.Kind, path []string, canon []byte) []string {
	var v any
	seen := map[string]bool{}
	var out []string
	for _, sp := range b.ld.sensitive {
		if len(sp) < len(path) || pathKey(sp[:len(path)]) != pathKey(path) {
			continue
		}
		rel, ok := specPath(kind, sp[len(path):])
		if !ok {
			continue
		}
		if v == nil {
			v = decodeSpec(canon)
		}
		for len(rel) > 0 {
			if _, ok := schema.ValueAt(v, schema.JoinPointer(rel)); ok {
				break
			}
			rel = rel[:len(rel)-1]
		}
		ptr := schema.JoinPointer(rel)
		if !seen[ptr] {
			seen[ptr] = true
			out = append(out, ptr)
		}
	}
	sort.Strings(out)
	// A pointer inside another one adds nothing.
	kept := out[:0]
	for _, p := range out {
		if n := len(kept); n > 0 && (kept[n-1] == "/" || strings.HasPrefix(p, kept[n-1]+"/")) {
			continue
		}
		kept = append(kept, p)
	}
	if len(kept) == 0 {
		return nil
	}
	return kept
}

// specPath maps a config path under a resource of kind to the path of the
// same value in its spec; false when the spec holds a reference there.
func specPath(kind schema.Kind, rel []string) ([]string, bool) {
	if len(rel) == 0 {
		return rel, true
	}
	at := func(i int, s string) bool { return len(rel) > i && rel[i] == s }
	switch kind {
	case schema.KindImage:
		switch {
		case at(0, "from") && len(rel) > 1:
			return nil, false // an image of its own, hashed in
		case at(0, "from_dockerfile"):
			return []string{"from_dockerfile", "path"}, true
		}
	case schema.KindSandbox, schema.KindFunction:
		switch {
		case at(0, "image"), at(0, "env_from"):
			return nil, false
		case at(0, "env") && len(rel) > 2:
			return nil, false // a secret reference
		case at(0, "credentials") && at(2, "secret"), at(0, "volume_mounts") && at(2, "volume"):
			return nil, false
		}
	case schema.KindEvaluation:
		switch {
		case at(0, "dataset"), at(0, "task"):
			return nil, false
		case at(0, "scorers") && (at(2, "function") || at(2, "llm_judge") && at(3, "api_key")):
			return nil, false
		}
	case schema.KindDataset:
		if at(0, "files") && len(rel) == 2 {
			return append(rel, "path"), true
		}
	case schema.KindSecret:
		if (at(0, "from_env_file") || at(0, "from_integration")) && at(1, "keys") {
			return rel[:2], true // sorted: the whole list
		}
	}
	return rel, true
}

func decodeSpec(b []byte) any {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return map[string]any{}
	}
	return v
}

// ---- images ----------------------------------------------------------

func (b *builder) namedImage(name string) string {
	if h, ok := b.imageHash[name]; ok {
		return h
	}
	b.imageHash[name] = "" // in progress: a cycle resolves to no hash
	img := b.cfg.Images[name]
	h := b.image(img, []string{"images", name}, name)
	b.imageHash[name] = h
	return h
}

// imageRef compiles the image at a reference position: a named image by
// its name, an inline one in place.
func (b *builder) imageRef(img *schema.Image, path []string) string {
	if img == nil {
		return ""
	}
	if name, ok := strings.CutPrefix(img.ID, "image."); ok {
		if b.cfg.Images[name] == nil {
			b.errorf(path, "reference to undefined image %q", name)
			return ""
		}
		return b.namedImage(name)
	}
	return b.image(img, path, "")
}

func (b *builder) image(img *schema.Image, path []string, name string) string {
	spec := &schema.ImageSpec{
		Entrypoint: img.Entrypoint, Cmd: img.Cmd, User: img.User, Platform: img.Platform,
	}
	var deps []string
	var inputs []schema.Input
	ranges := map[string]*diag.Range{}
	if f := img.From; f != nil {
		if f.Image != nil {
			h := b.imageRef(f.Image, appendPath(path, "from"))
			if h == "" {
				return ""
			}
			spec.FromImage = h
			deps = append(deps, h)
		} else {
			spec.From = b.base(f.Ref, appendPath(path, "from"))
		}
		ranges["/from"] = b.ld.loc.at(appendPath(path, "from"))
	}
	if img.FromDockerfile != "" {
		p := appendPath(path, "from_dockerfile")
		rel := cleanRel(img.FromDockerfile)
		if s := b.inputFile(rel, p, "Dockerfile"); s.digest != "" {
			// The build context is the Dockerfile's directory: what its
			// COPY and ADD read must count too.
			ctxDir := filepath.ToSlash(filepath.Dir(rel))
			t := b.fs.tree([]string{ctxDir}, ctxDir, nil, nil)
			if t.err != nil {
				b.fileError(t.err, ctxDir, p, "Dockerfile build context")
			} else {
				spec.FromDockerfile = &schema.DockerfileInput{Path: rel, Digest: s.digest, Context: t.digest}
				inputs = append(inputs, schema.Input{Path: rel, Digest: s.digest},
					schema.Input{Path: ctxDir, Digest: t.digest, Tree: true})
			}
		}
		ranges["/from_dockerfile"] = b.ld.loc.at(p)
	}
	for i, st := range img.Steps {
		sp := appendPath(path, "steps", strconv.Itoa(i))
		ptr := "/steps/" + strconv.Itoa(i)
		ranges[ptr] = b.ld.loc.at(sp)
		switch {
		case st.Copy != nil:
			c := *st.Copy
			c.Src = cleanRel(c.Src)
			if c.Mode != "" {
				c.Mode = normMode(c.Mode)
			}
			t := b.fs.tree([]string{c.Src}, c.Src, nil, nil)
			if t.err != nil {
				b.fileError(t.err, c.Src, appendPath(sp, "copy", "src"), "copy source")
			} else {
				c.Digest = t.digest
				inputs = append(inputs, schema.Input{Path: c.Src, Digest: t.digest, Tree: true})
			}
			st.Copy = &c
		case st.PipRequirements != nil:
			r := *st.PipRequirements
			r.File = cleanRel(r.File)
			if s := b.inputFile(r.File, appendPath(sp, "pip_requirements", "file"), "requirements file"); s.digest != "" {
				r.Digest = s.digest
				inputs = append(inputs, schema.Input{Path: r.File, Digest: s.digest})
			}
			st.PipRequirements = &r
		}
		spec.Steps = append(spec.Steps, st)
	}
	hash, canon, err := schema.HashOf(spec)
	if err != nil {
		b.errorf(path, "internal error: %v", err)
		return ""
	}
	sens := b.sensitiveIn(schema.KindImage, path, canon)
	if len(sens) > 0 {
		hash, err = sensitiveImageHash(canon, sens, path)
		if err != nil {
			b.errorf(path, "internal error: %v", err)
			return ""
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.diags.HasErrors() {
		return hash
	}
	e := b.images[hash]
	if e == nil {
		e = &imageEntry{hash: hash, spec: canon, sensitive: sens, deps: deps, inputs: inputs, rng: b.ld.loc.key(path), ranges: ranges, path: pathKey(path)}
		b.images[hash] = e
	}
	if name != "" {
		if !contains(e.names, name) {
			e.names = append(e.names, name)
		}
		if len(e.names) == 1 || name < e.names[0] {
			// The image's address is its first name; point at that
			// declaration.
			e.rng, e.ranges = b.ld.loc.key(path), ranges
		}
	} else if len(e.names) == 0 && pathKey(path) < e.path {
		// An unnamed image points at its first use, in path order, so
		// parallel compilation reports the same place every time.
		e.rng, e.ranges, e.path = b.ld.loc.key(path), ranges, pathKey(path)
	}
	return hash
}

// sensitiveImageHash is the hash of an image with sensitive values: the
// sha256 of its spec with each sensitive value replaced by a placeholder,
// a newline and the config path it is declared at (images.NAME, or the
// inline image's place). The hash reveals nothing of the values, and since
// equal placeholder specs need not be equal images, such an image is never
// merged with another declaration: two images that differ only in a
// sensitive value stay two (issue 8 item 8). The path is never secret.
func sensitiveImageHash(canon []byte, sens, path []string) (string, error) {
	red, err := schema.RedactSpec(canon, sens)
	if err != nil {
		return "", err
	}
	return schema.Hash(append(append(red, '\n'), strings.Join(path, ".")...)), nil
}

// base resolves a registry reference through cc.lock.
func (b *builder) base(ref string, path []string) string {
	if strings.Contains(ref, "@sha256:") {
		return ref
	}
	if d, ok := b.lock.Bases[ref]; ok {
		return ref + "@" + d
	}
	b.mu.Lock()
	first := !b.floating[ref]
	b.floating[ref] = true
	b.mu.Unlock()
	if first {
		if b.offline {
			d := b.errorf(path, "base image %s is not in cc.lock, and --offline forbids resolving it", ref)
			d.Detail = "run cc lock to pin it"
		}
	}
	return ref
}

func normMode(m string) string {
	if len(m) == 3 {
		return "0" + m
	}
	return m
}

// ---- secrets, datasets ------------------------------------------------

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
	r = b.emit(schema.KindSecret, name, spec, nil, inputs)
	b.mu.Lock()
	b.secrets[name] = r
	b.mu.Unlock()
	return r
}

// resolve finds the declared resource of kind k at a reference position:
// by the reference's ID, or failing that by equal content. It returns ""
// (after reporting why) when there is none.
func (b *builder) resolve(k schema.Kind, id string, v any, path []string, declared func(string) bool) string {
	if name, ok := strings.CutPrefix(id, string(k)+"."); ok {
		if !declared(name) {
			b.errorf(path, "reference to undefined %s %q", k, name)
			return ""
		}
		return name
	}
	b.mu.Lock()
	if b.content == nil {
		b.content = newContentIndex(b.cfg) // only when some value is not written as a reference
	}
	names := b.content.lookup(k, v)
	b.mu.Unlock()
	switch len(names) {
	case 1:
		return names[0]
	case 0:
		plural := k.Plural()
		d := b.errorf(path, "a %s here must be a declared %s of this project", k, k)
		d.Detail = fmt.Sprintf("declare it and refer to it as %s.NAME (CUE) or %s.NAME (HCL)", plural, k)
	default:
		b.errorf(path, "this %s equals %s.%s and %s.%s; refer to one of them directly", k, k, names[0], k, names[1])
	}
	return ""
}

// secretRef resolves a secret at a reference position.
func (b *builder) secretRef(s *schema.Secret, path []string) (schema.Ref, bool) {
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
	var spec schema.SecretSpec
	b.mu.Lock()
	r := b.secrets[name]
	b.mu.Unlock()
	if r == nil || json.Unmarshal(r.Spec, &spec) != nil {
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

func (b *builder) dataset(name string) *schema.Resource {
	if r, ok := b.datasets[name]; ok {
		return r
	}
	ds := b.cfg.Datasets[name]
	path := []string{"datasets", name}
	spec := schema.DatasetSpec{Format: ds.Format, Description: ds.Description}
	var inputs []schema.Input
	format := ""
	for i, f := range ds.Files {
		fp := appendPath(path, "files", strconv.Itoa(i))
		f = cleanRel(f)
		s := b.inputFile(f, fp, "dataset file")
		if s.digest == "" {
			continue
		}
		spec.Files = append(spec.Files, schema.FileInput{Path: f, Digest: s.digest})
		inputs = append(inputs, schema.Input{Path: f, Digest: s.digest})
		if ds.Format == "" {
			ext := formatOf(f)
			switch {
			case ext == "":
				b.errorf(fp, "dataset file %s: cannot tell its format from its extension; set format (csv, parquet or jsonl)", f)
			case format == "":
				format = ext
			case ext != format:
				b.errorf(fp, "dataset file %s is %s but the files before it are %s; a dataset's files share one format", f, ext, format)
			}
		}
	}
	if spec.Format == "" {
		spec.Format = format
	}
	r := b.emit(schema.KindDataset, name, spec, nil, inputs)
	b.datasets[name] = r
	return r
}

func formatOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".csv":
		return "csv"
	case ".parquet", ".pq":
		return "parquet"
	case ".jsonl", ".ndjson":
		return "jsonl"
	}
	return ""
}

// ---- files --------------------------------------------------------------

// inputFile hashes one local file named at path, reporting problems there.
func (b *builder) inputFile(rel string, path []string, what string) fileSum {
	s := b.fs.file(rel)
	if s.err != nil {
		b.fileError(s.err, rel, path, what)
		return fileSum{}
	}
	return s
}

func (b *builder) fileError(err error, rel string, path []string, what string) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d := b.errorf(path, "%s %s does not exist", what, rel)
		if s := diag.Suggest(filepath.Base(rel), b.fs.siblings(rel)); s != "" {
			d.Summary += fmt.Sprintf("; did you mean %s?", filepath.ToSlash(filepath.Join(filepath.Dir(rel), s)))
		}
	case errors.Is(err, errOutsideRoot):
		d := b.errorf(path, "%s %v", what, err)
		d.Detail = "local inputs must be inside the project root (" + b.p.dir + ")"
	default:
		b.errorf(path, "%s %v", what, err)
	}
}

// ---- sandboxes and functions ------------------------------------------

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

func (b *builder) sandbox(name string) {
	s := b.cfg.Sandboxes[name]
	path := []string{"sandboxes", name}
	var deps []string
	spec := schema.SandboxSpec{
		Command: s.Command, Resources: s.Resources, Network: s.Network, Snapshot: s.Snapshot,
		Lifetime: s.Lifetime, Tags: s.Tags, Annotations: s.Annotations, Identity: s.Identity, Profile: s.Profile,
	}
	if h := b.imageRef(s.Image, appendPath(path, "image")); h != "" {
		spec.Image = h
		deps = append(deps, "#"+h)
	}
	spec.Env = b.envSpec(s.Env, appendPath(path, "env"), &deps)
	spec.EnvFrom = b.secretRefs(s.EnvFrom, appendPath(path, "env_from"), &deps)
	for i, c := range s.Credentials {
		p := appendPath(path, "credentials", strconv.Itoa(i), "secret")
		if ref, ok := b.secretRef(c.Secret, p); ok {
			spec.Credentials = append(spec.Credentials, schema.CredentialSpec{Hosts: c.Hosts, Secret: ref})
			deps = append(deps, ref.Ref)
		}
	}
	spec.VolumeMounts = b.volumeMounts(s.VolumeMounts, appendPath(path, "volume_mounts"), &deps)
	var inputs []schema.Input
	for i, m := range s.MountedFiles {
		p := appendPath(path, "mounted_files", strconv.Itoa(i), "src")
		src := cleanRel(m.Src)
		fs := b.inputFile(src, p, "mounted file")
		mode := m.Mode
		if mode != "" {
			mode = normMode(mode)
		}
		spec.MountedFiles = append(spec.MountedFiles, schema.MountedFileSpec{Src: src, Path: m.Path, Mode: mode, Digest: fs.digest})
		if fs.digest != "" {
			inputs = append(inputs, schema.Input{Path: src, Digest: fs.digest})
		}
	}
	b.emit(schema.KindSandbox, name, spec, deps, inputs)
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
	spec := schema.FunctionSpec{
		Handler: f.Handler, Resources: f.Resources, Timeout: f.Timeout, Retries: f.Retries, Scaling: f.Scaling,
	}
	if h := b.imageRef(f.Image, appendPath(path, "image")); h != "" {
		spec.Image = h
		deps = append(deps, "#"+h)
	}
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
	spec.Env = b.envSpec(f.Env, appendPath(path, "env"), &deps)
	spec.EnvFrom = b.secretRefs(f.EnvFrom, appendPath(path, "env_from"), &deps)
	spec.VolumeMounts = b.volumeMounts(f.VolumeMounts, appendPath(path, "volume_mounts"), &deps)
	r := b.emit(schema.KindFunction, name, spec, deps, inputs)
	b.mu.Lock()
	b.functions[name] = r
	b.mu.Unlock()
	return r
}

// functionRef resolves a function at a reference position.
func (b *builder) functionRef(fn *schema.Function, path []string) (schema.Ref, bool) {
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

func (b *builder) evaluation(name string) {
	e := b.cfg.Evaluations[name]
	path := []string{"evaluations", name}
	var deps []string
	spec := schema.EvaluationSpec{ExternalTask: e.ExternalTask, Suite: e.Suite, Metadata: e.Metadata}
	if dname := b.resolve(schema.KindDataset, e.Dataset.ID, e.Dataset, appendPath(path, "dataset"), func(n string) bool { return b.cfg.Datasets[n] != nil }); dname != "" {
		r := b.dataset(dname)
		spec.Dataset = schema.Ref{Ref: r.Address, Hash: r.Hash}
		deps = append(deps, r.Address)
	}
	if e.Task != nil {
		if ref, ok := b.functionRef(e.Task, appendPath(path, "task")); ok {
			spec.Task = &ref
			deps = append(deps, ref.Ref)
		}
	}
	for i, s := range e.Scorers {
		sp := appendPath(path, "scorers", strconv.Itoa(i))
		out := schema.ScorerSpec{
			ExactMatch: s.ExactMatch, Levenshtein: s.Levenshtein, RegexMatch: s.RegexMatch, Contains: s.Contains,
			NumericClose: s.NumericClose, StringSimilarity: s.StringSimilarity, JSONValid: s.JSONValid,
			JSONMatch: s.JSONMatch, EmbeddingSimilarity: s.EmbeddingSimilarity,
		}
		if s.Function != nil {
			if ref, ok := b.functionRef(s.Function, appendPath(sp, "function")); ok {
				out.Function = &ref
				deps = append(deps, ref.Ref)
			}
		}
		if j := s.LLMJudge; j != nil {
			js := &schema.LLMJudgeSpec{
				Name: j.Name, Model: j.Model, Instructions: j.Instructions, Inputs: j.Inputs,
				Fields: j.Fields, BaseURL: j.BaseURL, Completion: j.Completion,
			}
			if j.APIKey != nil {
				if ref, ok := b.secretRef(j.APIKey, appendPath(sp, "llm_judge", "api_key")); ok {
					js.APIKey = &ref
					deps = append(deps, ref.Ref)
				}
			}
			out.LLMJudge = js
		}
		spec.Scorers = append(spec.Scorers, out)
	}
	b.emit(schema.KindEvaluation, name, spec, deps, nil)
}

// parallel calls f for each name, on as many goroutines as there are
// processors.
func parallel(names []string, f func(string)) {
	n := min(runtime.GOMAXPROCS(0), len(names))
	if n <= 1 {
		for _, name := range names {
			f(name)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	wg.Add(n)
	for i := 0; i < n; i++ {
		go func() {
			defer wg.Done()
			for {
				j := int(next.Add(1)) - 1
				if j >= len(names) {
					return
				}
				f(names[j])
			}
		}()
	}
	wg.Wait()
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func uniqSorted(ss []string) []string {
	if len(ss) == 0 {
		return nil
	}
	out := append([]string(nil), ss...)
	sort.Strings(out)
	j := 0
	for i := range out {
		if i == 0 || out[i] != out[j-1] {
			out[j] = out[i]
			j++
		}
	}
	return out[:j]
}
