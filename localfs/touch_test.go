package localfs

import (
	"go/ast"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fileReads are the calls that read the file system: a stat, an open, a
// listing, a walk, a link read or resolved.
var fileReads = map[string]map[string]bool{
	"os":       {"Stat": true, "Lstat": true, "Open": true, "OpenFile": true, "ReadFile": true, "ReadDir": true, "Readlink": true, "DirFS": true},
	"filepath": {"WalkDir": true, "Walk": true, "Glob": true, "EvalSymlinks": true},
	"fs":       {"WalkDir": true, "ReadDir": true, "ReadFile": true, "Glob": true, "Stat": true, "Sub": true},
	"schema":   {"ReadRegular": true, "OpenRegular": true},
}

// notProjectReads are the functions that read the file system but never
// a project's files on a compilation's behalf, and why.
var notProjectReads = map[string]string{
	"compiler/cachekey.go:cueModAbove":   "the directories above the root",
	"compiler/cachekey.go:walkKey":       "the cache key itself",
	"compiler/cachekey.go:linkKey":       "the cache key itself",
	"compiler/cachekey.go:inputKey":      "the -var-files, whose contents are in the key",
	"compiler/cachefile.go:cacheDirKey":  "the cache directory",
	"compiler/cachefile.go:readCacheKey": "the cache directory",
	"compiler/cachefile.go:unseal":       "the cache directory",
	"compiler/cachefile.go:pruneResults": "the cache directory",
	"compiler/cacheversion.go:ccVersion": "cc's own executable",
	"localfs/omitted.go:resolveExisting": "a touched path resolved, to find the root that holds it",
	"compiler/memory.go:MemoryAvailable": "/proc and the cgroup",
}

// TestEveryReadTouches: issue 13: compile cache. The compile cache keys
// a project without the contents of its version-control directories only
// because every read of a project's files passes its path to Touch
// first: in packages compiler and localfs, every function (or function
// literal) that reads the file system passes the path it reads (as
// written) to Touch, or is listed in notProjectReads with the reason it
// reads no project file.
func TestEveryReadTouches(t *testing.T) {
	var bad []string
	seen := map[string]bool{}
	for _, pkg := range []string{"../compiler", "."} {
		names, _ := filepath.Glob(filepath.Join(pkg, "*.go"))
		if len(names) == 0 {
			t.Fatalf("no Go files in %s", pkg)
		}
		for _, name := range names {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			fset := token.NewFileSet()
			f, err := parser.ParseFile(fset, name, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			file := filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(mustAbs(t, name))), filepath.Base(name)))
			for _, decl := range f.Decls {
				fd, ok := decl.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				id := file + ":" + fd.Name.Name
				checkTouches(fset, fd.Body, func(pos token.Pos, call string) {
					if _, ok := notProjectReads[id]; ok {
						seen[id] = true
						return
					}
					bad = append(bad, fset.Position(pos).String()+": "+call+" in "+fd.Name.Name)
				})
			}
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: its path is not passed to Touch (nor is the function in notProjectReads)", b)
	}
	for id := range notProjectReads {
		if !seen[id] {
			t.Errorf("notProjectReads lists %s, which reads nothing (or no longer exists)", id)
		}
	}
}

func mustAbs(t *testing.T, p string) string {
	a, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// checkTouches reports each file-system read in body whose innermost
// function (body itself, or a function literal in it) does not pass the
// path it reads (the read's first argument, as written) to a Touch.
func checkTouches(fset *token.FileSet, body *ast.BlockStmt, report func(token.Pos, string)) {
	touched := touchedPaths(body)
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			checkTouches(fset, n.Body, report)
			return false
		case *ast.CallExpr:
			sel, ok := n.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			pkg, ok := sel.X.(*ast.Ident)
			if !ok || !fileReads[pkg.Name][sel.Sel.Name] {
				return true
			}
			arg := "(no argument)"
			if len(n.Args) > 0 {
				arg = types.ExprString(n.Args[0])
			}
			if !touched[arg] {
				report(n.Pos(), pkg.Name+"."+sel.Sel.Name+"("+arg+")")
			}
		}
		return true
	})
}

// touchedPaths are the arguments, as written, of the calls to Touch,
// localfs.Touch or compiler's touchAbs in body outside its function
// literals.
func touchedPaths(body *ast.BlockStmt) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if len(n.Args) != 1 {
				return true
			}
			switch f := n.Fun.(type) {
			case *ast.Ident:
				if f.Name == "Touch" || f.Name == "touchAbs" {
					out[types.ExprString(n.Args[0])] = true
				}
			case *ast.SelectorExpr:
				if x, ok := f.X.(*ast.Ident); ok && x.Name == "localfs" && f.Sel.Name == "Touch" {
					out[types.ExprString(n.Args[0])] = true
				}
			}
		}
		return true
	})
	return out
}
