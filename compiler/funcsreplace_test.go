package compiler

import (
	"regexp"
	"testing"
)

// TestRegexReplaceLen: issue 15. The length replace counts before a
// regular expression's replacement is made is the length of what
// ReplaceAllString makes, groups, named groups, $$ and lone $ included.
func TestRegexReplaceLen(t *testing.T) {
	for _, tc := range []struct{ re, s, tmpl string }{
		{`l`, "hello", "L"},
		{`(l)`, "helo", "$1$1"},
		{`(?P<d>\d+)-(\d+)`, "2019-02 and 7-8", "${d}.$2.$d$$x$"},
		{`(a)(b)?`, "aab", "[$1|$2|$3|${1}x]"},
		{`x*`, "abc", "-"},
		{`(.*)`, "abc", "$1$1$1$10$1x"},
		{`b`, "abc", "$"},
	} {
		re := regexp.MustCompile(tc.re)
		want := int64(len(re.ReplaceAllString(tc.s, tc.tmpl)))
		if got := regexReplaceLen(re, tc.s, tc.tmpl); got != want {
			t.Errorf("regexReplaceLen(%s, %q, %q) = %d, want %d", tc.re, tc.s, tc.tmpl, got, want)
		}
	}
}
