package localfs

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Dir is the rule for one directory input: the root's rules, plus the
// directory's own ignore file, if it has one, for what is under it. A
// path is excluded when either excludes it.
type Dir struct {
	p   *Policy
	rel string   // the directory, resolved, relative to the root; "." for the root
	own *matcher // its own ignore file; nil for none, and for the root (whose is the root's)
}

// Dir is the rule for the directory input rel (resolved, relative to the
// root).
func (p *Policy) Dir(rel string) (*Dir, error) {
	rel = path.Clean(filepath.ToSlash(rel))
	p.mu.Lock()
	e, ok := p.dirs[rel]
	p.mu.Unlock()
	if ok {
		return e.d, e.err
	}
	d := &Dir{p: p, rel: rel}
	var err error
	if rel != "." {
		d.own, err = readIgnore(p.root, rel)
	}
	if err != nil {
		d = nil
	}
	p.mu.Lock()
	p.dirs[rel] = dirEntry{d, err}
	p.mu.Unlock()
	return d, err
}

// Excluded reports whether rel (relative to the root, under the directory)
// is excluded.
func (d *Dir) Excluded(rel string) bool {
	if d.p.Excluded(rel) {
		return true
	}
	if d.own == nil {
		return false
	}
	r, ok := d.under(rel)
	return ok && r != "." && d.own.matches(r)
}

// under is rel relative to the directory, when it is under it.
func (d *Dir) under(rel string) (string, bool) {
	if d.rel == "." {
		return rel, true
	}
	if rel == d.rel {
		return ".", true
	}
	r, ok := strings.CutPrefix(rel, d.rel+"/")
	return r, ok
}

// prune reports whether an excluded directory can be skipped whole: no
// exception of a rule that excludes it may bring anything back. (A
// directory that one rule excludes without exceptions stays excluded
// whatever the other says.)
func (d *Dir) prune(rel string) bool {
	if rel == StateDir || strings.HasPrefix(rel, StateDir+"/") {
		return true
	}
	if d.p.rules.matches(rel) && !d.p.rules.exceptions() {
		return true
	}
	if d.own != nil {
		if r, ok := d.under(rel); ok && r != "." && d.own.matches(r) && !d.own.exceptions() {
			return true
		}
	}
	return false
}

// WalkFunc is called for each entry a walk keeps: rel is its path from the
// root, abs its absolute path.
type WalkFunc func(rel, abs string, d fs.DirEntry) error

// Walk visits, in lexical order, the entries under the directory input
// that the rule keeps (directories included), after checking that every
// name met is UTF-8 and that every symbolic link kept stays inside the
// root. abs is the directory's absolute path; the directory itself is not
// passed to fn.
func (d *Dir) Walk(abs string, fn WalkFunc) error {
	Touch(abs)
	return filepath.WalkDir(abs, func(full string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel := RelTo(d.p.root, full)
		if err := NameUTF8(rel); err != nil {
			return err
		}
		if full == abs {
			return nil // touched before the walk
		}
		if d.Excluded(rel) {
			if e.IsDir() && d.prune(rel) {
				return filepath.SkipDir
			}
			if e.IsDir() {
				Touch(full) // entered for an exception
			}
			return nil
		}
		Touch(full)
		if e.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(full)
			if err != nil {
				return err
			}
			if err := d.p.LinkInside(full, target, rel); err != nil {
				return err
			}
		}
		return fn(rel, full, e)
	})
}

// ContextExcludes are the exclude patterns of a BuildKit local source
// rooted at the directory (a from_dockerfile build context) that make it
// send exactly what Walk keeps: for the root, the root's patterns and .cc;
// otherwise the directory's own patterns and the root's moved under the
// directory (rebase), in the order that keeps "either excludes": the file
// without exceptions last, since it can only add. When the root's
// patterns cannot be moved exactly, or both files have exceptions, the
// paths under the directory that the root's rules exclude are listed as
// literal patterns instead, last. abs is the directory's absolute path.
func (d *Dir) ContextExcludes(abs string) ([]string, error) {
	if d.rel == "." {
		return d.p.Patterns(), nil
	}
	own := d.own.patterns()
	if moved, ok := rebase(d.p.rules.patterns(), d.rel); ok {
		switch {
		case !d.p.rules.exceptions():
			return append(append([]string(nil), own...), moved...), nil
		case !d.own.exceptions():
			return append(moved, own...), nil
		}
	}
	lits, err := literals(abs, d.p.root, d.rel, d.p.Excluded, d.p.rules.exceptions())
	if err != nil {
		return nil, err
	}
	return append(append([]string(nil), own...), lits...), nil
}

