package compiler

import (
	"path/filepath"
	"strconv"
	"strings"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

func (b *builder) namedImage(name string) string {
	if h, ok := b.imageHash[name]; ok {
		return h
	}
	b.imageHash[name] = "" // in progress: a cycle resolves to no hash
	img := b.cfg.Images[name]
	if img == nil {
		img = schema.BuiltinImage(name) // issue 11: compiled first, by builtinImages
	}
	if img == nil {
		return ""
	}
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
		if b.cfg.Images[name] == nil && !schema.IsBuiltinImage(name) {
			b.errorf(path, "reference to undefined image %q", name)
			return ""
		}
		return b.namedImage(name)
	}
	return b.image(img, path, "")
}

// imageParts is an image's spec as compiled so far, with what its
// resource records besides: the base images it is built on (hashes), its
// local inputs and the source ranges of its parts.
type imageParts struct {
	spec   *schema.ImageSpec
	deps   []string
	inputs []schema.Input
	ranges map[string]*diag.Range
}

// image compiles the image img declared at path (named name, or "" when
// inline) and returns its hash, "" when it cannot be compiled.
func (b *builder) image(img *schema.Image, path []string, name string) string {
	ip := &imageParts{
		spec:   &schema.ImageSpec{Entrypoint: img.Entrypoint, Cmd: img.Cmd, User: img.User, Platform: img.Platform},
		ranges: map[string]*diag.Range{},
	}
	if f := img.From; f != nil {
		if !b.imageFrom(ip, f, appendPath(path, "from")) {
			return ""
		}
	}
	if img.FromDockerfile != "" {
		b.fromDockerfile(ip, img.FromDockerfile, appendPath(path, "from_dockerfile"))
	}
	for i, st := range img.Steps {
		sp := appendPath(path, "steps", strconv.Itoa(i))
		ip.ranges["/steps/"+strconv.Itoa(i)] = b.ld.loc.at(sp)
		ip.spec.Steps = append(ip.spec.Steps, b.step(ip, st, sp))
	}
	hash, canon, err := schema.HashOf(withExtra(ip.spec, img.Extra))
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
	b.recordImage(ip, hash, canon, sens, path, name)
	return hash
}

// imageFrom compiles an image's base: a registry reference or another
// image of the project; false when that image cannot be compiled.
func (b *builder) imageFrom(ip *imageParts, f *schema.ImageFrom, p []string) bool {
	if f.Image != nil {
		h := b.imageRef(f.Image, p)
		if h == "" {
			return false
		}
		ip.spec.FromImage = h
		ip.deps = append(ip.deps, h)
	} else {
		ip.spec.From = b.base(f.Ref, p)
	}
	ip.ranges["/from"] = b.ld.loc.at(p)
	return true
}

// fromDockerfile hashes an image's Dockerfile and its build context.
func (b *builder) fromDockerfile(ip *imageParts, dockerfile string, p []string) {
	rel := cleanRel(dockerfile)
	if s := b.inputFile(rel, p, "Dockerfile"); s.digest != "" {
		// The build context is the Dockerfile's directory: what its
		// COPY and ADD read must count too.
		ctxDir := filepath.ToSlash(filepath.Dir(rel))
		t := b.fs.tree([]string{ctxDir}, ctxDir, nil, nil)
		if t.err != nil {
			b.fileError(t.err, ctxDir, p, "Dockerfile build context")
		} else {
			ip.spec.FromDockerfile = &schema.DockerfileInput{Path: rel, Digest: s.digest, Context: t.digest}
			ip.inputs = append(ip.inputs, schema.Input{Path: rel, Digest: s.digest},
				schema.Input{Path: ctxDir, Digest: t.digest, Tree: true})
		}
	}
	ip.ranges["/from_dockerfile"] = b.ld.loc.at(p)
}

// step compiles one build step declared at sp: the local files a copy or
// pip_requirements step reads are hashed into it.
func (b *builder) step(ip *imageParts, st schema.Step, sp []string) schema.Step {
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
			ip.inputs = append(ip.inputs, schema.Input{Path: c.Src, Digest: t.digest, Tree: true})
		}
		st.Copy = &c
	case st.PipRequirements != nil:
		r := *st.PipRequirements
		r.File = cleanRel(r.File)
		if s := b.inputFile(r.File, appendPath(sp, "pip_requirements", "file"), "requirements file"); s.digest != "" {
			r.Digest = s.digest
			ip.inputs = append(ip.inputs, schema.Input{Path: r.File, Digest: s.digest})
		}
		st.PipRequirements = &r
	}
	return st
}

// recordImage records a compiled image under its hash: once for every
// declaration with that content, which it points at by its first name, or
// when it has none, by its first use.
func (b *builder) recordImage(ip *imageParts, hash string, canon []byte, sens, path []string, name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.diags.HasErrors() {
		return
	}
	e := b.images[hash]
	if e == nil {
		e = &imageEntry{hash: hash, spec: canon, sensitive: sens, deps: ip.deps, inputs: ip.inputs, rng: b.ld.loc.key(path), ranges: ip.ranges, path: pathKey(path)}
		b.images[hash] = e
	}
	if name != "" {
		if !contains(e.names, name) {
			e.names = append(e.names, name)
		}
		if len(e.names) == 1 || name < e.names[0] {
			// The image's address is its first name; point at that
			// declaration.
			e.rng, e.ranges = b.ld.loc.key(path), ip.ranges
		}
	} else if len(e.names) == 0 && pathKey(path) < e.path {
		// An unnamed image points at its first use, in path order, so
		// parallel compilation reports the same place every time.
		e.rng, e.ranges, e.path = b.ld.loc.key(path), ip.ranges, pathKey(path)
	}
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
	if err := checkImageRef(ref); err != nil {
		b.errorf(path, "from: %v", err)
		return ref
	}
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
