package schema

import (
	"fmt"
	"io/fs"
	"path"
	"slices"
	"sort"
	"strings"
	"sync"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
)

// Schema is a configuration schema: its CUE sources and the facts about its
// fields that the code reads, from the fields' @cc attributes (config.cue
// documents them). The CUE files decide; the compiler, the HCL block shapes
// and the planner's replacement rules read the facts from here.
type Schema struct {
	files []File
	defs  map[string]*Def
	// formful says which structs have a field with a form in or under
	// them (forms.go).
	formful map[*Def]bool
}

// File is one CUE source of a schema.
type File struct {
	Name string // "workload.cue"
	Src  []byte
}

// Def is a struct of the schema: a #Definition, or a field's inline struct.
type Def struct {
	Name   string // "#Sandbox"; "" for an inline struct
	Fields []*Field
	byName map[string]*Field
}

// Field is one field of a Def and its facts.
type Field struct {
	Name string
	// Type is the definition the field's value (or a list's element) is,
	// "#Image"; "" when it is none.
	Type string
	// Inline is the field's (or its list element's) inline struct.
	Inline *Def
	// List says the value is a list.
	List bool
	// Form is the scalar definition the value (or a list's element) is
	// when that type has a canonical spelling (Forms): "#CPU",
	// "#Quantity", "#Duration"; "" otherwise.
	Form string
	// Path says the value (or a list's element) is a #Path: a local file
	// or directory, relative to the project root (issue 12: a module's
	// paths are rewritten from its directory).
	Path bool
	// Replace says when a change of the field replaces the resource.
	Replace Replace
	// Block is the field's HCL shape, BlockName the block type it is
	// written as (the field's name unless @cc(block=NAME)).
	Block     BlockMode
	BlockName string
	// SDKNames are the names the platform SDKs give the field
	// (@cc(sdk=chalk_identity)), suggested when a configuration writes
	// them; for did-you-mean only.
	SDKNames []string
	// CreateBeforeDestroy, on a kind's lifecycle field, says the kind
	// allows lifecycle.create_before_destroy
	// (@cc(create_before_destroy)).
	CreateBeforeDestroy bool
	// Modifier, on a field of a labelled element, says the field is no
	// kind (label) of the element but goes with one, written in the
	// labelled block's body (@cc(modifier): a scorer's scores).
	Modifier bool
}

// Replace says when a change of a field replaces its resource.
type Replace string

const (
	ReplaceNever  Replace = ""       // updated in place
	ReplaceAlways Replace = "always" // @cc(replace)
	ReplaceShrink Replace = "shrink" // @cc(replace=shrink): when the quantity goes down
	ReplaceRef    Replace = "ref"    // @cc(replace=ref): when the reference names another resource
)

// BlockMode is how HCL writes a field.
type BlockMode int

const (
	BlockNone     BlockMode = iota // an attribute
	BlockSingle                    // field = object; at most one block
	BlockList                      // field = [object, ...], one block each
	BlockStep                      // field = [{type: object}, ...], the block type is the element's field
	BlockLabelled                  // field = [{label: object}, ...], the label is the element's field
)

// Default is the embedded schema (Files), loaded once.
func Default() *Schema { return defaultSchema() }

var defaultSchema = sync.OnceValue(func() *Schema {
	s, err := Load(Files)
	if err != nil {
		panic(fmt.Sprintf("the embedded schema: %v", err)) // tested
	}
	return s
})

// Load reads a schema from the *.cue files at the top of fsys: those of
// FileNames in that order, then any others by name.
func Load(fsys fs.FS) (*Schema, error) {
	names, err := fs.Glob(fsys, "*.cue")
	if err != nil {
		return nil, err
	}
	order := map[string]int{}
	for i, n := range FileNames {
		order[n] = i - len(FileNames)
	}
	sort.Slice(names, func(i, j int) bool {
		if order[names[i]] != order[names[j]] {
			return order[names[i]] < order[names[j]]
		}
		return names[i] < names[j]
	})
	s := &Schema{defs: map[string]*Def{}}
	for _, name := range names {
		src, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		s.files = append(s.files, File{Name: path.Base(name), Src: src})
		f, err := parser.ParseFile("schema/"+name, src)
		if err != nil {
			return nil, err
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.Field)
			if !ok {
				continue
			}
			label, _, _ := ast.LabelName(fd.Label)
			if st := structOf(fd.Value); st != nil {
				def, err := newDef(label, st)
				if err != nil {
					return nil, err
				}
				s.defs[label] = def
			}
		}
	}
	if err := s.resolve(); err != nil {
		return nil, err
	}
	s.markForms()
	return s, nil
}

