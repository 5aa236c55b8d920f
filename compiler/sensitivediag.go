package compiler

import (
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/zclconf/go-cty/cty"

	"cc.dev/cc/diag"
)

// Diagnostics never quote a sensitive value (issue 8 item 7). An error
// about one (a cpu that is not a quantity, a file() of a path that does
// not exist, a tonumber() of a word) is reported at its position, which
// shows the source text (var.p, never the value), with every occurrence of
// the value in its summary and detail replaced by "(sensitive value)":
// quoted or not, in any letter case (lower() and upper() of it too), and
// the values built from it ("key=${var.p}") as well.

// sensitiveText is what replaces a sensitive value in a diagnostic.
const sensitiveText = "(sensitive value)"

// minScrub is the length below which a value is not searched for in
// diagnostic text: a one- or two-character value would match everywhere,
// and tells nothing.
const minScrub = 3

// noteSensitive records the strings of a marked value (and of every marked
// value inside it) to keep out of diagnostics.
//
// Every value marked sensitive is noted where it is made (a sensitive
// variable's value), before anything is built from it: until then no
// value can hold a mark, and the deep walk is skipped.
func (p *project) noteSensitive(v cty.Value) {
	if v.IsMarked() {
		p.marked = true
	} else if !p.marked {
		return
	}
	if !v.ContainsMarked() {
		return
	}
	cty.Walk(v, func(_ cty.Path, x cty.Value) (bool, error) {
		if !x.ContainsMarked() {
			return false, nil
		}
		if x.IsMarked() {
			for _, s := range leafStrings(x) {
				switch {
				case len(s) >= minScrub:
					if p.sensitive == nil {
						p.sensitive = map[string]bool{}
					}
					p.sensitive[s] = true
				case s != "":
					if p.shortSensitive == nil {
						p.shortSensitive = map[string]bool{}
					}
					p.shortSensitive[s] = true
				}
			}
		}
		return true, nil
	})
}

// leafStrings lists the strings and numbers under a value, unmarked.
func leafStrings(v cty.Value) []string {
	v, _ = v.UnmarkDeep()
	var out []string
	cty.Walk(v, func(_ cty.Path, x cty.Value) (bool, error) {
		if x.IsNull() || !x.IsKnown() {
			return false, nil
		}
		switch x.Type() {
		case cty.String:
			out = append(out, x.AsString())
		case cty.Number:
			out = append(out, x.AsBigFloat().Text('f', -1))
		}
		return true, nil
	})
	return out
}

// scrub replaces the sensitive values in the diagnostics' text. A
// diagnostic at a sensitive value (where sensRanges say one is written)
// also has the short ones replaced, as words ("copy source (sensitive
// value) does not exist"), and no suggestion made from the value
// ("; did you mean secrets.txt?").
func (p *project) scrub(ds diag.Diagnostics) diag.Diagnostics {
	if len(p.sensitive) == 0 && len(p.sensRanges) == 0 && len(p.sensLocs) == 0 || len(ds) == 0 {
		return ds
	}
	re := p.scrubber()
	short := p.shortScrubber()
	out := make(diag.Diagnostics, len(ds))
	for i, d := range ds {
		c := *d
		if re != nil {
			c.Summary = re.ReplaceAllLiteralString(c.Summary, sensitiveText)
			c.Detail = re.ReplaceAllLiteralString(c.Detail, sensitiveText)
		}
		if p.atSensitive(c.Subject) {
			if j := strings.Index(c.Summary, "; did you mean"); j >= 0 {
				c.Summary = c.Summary[:j]
			}
			if short != nil {
				c.Summary = short.ReplaceAllLiteralString(c.Summary, sensitiveText)
				c.Detail = short.ReplaceAllLiteralString(c.Detail, sensitiveText)
			}
		}
		out[i] = &c
	}
	return out
}

// shortScrubber matches every short sensitive value, quoted or as a word;
// nil when there is none.
func (p *project) shortScrubber() *regexp.Regexp {
	if len(p.shortSensitive) == 0 {
		return nil
	}
	vals := make([]string, 0, len(p.shortSensitive))
	for s := range p.shortSensitive {
		vals = append(vals, s)
	}
	sort.Strings(vals)
	var alts []string
	for _, s := range vals {
		alts = append(alts, regexp.QuoteMeta(strconv.Quote(s)), `\b`+regexp.QuoteMeta(s)+`\b`)
	}
	re, err := regexp.Compile(`(` + strings.Join(alts, "|") + `)`)
	if err != nil {
		return nil
	}
	return re
}

// noteSensitiveRanges records where the sensitive values at paths are
// written (loc), for scrub: once the configuration is loaded (its checks
// and the build report there), and before CUE's judgement of an HCL
// configuration is worded (a value a sensitive condition chose, "zq", is
// short, and CUE quotes it).
//
// They are located only when a diagnostic is scrubbed (atSensitive): a
// compile without one need not.
func (p *project) noteSensitiveRanges(loc locator, paths [][]string) {
	if len(paths) > 0 {
		p.sensLocs = append(p.sensLocs, sensitiveLocs{loc, paths})
	}
}

// sensitiveLocs are sensitive paths and the locator of where they are
// written.
type sensitiveLocs struct {
	loc   locator
	paths [][]string
}

// atSensitive reports whether r overlaps where a sensitive value is
// written.
func (p *project) atSensitive(r *diag.Range) bool {
	if r == nil {
		return false
	}
	for _, l := range p.sensLocs {
		for _, sp := range l.paths {
			if at := l.loc.at(sp); at != nil {
				p.sensRanges = append(p.sensRanges, at)
			}
		}
	}
	p.sensLocs = nil
	for _, s := range p.sensRanges {
		if s.File == r.File && s.Start.Byte <= r.End.Byte && r.Start.Byte <= s.End.Byte {
			return true
		}
	}
	return false
}

// scrubStrings replaces the sensitive values in strings printed besides
// diagnostics (the base references cc.lock does not pin).
func (p *project) scrubStrings(ss []string) []string {
	re := p.scrubber()
	if re == nil {
		return ss
	}
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = re.ReplaceAllLiteralString(s, sensitiveText)
	}
	return out
}

// scrubber matches every sensitive value, quoted or not, in any case; nil
// when there is none.
func (p *project) scrubber() *regexp.Regexp {
	if len(p.sensitive) == 0 {
		return nil
	}
	vals := make([]string, 0, len(p.sensitive))
	for s := range p.sensitive {
		vals = append(vals, s)
	}
	// Longest first, so a value built from another goes as a whole.
	sort.Slice(vals, func(i, j int) bool {
		return len(vals[i]) > len(vals[j]) || len(vals[i]) == len(vals[j]) && vals[i] < vals[j]
	})
	var alts []string
	for _, s := range vals {
		q := strconv.Quote(s)
		alts = append(alts, regexp.QuoteMeta(q), regexp.QuoteMeta(q[1:len(q)-1]), regexp.QuoteMeta(s))
	}
	re, err := regexp.Compile(`(?i)(` + strings.Join(alts, "|") + `)`)
	if err != nil {
		return nil
	}
	return re
}
