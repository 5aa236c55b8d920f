package compiler

import (
	"encoding/json"
	"strconv"

	"cuelang.org/go/cue"

	"cc.dev/cc/schema"
)

// refSite is a place in a configuration where a resource may be referred
// to: its config path, the kind it takes, and the ID to stamp.
type refSite struct {
	path []string
	kind schema.Kind
	id   *string
}

// refSites lists every reference position of cfg, outside the resources
// that are themselves copies (a reference's insides are its target's).
func refSites(cfg *schema.Config) []refSite {
	var out []refSite
	cfg.Each(func(k schema.Kind, name string, r any) {
		out = resourceRefSites(out, k.Plural(), name, r)
	})
	return out
}

// resourceRefSites appends the reference positions of one resource.
func resourceRefSites(out []refSite, coll, name string, r any) []refSite {
	c := &siteWalk{out: out, p: []string{coll, name}}
	switch r := r.(type) {
	case *schema.Image:
		if r.From != nil && r.From.Image != nil {
			c.image(r.From.Image, c.at("from"))
		}
	case *schema.Sandbox:
		c.workload(r.Image, r.Env, r.EnvFrom, r.VolumeMounts, r.Credentials)
		c.s3Mount(r.S3Mount)
	case *schema.Function:
		c.workload(r.Image, r.Env, r.EnvFrom, r.VolumeMounts, r.Credentials)
		c.s3Mount(r.S3Mount)
	case *schema.Container:
		c.workload(r.Image, r.Env, r.EnvFrom, r.VolumeMounts, r.Credentials)
	case *schema.Training:
		c.workload(r.Image, r.Env, r.EnvFrom, r.VolumeMounts, nil)
		for i := range r.Datasets {
			if d := r.Datasets[i].Dataset; d != nil {
				c.add(c.at("dataset_mounts", strconv.Itoa(i), "dataset"), schema.KindDataset, &d.ID)
			}
		}
	case *schema.ScalingGroup:
		c.workload(r.Image, r.Env, r.EnvFrom, r.VolumeMounts, r.Credentials)
	case *schema.Evaluation:
		c.evaluation(r)
	}
	return c.out
}

// siteWalk collects the reference sites of one resource at p.
type siteWalk struct {
	out []refSite
	p   []string
}

func (c *siteWalk) at(path ...string) []string { return appendPath(c.p, path...) }

func (c *siteWalk) add(path []string, k schema.Kind, id *string) {
	c.out = append(c.out, refSite{path, k, id})
}

// image adds an image and the images it is built from.
func (c *siteWalk) image(img *schema.Image, path []string) {
	if img == nil {
		return
	}
	c.add(path, schema.KindImage, &img.ID)
	if img.From != nil && img.From.Image != nil {
		c.image(img.From.Image, appendPath(path, "from"))
	}
}

func (c *siteWalk) secret(s *schema.Secret, path []string) {
	if s != nil {
		c.add(path, schema.KindSecret, &s.ID)
	}
}

// workload adds what every kind that runs an image refers to.
func (c *siteWalk) workload(img *schema.Image, env map[string]schema.EnvValue, envFrom []*schema.Secret, vms []schema.VolumeMount, cs []schema.Credential) {
	c.image(img, c.at("image"))
	for _, k := range sortedKeys(env) {
		c.secret(env[k].Secret, c.at("env", k))
	}
	for i, s := range envFrom {
		c.secret(s, c.at("env_from", strconv.Itoa(i)))
	}
	for i := range vms {
		if v := vms[i].Volume; v != nil {
			c.add(c.at("volume_mounts", strconv.Itoa(i), "volume"), schema.KindVolume, &v.ID)
		}
	}
	for i := range cs {
		c.secret(cs[i].Secret, c.at("credentials", strconv.Itoa(i), "secret"))
	}
}

func (c *siteWalk) s3Mount(m *schema.S3Mount) {
	if m != nil {
		c.secret(m.Credentials, c.at("s3_mount", "credentials"))
	}
}

func (c *siteWalk) evaluation(r *schema.Evaluation) {
	if r.Dataset != nil {
		c.add(c.at("dataset"), schema.KindDataset, &r.Dataset.ID)
	}
	if r.Task != nil {
		c.add(c.at("task"), schema.KindFunction, &r.Task.ID)
	}
	if r.Suite != nil && r.Suite.Suite != nil {
		c.add(c.at("suite"), schema.KindSuite, &r.Suite.Suite.ID)
	}
	for i, s := range r.Scorers {
		sp := c.at("scorers", strconv.Itoa(i))
		if s.Function != nil {
			c.add(appendPath(sp, "function"), schema.KindFunction, &s.Function.ID)
		}
		if s.LLMJudge != nil {
			c.secret(s.LLMJudge.APIKey, appendPath(sp, "llm_judge", "api_key"))
		}
	}
}

