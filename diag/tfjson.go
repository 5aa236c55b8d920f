package diag

import (
	"encoding/json"
	"io"
	"strings"
)

// ValidateDocument is the one JSON document cc validate --json prints, in
// the shape of terraform validate -json (format_version "1.0"), also when
// the configuration is valid.
type ValidateDocument struct {
	FormatVersion string         `json:"format_version"`
	Valid         bool           `json:"valid"`
	ErrorCount    int            `json:"error_count"`
	WarningCount  int            `json:"warning_count"`
	Diagnostics   []ValidateDiag `json:"diagnostics"`
}

// ValidateDiag is one diagnostic of a ValidateDocument. Range and Snippet
// are absent when the diagnostic has no position (or no source to show).
type ValidateDiag struct {
	Severity Severity `json:"severity"`
	Summary  string   `json:"summary"`
	Detail   string   `json:"detail"`
	Range    *Range   `json:"range,omitempty"`
	Snippet  *Snippet `json:"snippet,omitempty"`
}

// Snippet is the source text of a diagnostic's range, as Terraform gives
// it: Code is the whole lines the range covers, from StartLine, and the
// highlight offsets are byte offsets into Code. Context is the header of
// the block the range is in (null when there is none). Values is always
// empty: cc never shows evaluated values in a snippet, so no sensitive
// value can appear there.
type Snippet struct {
	Context              *string `json:"context"`
	Code                 string  `json:"code"`
	StartLine            int     `json:"start_line"`
	HighlightStartOffset int     `json:"highlight_start_offset"`
	HighlightEndOffset   int     `json:"highlight_end_offset"`
	Values               []any   `json:"values"`
}

// SnippetContext names the block around a byte offset of a file, for
// Snippet.Context; "" when there is none.
type SnippetContext func(file string, src []byte, offset int) string

// maxSnippetLines bounds Snippet.Code: a range over a whole block shows
// its first lines.
const maxSnippetLines = 20

// NewValidateDocument builds the document for ds. src gives the text of
// snippets (a file it does not give gets none); ctx, when not nil, names
// the enclosing block; rename, when not nil, gives the filename to print
// for a range's file (cc prints them relative to the project root).
func NewValidateDocument(ds Diagnostics, src Sources, ctx SnippetContext, rename func(string) string) ValidateDocument {
	doc := ValidateDocument{FormatVersion: "1.0", Diagnostics: []ValidateDiag{}}
	for _, d := range ds.Limit(MaxShown) {
		vd := ValidateDiag{Severity: d.Severity, Summary: d.Summary, Detail: d.Detail}
		if d.Severity == Error {
			doc.ErrorCount++
		} else {
			doc.WarningCount++
		}
		if d.Subject != nil && !d.Subject.IsZero() {
			r := *d.Subject
			if src != nil {
				vd.Snippet = snippetOf(r, src(r.File), ctx)
			}
			if rename != nil {
				r.File = rename(r.File)
			}
			vd.Range = &r
		}
		doc.Diagnostics = append(doc.Diagnostics, vd)
	}
	doc.Valid = doc.ErrorCount == 0
	return doc
}

// snippetOf is the snippet of r in text, or nil when text does not hold
// r's lines.
func snippetOf(r Range, text []byte, ctx SnippetContext) *Snippet {
	if len(text) == 0 || r.Start.Line < 1 || r.Start.Byte < 0 || r.Start.Byte > len(text) {
		return nil
	}
	first, ok := lineOf(text, r.Start.Line)
	if !ok {
		return nil
	}
	lineStart := strings.LastIndexByte(string(text[:r.Start.Byte]), '\n') + 1
	if r.Start.Byte-lineStart > len(first) {
		return nil
	}
	lines := []string{first}
	for n := r.Start.Line + 1; n <= r.End.Line && len(lines) < maxSnippetLines; n++ {
		l, ok := lineOf(text, n)
		if !ok {
			break
		}
		lines = append(lines, l)
	}
	code := strings.Join(lines, "\n")
	s := &Snippet{Code: code, StartLine: r.Start.Line, Values: []any{}}
	s.HighlightStartOffset = r.Start.Byte - lineStart
	s.HighlightEndOffset = min(max(r.End.Byte-lineStart, s.HighlightStartOffset), len(code))
	if ctx != nil {
		if c := ctx(r.File, text, r.Start.Byte); c != "" {
			s.Context = &c
		}
	}
	return s
}

// WriteValidateJSON writes doc indented, with a trailing newline.
func WriteValidateJSON(w io.Writer, doc ValidateDocument) error {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
