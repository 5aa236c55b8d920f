package compiler

import (
	"path/filepath"
	"runtime"
	"sort"
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
	suites    map[string]*schema.Resource
	dataCols  map[string]*datasetCols // by dataset name; nil when unknown
	functions map[string]*schema.Resource
	out       []*schema.Resource
	floating  map[string]bool
	content   contentIndex

	// mu guards the maps above and diags and out while functions and
	// sandboxes compile in parallel.
	mu sync.Mutex
	// lcs are the configuration's lifecycles by address, made once.
	lcs    map[string]*schema.Lifecycle
	lcOnce sync.Once
	// sens are the sensitive paths of ld by the resource path they are
	// under (sensitiveUnder), made once.
	sens     map[string][][]string
	sensOnce sync.Once
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
		secrets: map[string]*schema.Resource{}, datasets: map[string]*schema.Resource{}, suites: map[string]*schema.Resource{}, dataCols: map[string]*datasetCols{},
		functions: map[string]*schema.Resource{}, floating: map[string]bool{},
	}
	b.fs, b.fsErr = newFileHasher(p.root)
	if b.fs != nil {
		b.fs.track = p.track
		b.fs.stat = p.stat
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
	b.builtinImages(cfg)
	each(schema.KindImage, sortedKeys(cfg.Images), func(name string) { b.namedImage(name) })
	each(schema.KindSecret, sortedKeys(cfg.Secrets), func(name string) { b.secret(name) })
	each(schema.KindVolume, sortedKeys(cfg.Volumes), func(name string) {
		v := cfg.Volumes[name]
		b.emit(schema.KindVolume, name, withExtra(schema.VolumeSpec{VolumeSettings: v.VolumeSettings}, v.Extra), nil, nil)
	})
	each(schema.KindDataset, sortedKeys(cfg.Datasets), func(name string) { b.dataset(name) })
	each(schema.KindSuite, sortedKeys(cfg.Suites), b.suite)
	// Functions and sandboxes are most of a large project and depend only
	// on what is compiled above: compile them in parallel.
	tr.set("compiling functions, sandboxes, containers and trainings")
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
	parallel(sortedKeys(cfg.Containers), func(name string) {
		if !tr.isStopped() {
			b.container(name)
		}
	})
	parallel(sortedKeys(cfg.Trainings), func(name string) {
		if !tr.isStopped() {
			b.training(name)
		}
	})
	each(schema.KindScalingGroup, sortedKeys(cfg.ScalingGroups), b.scalingGroup)
	each(schema.KindEvaluation, sortedKeys(cfg.Evaluations), b.evaluation)
	if b.diags.HasErrors() {
		return nil, b.diags
	}
	d := b.desired(cfg)
	if b.declarations(cfg, d); b.diags.HasErrors() {
		return nil, b.diags
	}
	return d, b.diags
}

// desired assembles the compiled resources into the Desired state: images
// addressed by name (or hash), references to them by hash resolved to
// those addresses, everything sorted.
func (b *builder) desired(cfg *schema.Config) *schema.Desired {
	d := &schema.Desired{FormatVersion: schema.FormatVersion, Project: cfg.Project, Root: b.p.root, Trees: b.fs.entries, Schema: b.p.sch,
		Data: b.dataSources(cfg)}
	addr := b.imageAddresses()
	for _, e := range b.images {
		names := append([]string(nil), e.names...)
		sort.Strings(names)
		r := schema.Resource{Kind: schema.KindImage, Hash: e.hash, Spec: e.spec, Sensitive: e.sensitive, Inputs: e.inputs, Range: e.rng, Ranges: e.ranges}
		r.Address = addr[e.hash]
		_, r.Name, _ = schema.ParseAddress(r.Address) // module.api.base (issue 12: modules)
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
	return d
}

// imageAddresses names each image: image.NAME by its first name, or
// image.HASHPREFIX when it was never named.
func (b *builder) imageAddresses() map[string]string {
	addr := map[string]string{}
	for h, e := range b.images {
		if len(e.names) > 0 {
			names := append([]string(nil), e.names...)
			sort.Strings(names)
			addr[h] = schema.Address(schema.KindImage, names[0])
		} else {
			addr[h] = schema.Address(schema.KindImage, unnamedImage(h))
		}
	}
	return addr
}

// unnamedImage is the name of an image that was never named: the prefix
// of its hash (image.0651d8c1dd6c).
func unnamedImage(hash string) string {
	hex := strings.TrimPrefix(hash, "sha256:")
	return hex[:min(12, len(hex))]
}

// emit records a resource (not an image) with its canonical spec, its
// quantities and durations in their one spelling (quantities.go).
func (b *builder) emit(kind schema.Kind, name string, spec any, deps []string, inputs []schema.Input) *schema.Resource {
	path := []string{kind.Plural(), name}
	canon, ok := b.canonicalSpec(kind, path, spec)
	if !ok {
		return nil
	}
	// With sensitive values, the hash is over the spec with each one
	// replaced by a placeholder: it reveals nothing of them (issue 8 item
	// 8). The service tells a changed sensitive value by its own
	// fingerprints.
	sens := b.sensitiveIn(kind, path, canon)
	hash, err := schema.SpecHash(canon, sens)
	if err != nil {
		b.errorf(path, "internal error: %v", err)
		return nil
	}
	r := &schema.Resource{
		Address: schema.Address(kind, name), Kind: kind, Name: name, Hash: hash, Spec: canon,
		DependsOn: deps, Inputs: inputs, Range: b.ld.loc.key(path), Sensitive: sens,
		Lifecycle: b.lifecycle(kind, name, path),
	}
	b.mu.Lock()
	b.out = append(b.out, r)
	b.mu.Unlock()
	return r
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

// withExtra is spec with the config's fields that have no Go field
// (extra) merged in, under their own names; spec itself when there are
// none, so the common case costs nothing. A field of spec wins.
func withExtra(spec any, extra schema.Extra) any {
	if len(extra) == 0 {
		return spec
	}
	canon, err := schema.Canonical(spec)
	if err != nil {
		return spec // emit reports it
	}
	m, ok := decodeSpec(canon).(map[string]any)
	if !ok {
		return spec
	}
	for k, v := range extra {
		if _, taken := m[k]; !taken {
			m[k] = v
		}
	}
	return m
}
