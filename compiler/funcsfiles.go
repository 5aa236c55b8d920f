package compiler

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"

	"cc.dev/cc/localfs"
)

// Terraform's path and fileset functions (issue 15). fileset lists only
// files inside the project root, as file reads only them.

var basenameFunc = stringFunc("Takes a string containing a filesystem path and removes all except the last portion from it.", cty.String,
	func(s []string) cty.Value { return cty.StringVal(filepath.Base(s[0])) }, "path")

var dirnameFunc = stringFunc("Takes a string containing a filesystem path and removes the last portion from it.", cty.String,
	func(s []string) cty.Value { return cty.StringVal(filepath.Dir(s[0])) }, "path")

// fileSetFunc is fileset(path, pattern): the regular files under the
// directory path (inside root) whose path from it matches pattern, with
// Terraform's glob syntax (*, ?, [...], {a,b}, ** for any directories).
// cc's state directory is never listed, nor a link that leaves the root.
func fileSetFunc(root string) function.Function {
	return function.New(&function.Spec{
		Description: "Enumerates a set of regular file names given a path and pattern.",
		Params:      stringParams("path", "pattern"),
		Type:        function.StaticReturnType(cty.Set(cty.String)),
		Impl: func(args []cty.Value, _ cty.Type) (cty.Value, error) {
			dir, err := insideRoot(root, args[0].AsString())
			if err != nil {
				return cty.NilVal, function.NewArgError(0, err)
			}
			pattern := path.Clean(filepath.ToSlash(args[1].AsString()))
			pats, err := expandBraces(pattern)
			if err == nil {
				_, err = path.Match(pattern, "")
			}
			if err != nil {
				return cty.NilVal, fmt.Errorf("failed to glob pattern %s: %w", pattern, err)
			}
			names, err := walkMatching(root, dir, pats)
			if err != nil {
				return cty.NilVal, err
			}
			if len(names) == 0 {
				return cty.SetValEmpty(cty.String), nil
			}
			vals := make([]cty.Value, len(names))
			for i, n := range names {
				vals[i] = cty.StringVal(n)
			}
			return cty.SetVal(vals), nil
		},
	})
}

// walkMatching are the regular files under dir whose slash path from dir
// matches one of pats, at most maxElements of them.
func walkMatching(root, dir string, pats [][]string) ([]string, error) {
	var names []string
	localfs.Touch(dir)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := filepath.ToSlash(localfs.RelTo(root, p))
		if d.IsDir() && (rel == localfs.StateDir) {
			return filepath.SkipDir
		}
		localfs.Touch(p)
		if d.IsDir() || !regularInside(root, rel, d) {
			return nil
		}
		name, _ := filepath.Rel(dir, p)
		name = filepath.ToSlash(name)
		if globAny(pats, strings.Split(name, "/")) {
			names = append(names, name)
		}
		if len(names) > maxElements {
			return fmt.Errorf("fileset() matches more than %d files, the limit on a collection", maxElements)
		}
		return nil
	})
	sort.Strings(names)
	return names, err
}

// regularInside reports whether the entry rel (from root) is a regular
// file, or a link to one inside root.
func regularInside(root, rel string, d fs.DirEntry) bool {
	if d.Type().IsRegular() {
		return true
	}
	if d.Type()&fs.ModeSymlink == 0 {
		return false
	}
	abs, err := insideRoot(root, rel)
	if err != nil {
		return false
	}
	localfs.Touch(abs)
	fi, err := os.Stat(abs)
	return err == nil && fi.Mode().IsRegular()
}

// globAny reports whether a slash path, split, matches one of pats.
func globAny(pats [][]string, name []string) bool {
	for _, p := range pats {
		if globMatch(p, name, map[[2]int]bool{}) {
			return true
		}
	}
	return false
}

// globMatch matches path segments against pattern segments: "**" is any
// number of segments, any other one segment as path.Match has it. seen
// holds the (pattern, name) positions already tried, so that many "**"
// cost no more than their product.
func globMatch(pat, name []string, seen map[[2]int]bool) bool {
	key := [2]int{len(pat), len(name)}
	if seen[key] {
		return false
	}
	seen[key] = true
	if len(pat) == 0 {
		return len(name) == 0
	}
	if pat[0] == "**" {
		for i := 0; i <= len(name); i++ {
			if globMatch(pat[1:], name[i:], seen) {
				return true
			}
		}
		return false
	}
	if len(name) == 0 {
		return false
	}
	ok, _ := path.Match(pat[0], name[0])
	return ok && globMatch(pat[1:], name[1:], seen)
}

// maxBraces bounds the patterns a pattern's {a,b} groups expand to.
const maxBraces = 1024

// expandBraces is a pattern's alternatives ({a,b}), each split into its
// segments.
func expandBraces(pattern string) ([][]string, error) {
	todo, done := []string{pattern}, [][]string(nil)
	for len(todo) > 0 {
		p := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		open := strings.IndexByte(p, '{')
		if open < 0 {
			done = append(done, strings.Split(p, "/"))
			continue
		}
		end := strings.IndexByte(p[open:], '}')
		if end < 0 {
			return nil, path.ErrBadPattern
		}
		for _, alt := range strings.Split(p[open+1:open+end], ",") {
			todo = append(todo, p[:open]+alt+p[open+end+1:])
		}
		if len(todo)+len(done) > maxBraces {
			return nil, errors.New("the pattern has more than 1024 alternatives")
		}
	}
	return done, nil
}
