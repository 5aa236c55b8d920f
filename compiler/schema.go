package compiler

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/cuecontext"
	"cuelang.org/go/cue/parser"

	"cc.dev/cc/schema"
)

// schemaFile is the prefix of the schema's file names in CUE positions;
// a position in such a file is never the user's.
const schemaFile = "schema/"

// buildSchema builds the embedded schema in ctx.
func buildSchema(ctx *cue.Context) (cue.Value, error) {
	inst := build.NewContext().NewInstance("schema", nil)
	for _, name := range schema.FileNames {
		b, err := schema.Files.ReadFile(name)
		if err != nil {
			return cue.Value{}, err
		}
		f, err := parser.ParseFile(schemaFile+name, b, parser.ParseComments)
		if err != nil {
			return cue.Value{}, err
		}
		if err := inst.AddSyntax(f); err != nil {
			return cue.Value{}, err
		}
	}
	v := ctx.BuildInstance(inst)
	if err := v.Err(); err != nil {
		return cue.Value{}, fmt.Errorf("internal error: building the schema: %w", err)
	}
	return v, nil
}

// defInfo is one #Definition of the schema: where it is and what its doc
// comment says it is.
type defInfo struct {
	name       string
	file       string
	start, end int // lines
	what       string
}

var schemaIndex = sync.OnceValue(func() []defInfo {
	var defs []defInfo
	for _, name := range schema.FileNames {
		b, _ := schema.Files.ReadFile(name)
		f, err := parser.ParseFile(schemaFile+name, b, parser.ParseComments)
		if err != nil {
			panic(fmt.Sprintf("schema %s: %v", name, err)) // embedded; tested
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.Field)
			if !ok {
				continue
			}
			label, _, _ := ast.LabelName(fd.Label)
			if !strings.HasPrefix(label, "#") {
				continue
			}
			defs = append(defs, defInfo{
				name:  label,
				file:  schemaFile + name,
				start: fd.Pos().Line(),
				end:   fd.End().Line(),
				what:  docWhat(label, ast.Comments(fd)),
			})
		}
	}
	return defs
})

var docIsRE = regexp.MustCompile(`^#\w+ (is|are|names|says) `)

// docWhat turns "#CPU is a Kubernetes CPU quantity: "500m", "2"." into
// `a Kubernetes CPU quantity: "500m", "2"`.
func docWhat(name string, groups []*ast.CommentGroup) string {
	for _, g := range groups {
		text := strings.Join(strings.Fields(g.Text()), " ")
		loc := docIsRE.FindStringIndex(text)
		if loc == nil {
			continue
		}
		verb := strings.TrimSpace(text[len(name)+1 : loc[1]])
		rest := text[loc[1]:]
		if i := strings.Index(rest, ". "); i >= 0 {
			rest = rest[:i]
		}
		rest = strings.TrimSuffix(rest, ".")
		if verb == "names" {
			return "the name of " + rest
		}
		if verb == "says" {
			return ""
		}
		return rest
	}
	return ""
}

// defAt returns the innermost definition containing a schema position.
func defAt(file string, line int) *defInfo {
	defs := schemaIndex()
	var best *defInfo
	for i := range defs {
		d := &defs[i]
		if d.file == file && d.start <= line && line <= d.end {
			if best == nil || d.end-d.start < best.end-best.start {
				best = d
			}
		}
	}
	return best
}

// fieldsAt lists the fields the schema allows in the struct at a config
// path, for did-you-mean suggestions. It follows pattern constraints
// (images.NAME), list elements and disjunctions (from: ref | image).
func fieldsAt(root cue.Value, path []string) []string {
	v := root.LookupPath(cue.MakePath(cue.Def("#Config")))
	for _, elem := range path {
		v = lookupSchema(v, elem)
		if !v.Exists() {
			return nil
		}
	}
	return structFields(v)
}

func lookupSchema(v cue.Value, elem string) cue.Value {
	if isIndex(elem) {
		for _, d := range disjuncts(v) {
			if e := d.LookupPath(cue.MakePath(cue.AnyIndex)); e.Exists() {
				return e
			}
		}
		return cue.Value{}
	}
	v = asStruct(v)
	for _, sel := range []cue.Selector{cue.Str(elem).Optional(), cue.Str(elem).Required(), cue.Str(elem), cue.AnyString} {
		if e := v.LookupPath(cue.MakePath(sel)); e.Exists() {
			if elem == "from" && e.IncompleteKind()&cue.StructKind == 0 {
				// An image's from is "#ImageRef | #Image", and CUE does
				// not unroll the recursive #Image here: the base image
				// has the fields of the image it is the base of.
				return v
			}
			return e
		}
	}
	return cue.Value{}
}

// asStruct narrows a value that may be a struct or something else
// (string | #Secret) to its struct alternative.
func asStruct(v cue.Value) cue.Value {
	k := v.IncompleteKind()
	if k&cue.StructKind == 0 || k == cue.StructKind {
		return v
	}
	return v.Unify(emptyStruct())
}

// emptyStruct is "{}"; values of different contexts may be unified.
var emptyStruct = sync.OnceValue(func() cue.Value { return cuecontext.New().CompileString("{}") })

// disjuncts returns a value and the operands of its disjunctions and
// conjunctions, to find the list among "[...T] & list.MinItems(1)".
func disjuncts(v cue.Value) []cue.Value {
	out := []cue.Value{v}
	if op, args := v.Expr(); op == cue.OrOp || op == cue.AndOp {
		for _, a := range args {
			out = append(out, disjuncts(a)...)
		}
	}
	return out
}

func structFields(v cue.Value) []string {
	v = asStruct(v)
	if v.IncompleteKind()&cue.StructKind == 0 {
		return nil
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return nil
	}
	var out []string
	for it.Next() {
		if name := it.Selector().Unquoted(); !strings.HasPrefix(name, "$") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

func isIndex(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func schemaFS(name string) ([]byte, error) { return schema.Files.ReadFile(name) }

// kindOfCollection maps "sandboxes" to "sandbox".
func kindOfCollection(c string) string {
	for _, k := range schema.Kinds {
		if k.Plural() == c {
			return string(k)
		}
	}
	return ""
}

// collectionFromKind maps "sandbox" to "sandboxes".
func collectionFromKind(k string) string {
	if schema.Kind(k).Valid() {
		return schema.Kind(k).Plural()
	}
	return ""
}

// defWhat is the doc of a schema definition by name.
func defWhat(name string) string {
	for _, d := range schemaIndex() {
		if d.name == name {
			return d.what
		}
	}
	return name
}