// Files are the schema's CUE sources, in load order.
func (s *Schema) Files() []File { return s.files }

// SDKNames maps each SDK name of a field (@cc(sdk=NAME)) to the names of
// the fields that carry it, for did-you-mean suggestions.
func (s *Schema) SDKNames() map[string][]string {
	out := map[string][]string{}
	seen := map[*Def]bool{}
	var walk func(d *Def)
	walk = func(d *Def) {
		if d == nil || seen[d] {
			return
		}
		seen[d] = true
		for _, f := range d.Fields {
			for _, n := range f.SDKNames {
				if !slices.Contains(out[n], f.Name) {
					out[n] = append(out[n], f.Name)
				}
			}
			walk(f.Inline)
		}
	}
	for _, name := range sortedDefNames(s.defs) {
		walk(s.defs[name])
	}
	return out
}

func sortedDefNames(m map[string]*Def) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Def returns the struct definition of that name ("#Sandbox"), or nil.
func (s *Schema) Def(name string) *Def { return s.defs[name] }

// Kind returns the definition of a resource kind (#Sandbox for sandbox).
func (s *Schema) Kind(k Kind) *Def {
	if k == "" {
		return nil
	}
	return s.defs[k.DefName()]
}

// DefName is the name of the kind's schema definition: "#Sandbox",
// "#ScalingGroup" for scaling_group (each word capitalized, no "_").
func (k Kind) DefName() string {
	if n, ok := kindDefNames[k]; ok {
		return n
	}
	return k.defName()
}

// kindDefNames is each kind's DefName, made once: the service asks for
// one with every spec it checks (issue 13).
var kindDefNames = func() map[Kind]string {
	m := make(map[Kind]string, len(Kinds))
	for _, k := range Kinds {
		m[k] = k.defName()
	}
	return m
}()

func (k Kind) defName() string {
	out := "#"
	for _, w := range strings.Split(string(k), "_") {
		if w != "" {
			out += strings.ToUpper(w[:1]) + w[1:]
		}
	}
	return out
}

// Elem returns the struct a field's value (or list element) is: its
// definition or its inline struct; nil when it is not a struct. Of a
// disjunction (#ImageRef | #Image), the definition that is a struct.
func (s *Schema) Elem(f *Field) *Def {
	if f.Inline != nil {
		return f.Inline
	}
	return s.defs[f.Type]
}

// Field returns the field of that name, or nil.
func (d *Def) Field(name string) *Field {
	if d == nil {
		return nil
	}
	return d.byName[name]
}

