package compiler

import (
	"encoding/json"
	"fmt"
	"strings"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/ast/astutil"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/literal"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	ctyjson "github.com/zclconf/go-cty/cty/json"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// The built-in images (issue 11: image shorthands, schema.BuiltinImage):
// images.debian_slim and images.sandbox in CUE, image.debian_slim and
// image.sandbox in HCL, referable without being declared. CUE sees them as
// a file of the project's package (added only when some file selects a
// built-in's name), so a reference to them is an ordinary CUE reference;
// HCL as resources that are already evaluated. Neither
// language puts them in the configuration the compiler builds: the
// builder compiles one where it is used (a reference, or a sandbox
// without an image), as a named image, so a project that uses none has
// the desired state it had before.
//
// Their names are reserved: declaring images.sandbox is an error, not a
// shadowing. images.sandbox is also what a sandbox without an image runs,
// in every project alike as in the SDK (Image.sandbox()); a project's own
// image of that name would silently change it. And a CUE project cannot
// declare a field the built-in file declares without unifying with it.

// builtinCUEFile is the name the built-in images' CUE file has in
// positions: under schemaFile, so no position in it is taken for the
// user's.
const builtinCUEFile = schemaFile + "builtin_images.cue"

// builtinImagesCUE is the built-in images as CUE source, of package pkg
// ("" for none).
func builtinImagesCUE(pkg string) []byte {
	var b strings.Builder
	if pkg != "" {
		fmt.Fprintf(&b, "package %s\n\n", pkg)
	}
	b.WriteString("images: {\n")
	for _, name := range builtinSpellings() {
		j, _ := json.Marshal(schema.BuiltinImage(name))
		fmt.Fprintf(&b, "\t%q: %s\n", name, j)
	}
	b.WriteString("}\n")
	return []byte(b.String())
}

// addBuiltinImagesCUE adds the built-in images' declarations to the
// project's files that refer to them, after refusing a declaration of a
// reserved name.
func addBuiltinImagesCUE(p *project, inst *build.Instance) diag.Diagnostics {
	var ds diag.Diagnostics
	for _, f := range inst.Files {
		for _, lbl := range declaredCUEImages(f) {
			name, _, _ := ast.LabelName(lbl)
			if schema.ReservedImageName(name) {
				ds = append(ds, reservedImage(p.rangeOfPos(lbl.Pos()), name))
			}
		}
	}
	if ds.HasErrors() {
		return ds
	}
	if !refersToBuiltin(inst.Files) {
		// They would change nothing but what checkCUEFields sees
		// (images!: defined by them).
		return nil
	}
	pkg := inst.PkgName
	if pkg == "_" {
		pkg = ""
	}
	// A file of the package, its positions in builtinCUEFile.
	f, err := parser.ParseFile(builtinCUEFile, builtinImagesCUE(pkg))
	if err == nil {
		err = inst.AddSyntax(f)
	}
	if err != nil {
		return diag.Diagnostics{diag.Errorf(nil, "internal error: the built-in images: %v", err)}
	}
	if pkg == "" {
		// Files without a package clause do not see each other's
		// fields: one that refers to images without declaring any gets
		// an empty images of its own, which the built-in file's unify
		// with.
		for _, file := range inst.Files[:len(inst.Files)-1] {
			if refersToBuiltin([]*ast.File{file}) && declaredCUEImages(file) == nil && !declaresImages(file) {
				declareImages(file)
			}
		}
	}
	return nil
}

// declaresImages reports whether a file has a top-level images field.
func declaresImages(f *ast.File) bool {
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.Field); ok {
			if name, _, _ := ast.LabelName(fd.Label); name == "images" {
				return true
			}
		}
	}
	return false
}

// declareImages adds images: {} to file and resolves its references
// again: images.sandbox found nothing when it was loaded (its other
// errors were reported then).
func declareImages(file *ast.File) {
	f, err := parser.ParseFile(builtinCUEFile, "images: {}\n")
	if err != nil {
		return
	}
	file.Decls = append(file.Decls, f.Decls...)
	file.Unresolved = nil
	astutil.Resolve(file, func(token.Pos, string, ...any) {})
}

// refersToBuiltin reports whether the files select a field of a built-in
// image's name anywhere (images.sandbox, x["debian_slim"]).
func refersToBuiltin(files []*ast.File) bool {
	found := false
	for _, f := range files {
		ast.Walk(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				name, _, _ := ast.LabelName(n.Sel)
				found = found || schema.IsBuiltinImage(name)
			case *ast.IndexExpr:
				if lit, ok := n.Index.(*ast.BasicLit); ok {
					s, err := literal.Unquote(lit.Value)
					found = found || err == nil && schema.IsBuiltinImage(s)
				}
			}
			return !found
		}, nil)
	}
	return found
}

// declaredCUEImages lists the labels of the images a file declares at its
// top level (images: NAME: or images: {NAME: ...}).
func declaredCUEImages(f *ast.File) []ast.Label {
	var out []ast.Label
	for _, d := range f.Decls {
		fd, ok := d.(*ast.Field)
		if !ok {
			continue
		}
		if name, _, _ := ast.LabelName(fd.Label); name != "images" {
			continue
		}
		st, ok := fd.Value.(*ast.StructLit)
		if !ok {
			continue
		}
		for _, e := range st.Elts {
			if imf, ok := e.(*ast.Field); ok {
				out = append(out, imf.Label)
			}
		}
	}
	return out
}

