package compiler

import (
	"regexp"
	"strconv"
	"strings"

	"cc.dev/cc/diag"
)

// A CUE error about an HCL value that is sensitive quotes it ("cpu:
// invalid value "a": want a Kubernetes CPU quantity"). The scrubber
// (sensitivediag.go) replaces a sensitive value of at least minScrub
// characters wherever it appears, which leaves a short one ("a" chosen by
// var.token == "x" ? "1" : "a", a two-digit PIN) in the text. So the
// translator also knows the configuration it judged and its sensitive
// paths, and in a diagnostic about a path at, under or above a sensitive
// one it replaces that value, however short, and drops the suggestion
// made from it ("did you mean ...").

// sensitiveValues are the configuration's sensitive values, by path, that
// a translator redacts (HCL only; CUE has no sensitive values).
type sensitiveValues struct {
	cfg   map[string]any
	paths [][]string
}

// overlapping lists the strings and numbers of the sensitive values at,
// under or above path.
func (s *sensitiveValues) overlapping(path []string) []string {
	if s == nil {
		return nil
	}
	var out []string
	for _, sp := range s.paths {
		if !hasPathPrefix(path, sp) && !hasPathPrefix(sp, path) {
			continue
		}
		var leaves func(v any)
		leaves = func(v any) {
			switch v := v.(type) {
			case string:
				out = append(out, v)
			case map[string]any:
				for _, x := range v {
					leaves(x)
				}
			case []any:
				for _, x := range v {
					leaves(x)
				}
			case int64:
				out = append(out, strconv.FormatInt(v, 10))
			case float64:
				out = append(out, strconv.FormatFloat(v, 'f', -1, 64))
			}
		}
		leaves(valueAtPath(s.cfg, sp))
	}
	return out
}

// redact replaces in d the sensitive values overlapping path, and drops a
// suggestion made from one.
func (s *sensitiveValues) redact(d *diag.Diagnostic, path []string) {
	vals := s.overlapping(path)
	if len(vals) == 0 {
		return
	}
	if i := strings.Index(d.Summary, "; did you mean"); i >= 0 {
		d.Summary = d.Summary[:i]
	}
	for _, v := range vals {
		if v == "" {
			continue
		}
		forms := []string{regexp.QuoteMeta(strconv.Quote(v))}
		if _, err := strconv.ParseFloat(v, 64); err == nil {
			forms = append(forms, `\b`+regexp.QuoteMeta(v)+`\b`)
		} else if len(v) >= minScrub {
			forms = append(forms, regexp.QuoteMeta(v))
		}
		re := regexp.MustCompile(`(?i)(` + strings.Join(forms, "|") + `)`)
		d.Summary = re.ReplaceAllLiteralString(d.Summary, sensitiveText)
		d.Detail = re.ReplaceAllLiteralString(d.Detail, sensitiveText)
	}
}

func hasPathPrefix(p, prefix []string) bool {
	if len(prefix) > len(p) {
		return false
	}
	for i := range prefix {
		if p[i] != prefix[i] {
			return false
		}
	}
	return true
}

// valueAtPath is the value of cfg at path (list indexes as numbers), nil
// when there is none.
func valueAtPath(cfg map[string]any, path []string) any {
	var x any = cfg
	for _, p := range path {
		switch n := x.(type) {
		case map[string]any:
			x = n[p]
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(n) {
				return nil
			}
			x = n[i]
		default:
			return nil
		}
	}
	return x
}