// markCUERefs stamps the ID of every reference in one resource written as
// one in CUE (images.base, or through hidden fields and definitions),
// looking from the resource's own value rv. What is not recognisably a
// reference is left for the builder to resolve by content.
func markCUERefs(coll, name string, r any, rv cue.Value) {
	for _, site := range resourceRefSites(nil, coll, name, r) {
		if *site.id != "" {
			continue
		}
		if addr := cueReference(rv, site.path[2:], site.kind); addr != "" {
			*site.id = addr
		}
	}
}

// markAllCUERefs stamps references across a whole configuration, looking
// from the user's root value.
func markAllCUERefs(cfg *schema.Config, user cue.Value) {
	for _, site := range refSites(cfg) {
		if *site.id == "" {
			*site.id = cueReference(user, site.path, site.kind)
		}
	}
}

// cueReference follows the reference at path (through up to a few hops of
// hidden fields or lets) to a resource collection entry of kind k.
func cueReference(user cue.Value, path []string, k schema.Kind) string {
	sels := make([]cue.Selector, 0, len(path))
	for _, e := range path {
		if isIndex(e) {
			sels = append(sels, cue.Index(atoi(e)))
		} else {
			sels = append(sels, cue.Str(e))
		}
	}
	v := user.LookupPath(cue.MakePath(sels...))
	for hop := 0; hop < 8 && v.Exists(); hop++ {
		root, p := v.ReferencePath()
		s := p.Selectors()
		if len(s) == 0 {
			return ""
		}
		if len(s) == 2 && s[0].String() == k.Plural() && s[1].IsString() {
			return schema.Address(k, s[1].Unquoted())
		}
		if len(s) == 3 && s[0].String() == "data" && s[2].IsString() {
			// issue 10: data.volumes.cache; of another kind than k, for
			// the builder to refuse.
			for _, dk := range schema.DataKinds {
				if s[1].String() == dk.Plural() {
					return schema.DataAddress(dk, s[2].Unquoted())
				}
			}
		}
		v = root.LookupPath(p)
	}
	return ""
}

// contentIndex finds declared resources by content, for references CUE
// cannot name (a value built with & or through a let): a value equal to
// exactly one declared resource of its kind refers to it.
type contentIndex map[string][]string // kind + canonical content → names

func newContentIndex(cfg *schema.Config) contentIndex {
	idx := contentIndex{}
	add := func(k schema.Kind, name string, v any) {
		if key := contentKey(k, v); key != "" {
			idx[key] = append(idx[key], name)
		}
	}
	for _, n := range sortedKeys(cfg.Secrets) {
		add(schema.KindSecret, n, cfg.Secrets[n])
	}
	for _, n := range sortedKeys(cfg.Volumes) {
		add(schema.KindVolume, n, cfg.Volumes[n])
	}
	for _, n := range sortedKeys(cfg.Datasets) {
		add(schema.KindDataset, n, cfg.Datasets[n])
	}
	for _, n := range sortedKeys(cfg.Functions) {
		add(schema.KindFunction, n, cfg.Functions[n])
	}
	for _, n := range sortedKeys(cfg.Suites) {
		add(schema.KindSuite, n, cfg.Suites[n])
	}
	return idx
}

// contentKey is the kind and JSON of v without its "$id" and its
// lifecycle, which belongs to the declaration, not to its content (issue
// 10): adding one to a declared resource changes no reference to it.
func contentKey(k schema.Kind, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	var m any
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	if obj, ok := m.(map[string]any); ok {
		delete(obj, "lifecycle")
	}
	c, err := schema.Canonical(stripIDs(m))
	if err != nil {
		return ""
	}
	return string(k) + "\x00" + string(c)
}

// lookup returns the names of declared resources equal to v.
func (idx contentIndex) lookup(k schema.Kind, v any) []string {
	return idx[contentKey(k, v)]
}

// stripIDs removes every "$id" from a decoded JSON value.
func stripIDs(v any) any {
	switch v := v.(type) {
	case map[string]any:
		delete(v, "$id")
		for k, e := range v {
			v[k] = stripIDs(e)
		}
	case []any:
		for i, e := range v {
			v[i] = stripIDs(e)
		}
	}
	return v
}
