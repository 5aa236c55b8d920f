// Package diag holds positioned diagnostics: problems in a user's
// configuration, each with the source range it concerns, rendered as text
// (file:line:col, a snippet with the range marked, a did-you-mean) or JSON.
//
// It imports the standard library only, so every other package can use it.
package diag

import (
	"fmt"
	"sort"
	"strings"
)

// Severity says how bad a diagnostic is.
type Severity int

const (
	Error Severity = iota
	Warning
)

func (s Severity) String() string {
	if s == Warning {
		return "warning"
	}
	return "error"
}

// MarshalText renders the severity as "error" or "warning".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Pos is a position in a source file. Line and Col are 1-based; Col counts
// characters (runes), Byte is the 0-based byte offset.
type Pos struct {
	Line int `json:"line"`
	Col  int `json:"column"`
	Byte int `json:"byte"`
}

// Range is a span of one source file. End is exclusive. File is the name to
// show the user (relative to where the user pointed cc).
type Range struct {
	File  string `json:"filename"`
	Start Pos    `json:"start"`
	End   Pos    `json:"end"`
}

// String renders the start of the range as file:line:col.
func (r Range) String() string {
	if r.Start.Line == 0 {
		return r.File
	}
	return fmt.Sprintf("%s:%d:%d", r.File, r.Start.Line, r.Start.Col)
}

// IsZero reports whether r carries no position at all.
func (r Range) IsZero() bool { return r.File == "" && r.Start.Line == 0 }

// Diagnostic is one problem. Summary is a short sentence without a trailing
// period; Detail may say more and suggest a fix; Subject is where it is.
// Extra ranges (for example the first definition of a duplicate) go in Related.
type Diagnostic struct {
	Severity Severity `json:"severity"`
	Summary  string   `json:"summary"`
	Detail   string   `json:"detail,omitempty"`
	Subject  *Range   `json:"range,omitempty"`
	Related  []Range  `json:"related,omitempty"`
	// Omitted, on the last diagnostic of a list that Limit cut short,
	// counts the diagnostics left out; that diagnostic only says so.
	Omitted int `json:"omitted,omitempty"`
}

// Error renders the diagnostic on one line, file:line:col: summary.
func (d *Diagnostic) Error() string {
	var b strings.Builder
	if d.Subject != nil && !d.Subject.IsZero() {
		b.WriteString(d.Subject.String())
		b.WriteString(": ")
	}
	b.WriteString(d.Summary)
	if d.Detail != "" {
		b.WriteString("; ")
		b.WriteString(d.Detail)
	}
	return b.String()
}

// Diagnostics is a list of diagnostics. As an error it is the whole list; a
// nil or empty list is no error.
type Diagnostics []*Diagnostic

// Errorf makes an error diagnostic at rng.
func Errorf(rng *Range, format string, args ...any) *Diagnostic {
	return &Diagnostic{Severity: Error, Summary: fmt.Sprintf(format, args...), Subject: rng}
}

// Append adds diagnostics and returns the list, like append.
func (ds Diagnostics) Append(more ...*Diagnostic) Diagnostics { return append(ds, more...) }

// HasErrors reports whether any diagnostic is an error.
func (ds Diagnostics) HasErrors() bool {
	for _, d := range ds {
		if d.Severity == Error {
			return true
		}
	}
	return false
}

// Err returns ds as an error when it holds an error, or nil.
func (ds Diagnostics) Err() error {
	if !ds.HasErrors() {
		return nil
	}
	return ds
}

func (ds Diagnostics) Error() string {
	lines := make([]string, len(ds))
	for i, d := range ds {
		lines[i] = d.Error()
	}
	return strings.Join(lines, "\n")
}

// MaxShown is how many diagnostics are kept and shown: past a screenful,
// more are noise (random bytes give one per token), so the rest are only
// counted.
const MaxShown = 50

// Limit keeps the first n diagnostics and replaces the rest, when there
// are more, by one that counts them ("and 31862 more errors"). A list
// already limited keeps its count.
func (ds Diagnostics) Limit(n int) Diagnostics {
	if len(ds) <= n || len(ds) == n+1 && ds[n].Omitted > 0 {
		return ds
	}
	out := make(Diagnostics, n, n+1)
	copy(out, ds[:n])
	omitted, errs := 0, false
	for _, d := range ds[n:] {
		if d.Omitted > 0 {
			omitted += d.Omitted
			errs = errs || d.Severity == Error
			continue
		}
		omitted++
		errs = errs || d.Severity == Error
	}
	more := &Diagnostic{Severity: Warning, Omitted: omitted}
	word := "diagnostics"
	if errs {
		more.Severity, word = Error, "errors"
	}
	if omitted == 1 {
		word = strings.TrimSuffix(word, "s")
	}
	more.Summary = fmt.Sprintf("and %d more %s", omitted, word)
	return append(out, more)
}

// Sort orders diagnostics by file, then position, then summary, and drops
// exact duplicates, so output is stable whatever order they were found in.
// Limit's count stays last.
func (ds Diagnostics) Sort() Diagnostics {
	sort.SliceStable(ds, func(i, j int) bool {
		a, b := ds[i], ds[j]
		if (a.Omitted > 0) != (b.Omitted > 0) {
			return b.Omitted > 0
		}
		ra, rb := rangeOf(a), rangeOf(b)
		if ra.File != rb.File {
			return ra.File < rb.File
		}
		if ra.Start.Byte != rb.Start.Byte {
			return ra.Start.Byte < rb.Start.Byte
		}
		if ra.Start.Line != rb.Start.Line {
			return ra.Start.Line < rb.Start.Line
		}
		return a.Summary < b.Summary
	})
	out := ds[:0]
	for i, d := range ds {
		if i > 0 && d.Error() == ds[i-1].Error() {
			continue
		}
		out = append(out, d)
	}
	return out
}

func rangeOf(d *Diagnostic) Range {
	if d.Subject == nil {
		return Range{}
	}
	return *d.Subject
}
