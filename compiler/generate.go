package compiler

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"cc.dev/cc/schema"
)

// Issue 10 (adoption): cc plan --generate-config-out FILE writes the
// declarations of imported resources the configuration does not declare
// yet, in the project's language, so that the configuration then compiles
// to what the service has. The specs are compiled forms: references
// ({"ref": "secret.openai", "hash": ...}) and image hashes become
// references again, the digests of local files go (the compiler computes
// them from the files), a dataset's files become their paths.

// GenerateInput is what Generate writes.
type GenerateInput struct {
	// Lang is "hcl" or "cue".
	Lang string
	// Package is the CUE package clause to write ("" for none).
	Package string
	// Resources are the resources to declare, by address with their specs
	// (canonical JSON, as the service has them).
	Resources []GenerateResource
	// Images are the addresses of the images a spec may name by hash
	// ("image", "from_image"), by hash: those of the configuration.
	Images map[string]string
	// Data are data sources (issue 10) to declare too, for specs that
	// refer to them ("data.volume.cache"); none when the configuration
	// the output joins declares them already.
	Data []schema.DataSource
}

// GenerateResource is one resource to declare.
type GenerateResource struct {
	Address string
	Spec    json.RawMessage
	// Sensitive are the pointers of values the spec does not have: such a
	// resource cannot be written.
	Sensitive []string
}

// ref is a reference to another resource in generated configuration.
type ref string

// Generate writes the declarations of in.Resources, sorted by address. An
// image hash that in.Images does not name, or a sensitive value, is an
// error naming the resource: the declaration could not compile to it.
func Generate(in GenerateInput) ([]byte, error) {
	if in.Lang != "hcl" && in.Lang != "cue" {
		return nil, fmt.Errorf("generate configuration: language %q: want hcl or cue", in.Lang)
	}
	rs, imgs, err := inlineImages(in)
	if err != nil {
		return nil, err
	}
	sort.Slice(rs, func(i, j int) bool { return rs[i].Address < rs[j].Address })
	var b bytes.Buffer
	if in.Lang == "hcl" {
		b.WriteString("# Written by cc plan --generate-config-out: the imported resources as the service has them.\n")
	} else {
		b.WriteString("// Written by cc plan --generate-config-out: the imported resources as the service has them.\n")
		if in.Package != "" {
			fmt.Fprintf(&b, "package %s\n", in.Package)
		}
	}
	for _, r := range rs {
		k, name, ok := cutAddr(r.Address)
		if !ok {
			return nil, fmt.Errorf("generate configuration: %q is not an address", r.Address)
		}
		if len(r.Sensitive) > 0 {
			return nil, fmt.Errorf("generate configuration: %s has sensitive values, which the service never sends: declare it by hand", r.Address)
		}
		v, err := decodeGenSpec(r.Spec)
		if err != nil {
			return nil, fmt.Errorf("generate configuration: %s: %v", r.Address, err)
		}
		cv, err := configOf(k, v, imgs)
		if err != nil {
			return nil, fmt.Errorf("generate configuration: %s: %v", r.Address, err)
		}
		b.WriteByte('\n')
		if in.Lang == "hcl" {
			if err := writeHCLResource(&b, k, name, cv.(map[string]any)); err != nil {
				return nil, err
			}
		} else {
			fmt.Fprintf(&b, "%s: %s: ", k.Plural(), cueKey(name))
			writeCUE(&b, cv, "")
			b.WriteByte('\n')
		}
	}
	writeData(&b, in.Lang, in.Data)
	// Formatted as cc fmt formats: the text is the user's from now on.
	out, ferr := Format("generated."+in.Lang, b.Bytes())
	if ferr != nil {
		return nil, fmt.Errorf("generate configuration: internal error: %v", ferr)
	}
	return out, nil
}

func decodeGenSpec(spec []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(spec))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, fmt.Errorf("the spec is not an object")
	}
	return v, nil
}

// genImages are the images generated configuration refers to: by hash,
// the addresses of the configuration's, and the specs of those that have
// no name (image.HASHPREFIX), written in place.
type genImages struct {
	addr   map[string]string
	inline map[string]map[string]any
}