// resolve picks, for each field, the struct definition among the
// definitions its value names.
func (s *Schema) resolve() error {
	var walk func(d *Def) error
	walk = func(d *Def) error {
		for _, f := range d.Fields {
			cands := strings.Fields(f.Type)
			f.Type = ""
			for _, c := range cands {
				if Forms[c] != nil && f.Form == "" {
					f.Form = c
				}
				f.Path = f.Path || c == "#Path"
				if s.defs[c] != nil {
					f.Type = c
					break
				}
			}
			if f.Block != BlockNone && s.Elem(f) == nil {
				return fmt.Errorf("%s.%s: @cc(block) on a field that is not a struct", d.Name, f.Name)
			}
			if f.Inline != nil {
				if err := walk(f.Inline); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, d := range s.defs {
		if err := walk(d); err != nil {
			return err
		}
	}
	return nil
}

// structOf returns the struct literal an expression is (a {...},
// close({...}), or either joined with & to constraints), or nil.
func structOf(e ast.Expr) *ast.StructLit {
	switch e := e.(type) {
	case *ast.StructLit:
		return e
	case *ast.ParenExpr:
		return structOf(e.X)
	case *ast.CallExpr:
		if id, ok := e.Fun.(*ast.Ident); ok && id.Name == "close" && len(e.Args) == 1 {
			return structOf(e.Args[0])
		}
	case *ast.BinaryExpr:
		if e.Op.String() == "&" {
			if st := structOf(e.X); st != nil {
				return st
			}
			return structOf(e.Y)
		}
	}
	return nil
}

func newDef(name string, st *ast.StructLit) (*Def, error) {
	d := &Def{Name: name, byName: map[string]*Field{}}
	for _, el := range st.Elts {
		fd, ok := el.(*ast.Field)
		if !ok {
			continue
		}
		label, _, err := ast.LabelName(fd.Label)
		if err != nil || label == "" {
			// A pattern constraint ([string]: ...). Of a field written
			// env?: [#EnvName]: #EnvValue, an attribute at the end is the
			// pattern's: write env?: {[#EnvName]: #EnvValue} @cc(...).
			for _, a := range fd.Attrs {
				if key, _ := a.Split(); key == "cc" {
					return nil, fmt.Errorf("%s: a @cc attribute on a pattern constraint; put the pattern in braces", name)
				}
			}
			continue
		}
		if _, dup := d.byName[label]; dup {
			continue // a second constraint on the field (#Scaling)
		}
		f, err := newField(label, fd)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", name, label, err)
		}
		d.Fields = append(d.Fields, f)
		d.byName[label] = f
	}
	return d, nil
}

func newField(name string, fd *ast.Field) (*Field, error) {
	f := &Field{Name: name}
	v := fd.Value
	if l := listOf(v); l != nil {
		f.List, v = true, l
	}
	if st := structOf(v); st != nil {
		in, err := newDef("", st)
		if err != nil {
			return nil, err
		}
		f.Inline = in
	} else {
		f.Type = strings.Join(defNames(v, nil), " ")
	}
	for _, a := range fd.Attrs {
		key, body := a.Split()
		if key != "cc" {
			continue
		}
		if err := f.setFacts(body); err != nil {
			return nil, err
		}
	}
	return f, nil
}

// setFacts reads the body of a @cc(...) attribute.
func (f *Field) setFacts(body string) error {
	mode := BlockNone
	for _, arg := range strings.Split(body, ",") {
		key, val, _ := strings.Cut(strings.TrimSpace(arg), "=")
		switch key {
		case "replace":
			switch Replace(val) {
			case "":
				f.Replace = ReplaceAlways
			case ReplaceShrink, ReplaceRef:
				f.Replace = Replace(val)
			default:
				return fmt.Errorf("@cc(replace=%s): want replace, replace=shrink or replace=ref", val)
			}
		case "block":
			f.BlockName = val
			if val == "" {
				f.BlockName = f.Name
			}
			if mode == BlockNone {
				mode = BlockSingle
				if f.List {
					mode = BlockList
				}
			}
		case "sdk":
			if val == "" {
				return fmt.Errorf("@cc(sdk=NAME): want the SDK's name")
			}
			f.SDKNames = append(f.SDKNames, val)
		case "create_before_destroy":
			f.CreateBeforeDestroy = true
		case "modifier":
			f.Modifier = true
		case "step":
			mode = BlockStep
		case "labelled":
			mode = BlockLabelled
		default:
			return fmt.Errorf("unknown @cc fact %q", key)
		}
	}
	if mode != BlockNone && f.BlockName == "" {
		return fmt.Errorf("@cc(step) and @cc(labelled) go with block")
	}
	if (mode == BlockStep || mode == BlockLabelled) && !f.List {
		return fmt.Errorf("@cc(block, step) and @cc(block, labelled) need a list")
	}
	f.Block = mode
	return nil
}

// listOf returns the element type of a list type ([...T], possibly joined
// with & to constraints), or nil.
func listOf(e ast.Expr) ast.Expr {
	switch e := e.(type) {
	case *ast.ListLit:
		if len(e.Elts) == 1 {
			if el, ok := e.Elts[0].(*ast.Ellipsis); ok && el.Type != nil {
				return el.Type
			}
		}
	case *ast.ParenExpr:
		return listOf(e.X)
	case *ast.BinaryExpr:
		if e.Op.String() == "&" {
			if l := listOf(e.X); l != nil {
				return l
			}
			return listOf(e.Y)
		}
	}
	return nil
}

// defNames lists the definitions an expression names, through & and |.
func defNames(e ast.Expr, out []string) []string {
	switch e := e.(type) {
	case *ast.Ident:
		if strings.HasPrefix(e.Name, "#") {
			out = append(out, e.Name)
		}
	case *ast.ParenExpr:
		out = defNames(e.X, out)
	case *ast.UnaryExpr:
		out = defNames(e.X, out)
	case *ast.BinaryExpr:
		out = defNames(e.Y, defNames(e.X, out))
	}
	return out
}
