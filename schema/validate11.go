package schema

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
)

// Service-side checks of issue 11's spec fields: a dataset's inline rows
// and platform name, a suite's title, an evaluation's scorer extras and
// judge parse mode. The compiler never makes a spec these refuse.

// MaxInlineRows bounds an inline table: a larger one belongs in a file.
const MaxInlineRows = 1000

var (
	columnRE       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)
	platformNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$`)
	scoreNameRE    = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
)

// validateRows checks a dataset's platform name and inline rows: at most
// MaxInlineRows, every row with the same columns, each a column name.
func (s *DatasetSpec) validateRows() error {
	if s.Name != "" && !platformNameRE.MatchString(s.Name) {
		return fmt.Errorf("name %q: not a platform name", s.Name)
	}
	if len(s.Rows) > MaxInlineRows {
		return fmt.Errorf("rows: %d, more than %d", len(s.Rows), MaxInlineRows)
	}
	var first []string
	for i, r := range s.Rows {
		cols := make([]string, 0, len(r))
		for c := range r {
			if !columnRE.MatchString(c) {
				return fmt.Errorf("rows[%d]: %q is not a column name", i, c)
			}
			cols = append(cols, c)
		}
		sort.Strings(cols)
		if i == 0 {
			first = cols
		} else if !slices.Equal(cols, first) {
			return fmt.Errorf("rows[%d]: other columns than rows[0]", i)
		}
	}
	return nil
}

// validateScorers checks what issue 11 added to scorers.
func (s *EvaluationSpec) validateScorers() error {
	for i, sc := range s.Scorers {
		if x := sc.ExternalFunction; x != nil && (x.Name == "") == (x.VersionID == "") {
			return fmt.Errorf("scorers[%d].external_function: want exactly one of name and version_id", i)
		}
		for _, n := range sc.Scores {
			if !scoreNameRE.MatchString(n) {
				return fmt.Errorf("scorers[%d].scores: %q is not a score name", i, n)
			}
		}
		if len(sc.Scores) > 0 && sc.Function == nil && sc.ExternalFunction == nil {
			return fmt.Errorf("scorers[%d].scores: only a function scorer names its scores", i)
		}
		if j := sc.LLMJudge; j != nil && j.Parse != "" && j.Parse != "structured" && j.Parse != "json" {
			return fmt.Errorf("scorers[%d].llm_judge.parse: %q is neither structured nor json", i, j.Parse)
		}
	}
	return nil
}

var errNoTitle = errors.New("title: want one")
