package compiler

import (
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"cuelang.org/go/cue"
	cueerrors "cuelang.org/go/cue/errors"

	"cc.dev/cc/diag"
)

// cueTranslator turns CUE errors into diagnostics a user can act on:
// positioned in the user's file (CUE or HCL), in words about their
// configuration rather than about the schema's internals.
type cueTranslator struct {
	p    *project
	lang string // "cue" or "hcl": the words to use
	loc  locator
	user cue.Value // the user's CUE value, when lang is "cue"
}

type cueErr struct {
	path []string
	msg  string
	err  cueerrors.Error
	cut  bool // path was cut to the unknown field: position it by path
}

var (
	disjunctionRE  = regexp.MustCompile(`^\d+ errors in empty disjunction:?$`)
	mismatchRE     = regexp.MustCompile(`^conflicting values (.+) and (.+) \(mismatched types (\w+) and (\w+)\)$`)
	conflictRE     = regexp.MustCompile(`^conflicting values (.+) and (.+)$`)
	boundRE        = regexp.MustCompile(`^invalid value (.+) \(out of bound (.+)\)$`)
	minItemsRE     = regexp.MustCompile(`^invalid value (.+) \(does not satisfy list\.MinItems\((\d+)\)\)$`)
	undefinedRE    = regexp.MustCompile(`^undefined field: (.+)$`)
	incompleteRE   = regexp.MustCompile(`^incomplete value (.+)$`)
	importFailedRE = regexp.MustCompile(`^import failed: (\S+:\d+:\d+: )?`)
)

func (t *cueTranslator) translate(err error) diag.Diagnostics {
	var errs []cueErr
	for _, e := range cueerrors.Errors(err) {
		format, args := e.Msg()
		path := unquotePath(e.Path())
		if len(path) > 0 && path[0] == "#Config" {
			path = path[1:]
		}
		errs = append(errs, cueErr{path: path, msg: fmt.Sprintf(format, args...), err: e})
	}
	errs = t.unknownFieldsOnce(errs)
	var ds diag.Diagnostics
	var whose []string
	for i := 0; i < len(errs); i++ {
		e := errs[i]
		whose = append(whose, instanceOf(e.path))
		if disjunctionRE.MatchString(e.msg) {
			// The errors of the disjuncts follow, on the same path.
			var subs []cueErr
			for i+1 < len(errs) && pathKey(errs[i+1].path) == pathKey(e.path) && !disjunctionRE.MatchString(errs[i+1].msg) {
				i++
				subs = append(subs, errs[i])
			}
			ds = append(ds, t.disjunction(e, subs))
			continue
		}
		ds = append(ds, t.one(e))
	}
	return nameInstances(ds, whose)
}

// instanceOf is the address of the instance (count, for_each) a path is
// inside ("sandbox.w[1]"), or "".
func instanceOf(path []string) string {
	if len(path) < 3 || !strings.Contains(path[1], "[") {
		return ""
	}
	if k := kindOfCollection(path[0]); k != "" {
		return k + "." + path[1]
	}
	return ""
}

// unknownFieldsOnce rewrites CUE's "field not allowed" errors to name the
// unknown field itself, once. CUE reports a field the schema does not
// allow under each element of its list value (comand.0, comand.1), which
// read as unknown fields "0" and "1" (issue 9 item 13): the path is cut
// after its first element the schema does not know, positioned at that
// field, and the repeats dropped.
func (t *cueTranslator) unknownFieldsOnce(errs []cueErr) []cueErr {
	seen := map[string]bool{}
	out := errs[:0]
	for _, e := range errs {
		if e.msg == "field not allowed" {
			if n := compiledSchema().unknownAt(e.path); n > 0 && n < len(e.path) {
				e.path = e.path[:n]
				e.cut = true
			}
			if seen[pathKey(e.path)] {
				continue
			}
			seen[pathKey(e.path)] = true
		}
		out = append(out, e)
	}
	return out
}