// inlineImages takes the images without a name out of in.Resources: they
// are written where they are used (issue 11: image = "ubuntu:latest"),
// never declared; so are the built-in images (image.sandbox), which are
// referred to.
func inlineImages(in GenerateInput) ([]GenerateResource, genImages, error) {
	imgs := genImages{addr: in.Images, inline: map[string]map[string]any{}}
	var rs []GenerateResource
	for _, r := range in.Resources {
		k, name, _ := cutAddr(r.Address)
		if k == schema.KindImage && schema.IsBuiltinImage(name) {
			continue // built in: referred to, never declared
		}
		if k != schema.KindImage || !isHashPrefix(name) {
			rs = append(rs, r)
			continue
		}
		v, err := decodeGenSpec(r.Spec)
		if err != nil {
			return nil, imgs, fmt.Errorf("generate configuration: %s: %v", r.Address, err)
		}
		imgs.inline[name] = v.(map[string]any)
	}
	return rs, imgs, nil
}

var hashPrefixRE = regexp.MustCompile(`^[0-9a-f]{12}$`)

// isHashPrefix reports whether an image's name is the prefix of its hash,
// the address of an image that was never named.
func isHashPrefix(name string) bool { return hashPrefixRE.MatchString(name) }

// generatedImage is the configuration of the image with hash h at key (image,
// from_image): a reference, or an unnamed image in place: its base alone
// as the string shorthand where an image is taken, else its fields.
func generatedImage(key, h string, images genImages) (any, error) {
	addr, ok := images.addr[h]
	_, name, _ := cutAddr(addr)
	spec := images.inline[unnamedImage(h)]
	switch {
	case ok && !isHashPrefix(name):
		return ref(builtinRef(addr)), nil
	case spec == nil:
		return nil, fmt.Errorf("%s %s is not an image of the configuration: declare it, then write the declaration again", key, h)
	}
	if from, only := spec["from"].(string); only && len(spec) == 1 && key == "image" {
		return from, nil
	}
	return configOf(schema.KindImage, spec, images)
}

// configOf turns a compiled spec value back into configuration: refs
// and image hashes into references, local file digests dropped.
func configOf(k schema.Kind, v any, images genImages) (any, error) {
	switch t := v.(type) {
	case map[string]any:
		if r, ok := t["ref"].(string); ok && len(t) <= 2 {
			if _, hashed := t["hash"]; len(t) == 1 || hashed {
				return ref(r), nil
			}
		}
		out := map[string]any{}
		for key, e := range t {
			if key == "digest" || key == "context" && isDigest(e) {
				continue // computed from the local files
			}
			if (key == "image" || key == "from_image") && isDigest(e) {
				iv, err := generatedImage(key, e.(string), images)
				if err != nil {
					return nil, err
				}
				out[strings.TrimSuffix(key, "_image")] = iv
				continue
			}
			if fd, ok := e.(map[string]any); ok && key == "from_dockerfile" && k == schema.KindImage {
				out[key] = fd["path"] // its digest and context's are computed
				continue
			}
			if key == "files" && k == schema.KindDataset {
				if paths, ok := filePaths(e); ok {
					out[key] = paths
					continue
				}
			}
			c, err := configOf(k, e, images)
			if err != nil {
				return nil, err
			}
			out[key] = c
		}
		return out, nil
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			c, err := configOf(k, e, images)
			if err != nil {
				return nil, err
			}
			out[i] = c
		}
		return out, nil
	}
	return v, nil
}

var digestValue = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)

func isDigest(v any) bool {
	s, ok := v.(string)
	return ok && digestValue.MatchString(s)
}

// filePaths are the paths of a dataset's files ([{path, digest}]).
func filePaths(v any) ([]any, bool) {
	fs, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]any, len(fs))
	for i, f := range fs {
		m, ok := f.(map[string]any)
		p, isStr := m["path"].(string)
		if !ok || !isStr || len(m) > 2 {
			return nil, false
		}
		out[i] = p
	}
	return out, true
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// hclRef is a reference in HCL: kind.name, or data.kind.name for a data
// source.
func hclRef(r ref) string { return string(r) }

// cueRef is a reference in CUE: the collection and the name, under data
// for a data source (data.volumes.cache).
func cueRef(r ref) string {
	s, prefix := string(r), ""
	if rest, ok := strings.CutPrefix(s, "data."); ok {
		s, prefix = rest, "data."
	}
	k, name, _ := strings.Cut(s, ".")
	plural := schema.Kind(k).Plural()
	if identRE.MatchString(name) {
		return prefix + plural + "." + name
	}
	return prefix + plural + "[" + strconv.Quote(name) + "]"
}

