package compiler

import (
	"fmt"
	"regexp"
	"sync"

	"cuelang.org/go/cue/ast"
	"cuelang.org/go/cue/parser"
	"cuelang.org/go/cue/token"

	"cc.dev/cc/schema"
)

// The fast check: the embedded CUE schema, compiled from its syntax into
// plain Go checks (kinds, literals, regular expressions, bounds, closed
// structs, patterns, lists, disjunctions with defaults), run over plain
// data: HCL's evaluated configuration, or a CUE configuration exported on
// its own.
//
// Its one meaning, in both languages, is CUE's: the configuration unified
// with #Config. Over plain data the fast check is exact: data it accepts
// comes out as unification would give it, defaults filled in, and data it
// refuses goes to CUE itself, which says precisely what is wrong and
// where. HCL's configuration is always plain data. A CUE configuration is
// exported and checked only when the gate (cuegate.go) finds nothing in
// its syntax whose meaning depends on unification with the schema (a
// default, a definition, an optional field, ...); otherwise CUE unifies it
// as the only judge. So CUE stays the judge and the one source of the
// rules, and valid configurations do not pay for a full unification.
//
// The schema compiler refuses any construct it does not model exactly
// (a conjunction of two disjunctions, a default the conjunction
// eliminates, ...), and a test requires it to compile the whole schema.
// Tests and the fuzz targets run both and compare, both ways (crossCheck,
// crosscheck.go).

type kinds uint8

const (
	kString kinds = 1 << iota
	kInt
	kFloat
	kBool
	kStruct
	kList
	kNull
	kNumber = kInt | kFloat
	kAll    = kString | kNumber | kBool | kStruct | kList | kNull
)

type stype struct {
	kinds  kinds
	lit    any // string, float64 or bool
	hasLit bool
	res    []*regexp.Regexp
	nres   []*regexp.Regexp
	bounds []bound
	neq    []any

	// A disjunction: alts, with the default's index or -1.
	alts   []*stype
	defIdx int

	// A reference to a definition, resolved when used (#Image is recursive).
	ref string

	fields   map[string]*sfield
	patterns []spattern
	closed   bool

	prefix   []*stype
	elem     *stype
	open     bool
	minItems int
	// any is CUE's _: every value, a list of anything too.
	any bool
}

type sfield struct {
	t        *stype
	optional bool
	required bool
}

type spattern struct {
	key *stype
	t   *stype
}

type bound struct {
	op      token.Token
	num     float64
	sibling string // compare with this field of the same struct
}

// fastSchema is the compiled schema; err says why it could not be.
type fastSchema struct {
	defs map[string]*stype
	// pending are the definitions being compiled, not known yet.
	pending map[string]bool
	err     error
}

// compiledSchema is the embedded schema, compiled.
func compiledSchema() *fastSchema { return compiledSchemaOf(schema.Default()) }

var fastSchemas sync.Map // *schema.Schema → *fastSchema

// compiledSchemaOf compiles the schema s, once.
func compiledSchemaOf(s *schema.Schema) *fastSchema {
	if fs, ok := fastSchemas.Load(s); ok {
		return fs.(*fastSchema)
	}
	var srcs []schemaText
	for _, sf := range s.Files() {
		srcs = append(srcs, schemaText{name: schemaFile + sf.Name, src: sf.Src})
	}
	fs, _ := fastSchemas.LoadOrStore(s, newFastSchema(srcs))
	return fs.(*fastSchema)
}

// schemaText is one file of a schema, for newFastSchema.
type schemaText struct {
	name string
	src  []byte
}

// newFastSchema compiles the top-level fields of a schema's files; the
// result's err says why it could not.
func newFastSchema(srcs []schemaText) *fastSchema {
	fs := &fastSchema{defs: map[string]*stype{}, pending: map[string]bool{}}
	var decls []*ast.Field
	for _, s := range srcs {
		f, err := parser.ParseFile(s.name, s.src)
		if err != nil {
			fs.err = err
			return fs
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.Field); ok {
				decls = append(decls, fd)
			}
		}
	}
	for _, fd := range decls {
		name, _, _ := ast.LabelName(fd.Label)
		fs.defs[name] = &stype{}
		fs.pending[name] = true
	}
	for _, fd := range decls {
		name, _, _ := ast.LabelName(fd.Label)
		t, err := fs.compile(fd.Value)
		if err != nil {
			fs.err = fmt.Errorf("%s: %w", name, err)
			return fs
		}
		*fs.defs[name] = *t
		delete(fs.pending, name)
	}
	return fs
}