// what names the thing at path for messages: the field's name, or the
// collection entry ("sandbox \"dev\""). Whose instance a field is of is
// said by translate (nameInstances).
func (t *cueTranslator) what(path []string) string {
	if len(path) == 0 {
		return "the configuration"
	}
	if len(path) == 2 {
		if k := kindOfCollection(path[0]); k != "" {
			return fmt.Sprintf("%s %q", k, path[1])
		}
	}
	var b strings.Builder
	for i, e := range path {
		switch {
		case isIndex(e):
			fmt.Fprintf(&b, "[%s]", e)
		case i == 0:
			b.WriteString(e)
		default:
			// Keep the last named element and any indexes after it.
			if i > 0 {
				b.Reset()
			}
			b.WriteString(e)
		}
	}
	return b.String()
}

func (t *cueTranslator) field() string {
	if t.lang == "hcl" {
		return "attribute"
	}
	return "field"
}

func (t *cueTranslator) rangeFor(e cueErr, key bool) (*diag.Range, []diag.Range) {
	var rs []*diag.Range
	if t.lang == "cue" && !e.cut {
		rs = t.p.cuePositions(e.err)
	}
	if len(rs) == 0 && t.loc != nil {
		var r *diag.Range
		if key {
			r = t.loc.key(e.path)
		} else {
			r = t.loc.at(e.path)
		}
		if r != nil {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		return nil, nil
	}
	var related []diag.Range
	for _, r := range rs[1:] {
		related = append(related, *r)
	}
	return rs[0], related
}

// closedByUser words the schema's own field refused by a struct the user
// closed: a definition of theirs does not let the schema fill in its
// defaults (issue 16 item 3).
func (t *cueTranslator) closedByUser(e cueErr) *diag.Diagnostic {
	name := e.path[len(e.path)-1]
	d := &diag.Diagnostic{Severity: diag.Error}
	d.Subject, _ = t.rangeFor(e, true)
	d.Summary = fmt.Sprintf("%s is closed (a definition or close()) and the schema adds %q to it", t.what(e.path[:len(e.path)-1]), name)
	d.Detail = fmt.Sprintf("write it as a plain struct, or declare %s in the definition", name)
	return d
}

func (t *cueTranslator) one(e cueErr) *diag.Diagnostic {
	d := &diag.Diagnostic{Severity: diag.Error}
	what := t.what(e.path)
	switch {
	case e.msg == "field not allowed" && len(e.path) == 2 && kindOfCollection(e.path[0]) != "":
		// A collection's entries are constrained by name only.
		d.Subject, _ = t.rangeFor(e, true)
		d.Summary = fmt.Sprintf("invalid %s name %q: want %s", kindOfCollection(e.path[0]), e.path[1], defWhat("#Name"))
		return d
	case e.msg == "field not allowed" && t.lang == "cue" && len(e.path) > 1 && slices.Contains(compiledSchema().fieldsAt(e.path[:len(e.path)-1]), e.path[len(e.path)-1]):
		return t.closedByUser(e)
	case e.msg == "field not allowed":
		name := e.path[len(e.path)-1]
		d.Subject, _ = t.rangeFor(e, true)
		d.Summary = fmt.Sprintf("unknown %s %q", t.field(), name)
		if len(e.path) == 1 {
			if k := collectionFromKind(name); k != "" && t.lang == "cue" {
				d.Summary += fmt.Sprintf("; did you mean %q?", k)
				return d
			}
		}
		fields := compiledSchema().fieldsAt(e.path[:len(e.path)-1])
		if s := suggestField(e.path[:len(e.path)-1], name); s != "" {
			d.Summary += fmt.Sprintf("; did you mean %q?", s)
			d.Detail = t.listHint(name, s)
		} else if len(fields) > 0 {
			d.Detail = "allowed here: " + strings.Join(fields, ", ")
		}
		return d
	case e.msg == "field is required but not present":
		return t.missingField(e)
	case e.msg == "structural cycle":
		d.Subject, d.Related = t.rangeFor(e, false)
		d.Summary = fmt.Sprintf("%s refers to itself (a reference cycle)", what)
		if t.lang == "cue" {
			if members := cueCycle(t.p, e.path); len(members) > 0 {
				for i := range members {
					coll, name, _ := strings.Cut(members[i].name, ".")
					members[i].name = kindOfCollection(coll) + "." + name
				}
				d.Summary = "reference cycle: " + strings.Join(members.names(), " -> ")
				d.Subject = members[0].rng
				d.Related = members.ranges()
			}
		}
		return d
	}
	d.Subject, d.Related = t.rangeFor(e, false)
	if e.msg == "import failed" {
		// The reason is in the error's text only, after its position.
		d.Summary = "import failed: " + importFailedRE.ReplaceAllString(e.err.Error(), "")
		return d
	}
	if m := undefinedRE.FindStringSubmatch(e.msg); m != nil {
		d.Summary = fmt.Sprintf("reference to undefined %s", strings.Trim(m[1], `"`))
		if base, cands := t.referenceCandidates(d.Subject); base != "" {
			d.Summary = fmt.Sprintf("reference to undefined %s.%s", base, strings.Trim(m[1], `"`))
			if s := suggestName(strings.Trim(m[1], `"`), cands); s != "" {
				d.Summary += fmt.Sprintf("; did you mean %s.%s?", base, s)
			}
		}
		return d
	}
	if len(e.path) == 0 {
		d.Summary = t.describe(e)
	} else {
		d.Summary = what + ": " + t.describe(e)
	}
	return d
}

// missingField is the diagnostic of a required field not present: at the
// struct that lacks it.
func (t *cueTranslator) missingField(e cueErr) *diag.Diagnostic {
	d := &diag.Diagnostic{Severity: diag.Error}
	name := e.path[len(e.path)-1]
	parent := cueErr{path: e.path[:len(e.path)-1], err: e.err}
	if t.lang == "cue" {
		// The error's own positions are in the schema; point at the
		// struct that lacks the field.
		if r := t.loc.key(parent.path); r != nil {
			d.Subject = r
		} else if files := sortedKeys(t.p.sources); len(parent.path) == 0 && len(files) > 0 {
			// The whole configuration, whose position may be in the
			// built-in images' declarations (issue 11): its first
			// file.
			d.Subject = &diag.Range{File: files[0], Start: diag.Pos{Line: 1, Col: 1}, End: diag.Pos{Line: 1, Col: 1}}
		}
	} else {
		d.Subject = t.loc.key(parent.path)
	}
	d.Summary = fmt.Sprintf("%s: missing required %s %q", t.what(parent.path), t.field(), name)
	return d
}

// describe words one non-disjunction error about a value.
func (t *cueTranslator) describe(e cueErr) string {
	if m := mismatchRE.FindStringSubmatch(e.msg); m != nil {
		got, want := m[3], m[4]
		if isSchemaSide(m[1]) && !isSchemaSide(m[2]) {
			got, want = want, got
		}
		return fmt.Sprintf("wrong type: got %s, want %s", kindWord(got), kindWord(want))
	}
	if m := boundRE.FindStringSubmatch(e.msg); m != nil {
		if w := t.schemaWhat(e); w != "" {
			return fmt.Sprintf("invalid value %s: want %s", m[1], w)
		}
		return fmt.Sprintf("invalid value %s: %s", m[1], boundWords(m[2]))
	}
	if m := minItemsRE.FindStringSubmatch(e.msg); m != nil {
		if m[2] == "1" {
			return "must not be empty"
		}
		return fmt.Sprintf("needs at least %s items", m[2])
	}
	if m := incompleteRE.FindStringSubmatch(e.msg); m != nil {
		return fmt.Sprintf("no concrete value (only the constraint %s)", m[1])
	}
	if m := conflictRE.FindStringSubmatch(e.msg); m != nil {
		return fmt.Sprintf("conflicting values %s and %s", m[1], m[2])
	}
	return e.msg
}

// disjunction words the failure of a value against "A | B | ...": the
// most specific of the disjuncts' errors, or the list of what is allowed.
func (t *cueTranslator) disjunction(head cueErr, subs []cueErr) *diag.Diagnostic {
	d := &diag.Diagnostic{Severity: diag.Error}
	what := t.what(head.path)
	var specific []cueErr
	var literals, kinds []string
	var got string
	for _, s := range subs {
		if m := mismatchRE.FindStringSubmatch(s.msg); m != nil {
			g, w := m[3], m[4]
			if isSchemaSide(m[1]) && !isSchemaSide(m[2]) {
				g, w = w, g
			}
			got = g
			kinds = append(kinds, t.kindOf(s, w))
			continue
		}
		if m := conflictRE.FindStringSubmatch(s.msg); m != nil {
			a, b := m[1], m[2]
			if isLiteral(a) && isLiteral(b) {
				// One is the user's value, the other an allowed literal
				// (an enum member or a default).
				lit := b
				if t.isSchemaLiteral(s, a) {
					lit = a
				}
				literals = append(literals, lit)
				continue
			}
		}
		specific = append(specific, s)
	}
	if len(specific) > 0 {
		e := specific[0]
		d.Subject, d.Related = t.rangeFor(e, false)
		d.Summary = what + ": " + t.describe(e)
		return d
	}
	d.Subject, d.Related = t.rangeFor(head, false)
	if len(subs) > 0 && d.Subject == nil {
		d.Subject, d.Related = t.rangeFor(subs[0], false)
	}
	if len(literals) > 0 && got == "" {
		val := userValueOf(subs[0].msg, literals)
		d.Summary = fmt.Sprintf("%s: invalid value %s: want one of %s", what, val, strings.Join(literals, ", "))
		var bare []string
		for _, l := range literals {
			bare = append(bare, strings.Trim(l, `"`))
		}
		if s := diag.Suggest(strings.Trim(val, `"`), bare); s != "" {
			d.Summary += fmt.Sprintf("; did you mean %q?", s)
		}
		return d
	}
	kinds = uniq(append(kinds, literals...))
	d.Summary = fmt.Sprintf("%s: wrong type: got %s, want %s", what, kindWord(got), strings.Join(kinds, " or "))
	return d
}

// kindOf describes the allowed side of a mismatch: a kind word, or for a
// struct the schema definition it is ("a secret").
func (t *cueTranslator) kindOf(e cueErr, kind string) string {
	if kind == "struct" {
		for _, pos := range cueerrors.Positions(e.err) {
			if strings.HasPrefix(pos.Filename(), schemaFile) {
				if def := defAt(pos.Filename(), pos.Line()); def != nil && def.name != "#Config" {
					switch def.name {
					case "#Secret":
						return "a secret reference"
					case "#Image":
						return "an image"
					case "#Function":
						return "a function reference"
					}
				}
			}
		}
	}
	return kindWord(kind)
}

// schemaWhat is the doc of the schema definition whose constraint failed.
func (t *cueTranslator) schemaWhat(e cueErr) string {
	for _, pos := range cueerrors.Positions(e.err) {
		if strings.HasPrefix(pos.Filename(), schemaFile) {
			if def := defAt(pos.Filename(), pos.Line()); def != nil && def.what != "" && def.name != "#Config" {
				// Only a definition that is itself the constraint (a
				// line-sized #Name: =~...) speaks for the value.
				if def.end-def.start <= 1 {
					return def.what
				}
			}
		}
	}
	return ""
}

// isSchemaLiteral reports whether lit, one side of a conflict, was written
// in the schema (an allowed value) rather than by the user.
func (t *cueTranslator) isSchemaLiteral(e cueErr, lit string) bool {
	for _, pos := range cueerrors.Positions(e.err) {
		if strings.HasPrefix(pos.Filename(), schemaFile) {
			if src, err := schemaSource(pos.Filename()); err == nil && pos.Offset() < len(src) {
				if strings.HasPrefix(string(src[pos.Offset():]), lit) {
					return true
				}
			}
		}
	}
	return false
}

// referenceCandidates reads the reference at r ("images.bsae") back from the
// source and lists the fields of what it selects from.
func (t *cueTranslator) referenceCandidates(r *diag.Range) (string, []string) {
	if r == nil || t.lang != "cue" {
		return "", nil
	}
	src := t.p.sources[r.File]
	if src == nil || r.Start.Byte > len(src) {
		return "", nil
	}
	// Walk back over "ident." pairs before the selector.
	i := r.Start.Byte
	if i == 0 || src[i-1] != '.' {
		return "", nil
	}
	j := i - 1
	for j > 0 && isIdentByte(src[j-1]) || j > 0 && src[j-1] == '.' {
		j--
	}
	base := string(src[j : i-1])
	v := t.user.LookupPath(cue.ParsePath(base))
	if !v.Exists() {
		return "", nil
	}
	it, err := v.Fields(cue.Optional(true))
	if err != nil {
		return base, nil
	}
	var names []string
	for it.Next() {
		if it.Selector().IsString() { // not a pattern ([string]: ...)
			names = append(names, it.Selector().Unquoted())
		}
	}
	return base, names
}

func schemaSource(file string) ([]byte, error) {
	return schemaFS(strings.TrimPrefix(file, schemaFile))
}

func isSchemaSide(v string) bool {
	switch v {
	case "string", "int", "number", "float", "bool", "bytes", "null", "struct", "list":
		return true
	}
	return strings.HasPrefix(v, "{") && strings.Contains(v, "?:") || strings.HasPrefix(v, "[...") || strings.HasPrefix(v, "#")
}

func isLiteral(v string) bool {
	if v == "" {
		return false
	}
	if v[0] == '"' || v == "true" || v == "false" || v == "null" {
		return true
	}
	return v[0] == '-' || v[0] >= '0' && v[0] <= '9'
}

// userValueOf picks, from a conflict message, the side that is not one of
// the allowed literals.
func userValueOf(msg string, literals []string) string {
	m := conflictRE.FindStringSubmatch(msg)
	if m == nil {
		return "value"
	}
	for _, l := range literals {
		if l == m[1] {
			return m[2]
		}
	}
	return m[1]
}

func kindWord(k string) string {
	switch k {
	case "struct":
		return "an object"
	case "list":
		return "a list"
	case "int":
		return "an integer"
	case "number", "float":
		return "a number"
	case "bool":
		return "a bool"
	case "string":
		return "a string"
	case "":
		return "another type"
	}
	return k
}

// boundWords rewrites a CUE bound for people: ">0" is "must be > 0".
func boundWords(b string) string {
	switch {
	case strings.HasPrefix(b, "=~"):
		return "must match " + strings.TrimPrefix(b, "=~")
	case strings.HasPrefix(b, "!~"):
		return "must not match " + strings.TrimPrefix(b, "!~")
	case strings.HasPrefix(b, "!="):
		return "must not be " + strings.TrimPrefix(b, "!=")
	}
	for _, op := range []string{">=", "<=", ">", "<"} {
		if strings.HasPrefix(b, op) {
			return fmt.Sprintf("must be %s %s", op, strings.TrimPrefix(b, op))
		}
	}
	return "must satisfy " + b
}

func uniq(ss []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range ss {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// unquotePath turns CUE path selectors ("\"support-quality\"") into plain
// field names.
func unquotePath(path []string) []string {
	out := make([]string, len(path))
	for i, e := range path {
		if len(e) >= 2 && e[0] == '"' {
			if u, err := strconv.Unquote(e); err == nil {
				e = u
			}
		}
		out[i] = e
	}
	return out
}

// listHint is the detail for a singular field name whose suggestion is
// its list (profile: profiles), written in the configuration's language
// (issue 11: one form, no single-string profile); "" otherwise.
func (t *cueTranslator) listHint(name, suggested string) string {
	if suggested != name+"s" {
		return ""
	}
	if t.lang == "cue" {
		return fmt.Sprintf(`%s is a list: %s: ["..."]`, suggested, suggested)
	}
	return fmt.Sprintf(`%s is a list: %s = ["..."]`, suggested, suggested)
}