// writeData declares the data sources ds in lang.
func writeData(b *bytes.Buffer, lang string, ds []schema.DataSource) {
	for _, d := range ds {
		_, name, _ := strings.Cut(strings.TrimPrefix(d.Address, "data."), ".")
		body := map[string]any{"name": d.Name}
		if d.Version > 0 {
			field := "version"
			if d.Kind == schema.KindDataset {
				field = "revision"
			}
			body[field] = float64(d.Version)
		}
		b.WriteByte('\n')
		if lang == "hcl" {
			fmt.Fprintf(b, "data %s %s {\n", strconv.Quote(string(d.Kind)), strconv.Quote(name))
			for _, key := range sortedKeys(body) {
				fmt.Fprintf(b, "  %s = ", key)
				writeHCL(b, body[key], "  ")
				b.WriteByte('\n')
			}
			b.WriteString("}\n")
			continue
		}
		fmt.Fprintf(b, "data: %s: %s: ", d.Kind.Plural(), cueKey(name))
		writeCUE(b, body, "")
		b.WriteByte('\n')
	}
}

func writeHCLBlock(b *bytes.Buffer, k schema.Kind, name string, body map[string]any) {
	fmt.Fprintf(b, "%s %s {\n", k, strconv.Quote(name))
	for _, key := range sortedKeys(body) {
		fmt.Fprintf(b, "  %s = ", key)
		writeHCL(b, body[key], "  ")
		b.WriteByte('\n')
	}
	b.WriteString("}\n")
}

// syntax is how one language writes a value: its references, strings,
// object keys, the mark between a key and its value, and one level of
// indentation.
type syntax struct {
	ref    func(ref) string
	str    func(string) string
	key    func(string) string
	assign string
	indent string
}

var (
	hclSyntax = syntax{ref: hclRef, str: hclString, key: hclKey, assign: " = ", indent: "  "}
	cueSyntax = syntax{ref: cueRef, str: cueString, key: cueKey, assign: ": ", indent: "\t"}
)

// hclKey is an object key in HCL: an identifier, else a quoted string.
func hclKey(k string) string {
	if identRE.MatchString(k) {
		return k
	}
	return hclString(k)
}

// writeHCL writes a value as an HCL expression.
func writeHCL(b *bytes.Buffer, v any, indent string) { hclSyntax.write(b, v, indent) }

// writeCUE writes a value as a CUE expression.
func writeCUE(b *bytes.Buffer, v any, indent string) { cueSyntax.write(b, v, indent) }

// write writes v as an expression of the language, its nested lines
// indented by indent and one level more.
func (sy syntax) write(b *bytes.Buffer, v any, indent string) {
	switch t := v.(type) {
	case ref:
		b.WriteString(sy.ref(t))
	case string:
		b.WriteString(sy.str(t))
	case map[string]any:
		if len(t) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteString("{\n")
		for _, key := range sortedKeys(t) {
			fmt.Fprintf(b, "%s%s%s%s", indent, sy.indent, sy.key(key), sy.assign)
			sy.write(b, t[key], indent+sy.indent)
			b.WriteByte('\n')
		}
		b.WriteString(indent + "}")
	case []any:
		if hasObject(t) {
			b.WriteString("[\n")
			for _, e := range t {
				b.WriteString(indent + sy.indent)
				sy.write(b, e, indent+sy.indent)
				b.WriteString(",\n")
			}
			b.WriteString(indent + "]")
			return
		}
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			sy.write(b, e, indent)
		}
		b.WriteByte(']')
	default:
		writeScalar(b, v)
	}
}

// hasObject reports whether a list has an object: it is written one
// element a line.
func hasObject(l []any) bool {
	for _, e := range l {
		if _, ok := e.(map[string]any); ok {
			return true
		}
	}
	return false
}

// hclString quotes s for HCL, where "${" and "%{" start templates.
func hclString(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, "${", "$${")
	return strings.ReplaceAll(q, "%{", "%%{")
}

// cueString quotes s for CUE. A backslash is always escaped, so no
// interpolation "\(" can appear.
func cueString(s string) string { return strconv.Quote(s) }

func cueKey(k string) string {
	if identRE.MatchString(k) && !strings.HasPrefix(k, "_") {
		return k
	}
	return cueString(k)
}

func writeScalar(b *bytes.Buffer, v any) {
	switch t := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(t))
	case json.Number:
		b.WriteString(t.String())
	default:
		j, _ := json.Marshal(t)
		b.Write(j)
	}
}
