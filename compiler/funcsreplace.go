package compiler

import (
	"regexp"
	"strconv"
	"strings"
)

// regexReplaceLen is the length of re.ReplaceAllString(s, tmpl), counted
// without making it: each group a $ of the template names ($1, $name,
// ${name}) is its match's length there, so a template that repeats a
// large group is refused before it is expanded (issue 15: replace with a
// regular expression). The count stops once past maxString.
func regexReplaceLen(re *regexp.Regexp, s, tmpl string) int64 {
	refs, lit := templateRefs(re, tmpl)
	total, last := int64(0), 0
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		total += int64(m[0]-last) + lit
		for _, g := range refs {
			if 2*g+1 < len(m) && m[2*g] >= 0 {
				total += int64(m[2*g+1] - m[2*g])
			}
		}
		last = m[1]
		if total > maxString {
			return total
		}
	}
	return total + int64(len(s)-last)
}

// templateRefs are the group numbers a replacement template refers to, in
// the syntax of regexp.Expand, and the length of its literal text.
func templateRefs(re *regexp.Regexp, tmpl string) (refs []int, lit int64) {
	for {
		i := strings.IndexByte(tmpl, '$')
		if i < 0 || i == len(tmpl)-1 {
			return refs, lit + int64(len(tmpl))
		}
		lit += int64(i)
		tmpl = tmpl[i+1:]
		if tmpl[0] == '$' {
			lit++
			tmpl = tmpl[1:]
			continue
		}
		name, rest, ok := templateName(tmpl)
		if !ok {
			lit++ // a lone $ is kept as it is
			continue
		}
		tmpl = rest
		if n, err := strconv.Atoi(name); err == nil {
			refs = append(refs, n)
		} else if g := re.SubexpIndex(name); g >= 0 {
			refs = append(refs, g)
		}
	}
}

// templateName is the name after a $ ({name} or the longest run of
// letters, digits and underscores) and what follows it.
func templateName(t string) (name, rest string, ok bool) {
	if t[0] == '{' {
		end := strings.IndexByte(t, '}')
		if end < 2 {
			return "", t, false
		}
		return t[1:end], t[end+1:], true
	}
	i := 0
	for i < len(t) && (t[i] == '_' || t[i] >= '0' && t[i] <= '9' || t[i] >= 'a' && t[i] <= 'z' || t[i] >= 'A' && t[i] <= 'Z') {
		i++
	}
	return t[:i], t[i:], i > 0
}