// rebase moves patterns over paths from the root to patterns over paths
// from dir (not "."), exactly, when each is of a form that allows it:
// literal leading components that name dir (the rest is kept), a literal
// component off dir's path or a single component without "**" (the
// pattern is dropped: nothing under dir matches it), or "**/" and one
// component (kept as it is). Any other form
// is false. (A pattern that matches dir or a parent of it is of no concern:
// such a directory is excluded, and the compiler refuses it.)
func rebase(patterns []string, dir string) ([]string, bool) {
	dirs := strings.Split(dir, "/")
	out := []string{}
	for _, p := range patterns {
		body, neg := strings.CutPrefix(p, "!")
		parts := strings.Split(body, "/")
		if len(parts) == 1 && !strings.Contains(body, "**") && body != "." {
			// One component matches only top-level paths ("*.env"),
			// never one under dir.
			continue
		}
		if parts[0] == "**" {
			if len(parts) != 2 || strings.Contains(parts[1], "**") || parts[1] == "." {
				return nil, false
			}
			out = append(out, p)
			continue
		}
		rest, keep, ok := under(parts, dirs)
		if !ok {
			return nil, false
		}
		if !keep {
			continue
		}
		if neg {
			rest = "!" + rest
		}
		out = append(out, rest)
	}
	return out, true
}

// under strips dirs from a pattern's leading literal components: the
// rest, or keep false when a literal component leaves dirs' path; ok false
// when a pattern character comes first or the pattern ends within dirs.
func under(parts, dirs []string) (rest string, keep, ok bool) {
	for i, d := range dirs {
		if i >= len(parts) || parts[i] == "." || strings.ContainsAny(parts[i], `*?[]\^`) {
			return "", false, false
		}
		if parts[i] != d {
			return "", false, true
		}
	}
	if len(parts) == len(dirs) {
		return "", false, false
	}
	return strings.Join(parts[len(dirs):], "/"), true, true
}

// RootExcludes are the exclude patterns of a BuildKit local source rooted
// at the project root, narrowed to the directory (a copy step's source),
// that make it send exactly what Walk keeps: the root's patterns and .cc,
// and the directory's own patterns moved under it (prefixed), the file
// without exceptions last, since it can only add. When both have
// exceptions, the paths under the directory its own file excludes are
// listed as literal patterns instead, last. abs is the directory's
// absolute path.
func (d *Dir) RootExcludes(abs string) ([]string, error) {
	out := d.p.Patterns()
	if d.own == nil {
		return out, nil
	}
	var moved []string
	for _, p := range d.own.patterns() {
		body, neg := strings.CutPrefix(p, "!")
		q := Literal(d.rel) + "/" + body
		if neg {
			q = "!" + q
		}
		moved = append(moved, q)
	}
	switch {
	case !d.own.exceptions():
		return append(out, moved...), nil
	case !d.p.rules.exceptions():
		return append(moved, out...), nil
	}
	own := func(rel string) bool {
		r, ok := d.under(rel)
		return ok && r != "." && d.own.matches(r)
	}
	lits, err := literals(abs, d.p.root, ".", own, d.own.exceptions())
	if err != nil {
		return nil, err
	}
	return append(out, lits...), nil
}

// literals walks abs and lists, as literal patterns relative to base
// (relative to the root), the entries excluded says are excluded: a whole
// directory when nothing in it can come back (no exceptions), else each
// excluded entry that is not a directory.
func literals(abs, root, base string, excluded func(rel string) bool, exceptions bool) ([]string, error) {
	var out []string
	Touch(abs)
	err := filepath.WalkDir(abs, func(full string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if full == abs {
			return nil // touched before the walk
		}
		rel := RelTo(root, full)
		if !excluded(rel) {
			Touch(full)
			return nil
		}
		name := rel
		if base != "." {
			name = strings.TrimPrefix(rel, base+"/")
		}
		if strings.TrimSpace(name) != name {
			// BuildKit trims a pattern's spaces: no pattern names it.
			return fmt.Errorf("%q: an excluded name that starts or ends with a space cannot be left out of a build context; rename it", rel)
		}
		switch {
		case e.IsDir() && !exceptions:
			out = append(out, Literal(name))
			return filepath.SkipDir
		case e.IsDir():
			Touch(full)
			return nil
		}
		Touch(full)
		out = append(out, Literal(name))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", RelTo(root, abs), unwrapPathError(err))
	}
	return out, nil
}

// Literal is a pattern that matches exactly the path p: its pattern
// characters escaped, and a leading "!" too.
func Literal(p string) string {
	var b strings.Builder
	for i, r := range p {
		if strings.ContainsRune(`*?[]\^`, r) || (i == 0 && r == '!') {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
