package compiler

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"cuelang.org/go/cue"
	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/build"
	"cuelang.org/go/cue/parser"

	"cc.dev/cc/schema"
)

// schemaFile is the prefix of the schema's file names in CUE positions;
// a position in such a file is never the user's.
const schemaFile = "schema/"

// buildSchema builds the schema s in ctx.
func buildSchema(ctx *cue.Context, s *schema.Schema) (cue.Value, error) {
	inst := build.NewContext().NewInstance("schema", nil)
	for _, sf := range s.Files() {
		f, err := parser.ParseFile(schemaFile+sf.Name, sf.Src, parser.ParseComments)
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
