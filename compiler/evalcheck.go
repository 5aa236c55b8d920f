package compiler

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// Checks of issue 11's evaluation and dataset constructs: named scores,
// external scorer functions, judge reply types, prompt placeholders and
// inline tables.

// judgeName reports a judge whose name, after the default
// (schema.DefaultJudgeName), an earlier judge of the evaluation has.
func (c *checker) judgeName(j *schema.LLMJudge, i int, path []string, judges map[string]int) {
	name, at := j.Name, appendPath(path, "scorers", strconv.Itoa(i), "llm_judge", "name")
	if name == "" {
		name, at = schema.DefaultJudgeName, appendPath(path, "scorers", strconv.Itoa(i), "llm_judge")
	}
	k, dup := judges[name]
	if !dup {
		judges[name] = i
		return
	}
	first := appendPath(path, "scorers", strconv.Itoa(k), "llm_judge", "name")
	if j.Name == "" {
		first = first[:len(first)-1]
	}
	d := c.related(at, first, "evaluation %q has two judges named %q", path[1], name)
	if j.Name == "" {
		d.Summary += fmt.Sprintf(" (a judge without a name is named %q); give one a name", schema.DefaultJudgeName)
	}
}

// scorerExtras checks what goes with a scorer's kind: scores only with a
// function, unique; an external function by name or version id.
func (c *checker) scorerExtras(s schema.Scorer, sp []string) {
	if x := s.ExternalFunction; x != nil && (x.Name == "") == (x.VersionID == "") {
		c.errorf(appendPath(sp, "external_function"), "external_function needs exactly one of name or version_id")
	}
	if len(s.Scores) == 0 {
		return
	}
	if s.Function == nil && s.ExternalFunction == nil {
		c.errorf(appendPath(sp, "scores"), "scores names the scores a function scorer returns; this scorer is %s, which returns one", strings.Join(s.Kinds(), ""))
		return
	}
	c.dupes(appendPath(sp, "scores"), s.Scores)
}

// judgeType checks that a reply field's (or list items') type has what it
// needs and nothing another type needs: values with enum, items with
// list, fields with object.
func (c *checker) judgeType(name, typ string, values []string, items *schema.JudgeType, fields []schema.JudgeField, fp []string) {
	for _, need := range []struct {
		field, typ string
		set        bool
	}{{"values", "enum", len(values) > 0}, {"items", "list", items != nil}, {"fields", "object", len(fields) > 0}} {
		switch {
		case typ == need.typ && !need.set:
			c.errorf(fp, "judge field %q is %s: it needs %s", name, typ, need.field)
		case typ != need.typ && need.set:
			c.errorf(appendPath(fp, need.field), "judge field %q: %s goes with type %s, not %s", name, need.field, need.typ, typ)
		}
	}
	if len(values) > 0 {
		c.dupes(appendPath(fp, "values"), values)
	}
	if items != nil {
		c.judgeType(name+"[]", items.Type, items.Values, items.Items, items.Fields, appendPath(fp, "items"))
	}
	seen := map[string]bool{}
	for i := range fields {
		f := &fields[i]
		sub := appendPath(fp, "fields", strconv.Itoa(i))
		if seen[f.Name] {
			c.errorf(appendPath(sub, "name"), "judge field %q is declared twice in %q", f.Name, name)
		}
		seen[f.Name] = true
		c.judgeType(name+"."+f.Name, f.Type, f.Values, f.Items, f.Fields, sub)
	}
}

// placeholderRE finds a prompt's placeholders: {{column}}, spaces allowed
// inside the braces.
var placeholderRE = regexp.MustCompile(`\{\{\s*([^{}]*?)\s*\}\}`)

// prompt reports each placeholder of a judge's prompt that names no input
// column of the judge.
func (c *checker) prompt(j *schema.LLMJudge, path []string) {
	if j.Prompt == "" {
		return
	}
	for _, m := range placeholderRE.FindAllStringSubmatch(j.Prompt, -1) {
		if contains(j.Inputs, m[1]) {
			continue
		}
		d := c.errorf(appendPath(path, "prompt"), "prompt placeholder %s names %q, which is not an input of the judge (inputs: %s)",
			m[0], m[1], strings.Join(j.Inputs, ", "))
		if s := diag.Suggest(m[1], j.Inputs); s != "" {
			d.Summary += fmt.Sprintf("; did you mean %q?", s)
		} else {
			d.Detail = "add the column to inputs, or write the text without {{ }}"
		}
	}
}

// dataset checks that a dataset has exactly one of files, rows and
// columns, and that an inline table is one: every row with the same
// columns, every column of one length.
func (c *checker) dataset(ds *schema.Dataset, path []string) {
	var set []string
	for _, f := range []struct {
		name string
		ok   bool
	}{{"files", len(ds.Files) > 0}, {"rows", len(ds.Rows) > 0}, {"columns", len(ds.Columns) > 0}} {
		if f.ok {
			set = append(set, f.name)
		}
	}
	switch {
	case len(set) == 0:
		c.errorf(path, "dataset %q has no data: give it files, rows or columns", path[1])
	case len(set) > 1:
		c.errorf(appendPath(path, set[1]), "dataset %q has %s; a dataset is one of them", path[1], strings.Join(set, " and "))
	case ds.Format != "" && set[0] != "files":
		c.errorf(appendPath(path, "format"), "dataset %q: format is for files; an inline table has none", path[1])
	}
	c.rows(ds, path)
	c.columns(ds, path)
}

func (c *checker) rows(ds *schema.Dataset, path []string) {
	if len(ds.Rows) > schema.MaxInlineRows {
		c.errorf(appendPath(path, "rows"), "dataset %q has %d inline rows, more than %d: put the table in a file", path[1], len(ds.Rows), schema.MaxInlineRows)
		return
	}
	for i := 1; i < len(ds.Rows); i++ {
		if a, b := sortedKeys(ds.Rows[0]), sortedKeys(ds.Rows[i]); strings.Join(a, ",") != strings.Join(b, ",") {
			c.related(appendPath(path, "rows", strconv.Itoa(i)), appendPath(path, "rows", "0"),
				"dataset %q: row %d has the columns %s, and row 1 has %s; every row has the same columns", path[1], i+1, strings.Join(b, ", "), strings.Join(a, ", "))
		}
	}
}

func (c *checker) columns(ds *schema.Dataset, path []string) {
	names := sortedKeys(ds.Columns)
	for _, n := range names {
		if l := len(ds.Columns[n]); l > schema.MaxInlineRows {
			c.errorf(appendPath(path, "columns", n), "dataset %q has %d inline rows, more than %d: put the table in a file", path[1], l, schema.MaxInlineRows)
			return
		} else if l0 := len(ds.Columns[names[0]]); l != l0 {
			c.related(appendPath(path, "columns", n), appendPath(path, "columns", names[0]),
				"dataset %q: column %s has %d values, and column %s has %d; every column has one value per row", path[1], n, l, names[0], l0)
		}
	}
}
