package compiler

import (
	"path"
	"sort"
	"strconv"
	"strings"

	"cc.dev/cc/schema"
)

// datasetFile is one file of a dataset, after glob expansion, and where
// the entry of files that names it is.
type datasetFile struct {
	rel string
	at  []string
}

// isGlob reports whether a files entry is a pattern.
func isGlob(f string) bool { return strings.ContainsAny(f, "*?[{") }

// datasetFiles expands the dataset's files entries (issue 11): a plain
// path is itself, a glob the files inside the project root it matches, in
// sorted order (fileset's syntax). A glob that matches nothing, or is no
// pattern, is an error at its entry; a file named twice is kept once.
func (b *builder) datasetFiles(entries []string, dpath []string) []datasetFile {
	var out []datasetFile
	seen := map[string]bool{}
	for i, f := range entries {
		at := appendPath(dpath, "files", strconv.Itoa(i))
		names := []string{cleanRel(f)}
		if isGlob(f) {
			names = b.glob(f, at)
		}
		for _, n := range names {
			if !seen[n] {
				seen[n] = true
				out = append(out, datasetFile{rel: n, at: at})
			}
		}
	}
	return out
}

// glob lists the files the pattern matches, sorted; none is an error at at.
func (b *builder) glob(pattern string, at []string) []string {
	clean := path.Clean(pattern)
	pats, err := expandBraces(clean)
	if err == nil {
		_, err = path.Match(clean, "")
	}
	if err != nil {
		b.errorf(at, "dataset files %q is not a valid glob: %v", pattern, err)
		return nil
	}
	names, err := walkMatching(b.p.root, b.p.root, pats)
	if err != nil {
		b.errorf(at, "dataset files %q: %v", pattern, err)
		return nil
	}
	if len(names) == 0 {
		b.errorf(at, "dataset files %q matches no file", pattern)
		return nil
	}
	sort.Strings(names)
	return names
}

// inlineRows is a dataset's inline table as rows: rows as written, or
// columns turned into rows (so both forms of one table are one spec);
// nil for a dataset of files. Columns of unequal length are reported by
// the checker; here a short column leaves its cells out.
func inlineRows(ds *schema.Dataset) []map[string]schema.Scalar {
	if len(ds.Rows) > 0 {
		return ds.Rows
	}
	n := 0
	for _, c := range ds.Columns {
		n = max(n, len(c))
	}
	var rows []map[string]schema.Scalar
	for i := 0; i < n; i++ {
		row := map[string]schema.Scalar{}
		for name, c := range ds.Columns {
			if i < len(c) {
				row[name] = c[i]
			}
		}
		rows = append(rows, row)
	}
	return rows
}