func reservedImage(at *diag.Range, name string) *diag.Diagnostic {
	d := diag.Errorf(at, "image %q is built in: its name is reserved; give your image another name", name)
	d.Detail = "the built-in images are debian_slim and sandbox; build on one with from (from: images.sandbox, or in HCL from = image.sandbox)"
	return d
}

// dropBuiltinImages removes the built-in images the CUE file put in a
// configuration's images: they are compiled where they are used. An image
// of a reserved name that is not the built-in one (declared in a way
// addBuiltinImagesCUE cannot see, by a comprehension) is refused.
func dropBuiltinImages(cfg *schema.Config, loc locator) diag.Diagnostics {
	var ds diag.Diagnostics
	for _, name := range builtinSpellings() {
		img := cfg.Images[name]
		if img == nil {
			continue
		}
		a, _ := json.Marshal(img)
		b, _ := json.Marshal(schema.BuiltinImage(name))
		if string(a) != string(b) {
			ds = append(ds, reservedImage(loc.key([]string{"images", name}), name))
		}
		delete(cfg.Images, name)
	}
	return ds
}

// builtinSpellings lists the names a built-in image is referred to by:
// its name and its resource name (debian_slim, debian-slim).
func builtinSpellings() []string {
	var out []string
	for _, name := range schema.BuiltinImageNames {
		out = append(out, name)
		if r := schema.BuiltinImageName(name); r != name {
			out = append(out, r)
		}
	}
	return out
}

// builtinHCL returns the evaluated resource of a built-in image (creating
// it on first use) for a reference image.NAME, nil when NAME is none.
func (l *hclLoader) builtinHCL(addr string) *hclResource {
	name, ok := strings.CutPrefix(addr, "image.")
	if !ok || !schema.IsBuiltinImage(name) {
		return nil
	}
	if r := l.resources[addr]; r != nil {
		return r
	}
	v, err := imageValue(schema.BuiltinImage(name), addr)
	if err != nil {
		l.errorf(hcl.Range{}, "internal error: the built-in image %s: %v", name, err)
		return nil
	}
	// Not in l.order: it is no part of the configuration.
	r := &hclResource{kind: "image", name: name, value: v, done: true}
	l.resources[addr] = r
	return r
}

// imageValue is img as an HCL value, with its address as "$id".
func imageValue(img *schema.Image, addr string) (cty.Value, error) {
	b, err := json.Marshal(img)
	if err != nil {
		return cty.NilVal, err
	}
	t, err := ctyjson.ImpliedType(b)
	if err != nil {
		return cty.NilVal, err
	}
	v, err := ctyjson.Unmarshal(b, t)
	if err != nil {
		return cty.NilVal, err
	}
	m := v.AsValueMap()
	m["$id"] = cty.StringVal(addr)
	return cty.ObjectVal(m), nil
}

// reservedHCL refuses an image block of a built-in image's name.
func (l *hclLoader) reservedHCL(b *hclsyntax.Block) bool {
	if b.Type != "image" || !schema.ReservedImageName(b.Labels[0]) {
		return false
	}
	l.diags = append(l.diags, reservedImage(toRange(b.LabelRanges[0]), b.Labels[0]))
	return true
}

// builtinUses maps each built-in image a configuration uses to the first
// place, in path order, that uses it: a reference, or a sandbox without an
// image (the built-in sandbox).
func builtinUses(cfg *schema.Config) map[string][]string {
	uses := map[string][]string{}
	use := func(name string, path []string) {
		if _, ok := uses[name]; !ok && cfg.Images[name] == nil && schema.IsBuiltinImage(name) {
			uses[name] = path
		}
	}
	for _, site := range refSites(cfg) {
		if name, ok := strings.CutPrefix(*site.id, "image."); ok && site.kind == schema.KindImage {
			use(name, site.path)
		}
	}
	for _, n := range sortedKeys(cfg.Sandboxes) {
		if cfg.Sandboxes[n].Image == nil {
			use(schema.DefaultSandboxImage, []string{"sandboxes", n, "image"})
		}
	}
	return uses
}

// builtinImages compiles the built-in images cfg uses, each as the named
// image it is, where it is first used: before the workloads that refer to
// it compile in parallel.
func (b *builder) builtinImages(cfg *schema.Config) {
	uses := builtinUses(cfg)
	for _, name := range sortedKeys(uses) {
		if _, ok := b.imageHash[name]; ok {
			continue
		}
		b.imageHash[name] = ""
		b.imageHash[name] = b.image(schema.BuiltinImage(name), uses[name], schema.BuiltinImageName(name))
	}
}

// defaultSandboxImage is the image of a sandbox that names none.
func defaultSandboxImage() *schema.Image {
	return &schema.Image{ID: schema.Address(schema.KindImage, schema.DefaultSandboxImage)}
}
