// Package localfs is cc's one policy for the local files of a project: which
// files are inputs, read by the compiler to hash them, by the BuildKit
// converter to send them and by the applier to upload them.
//
// The rules:
//
//   - Paths are relative to the project root and stay inside it, symbolic
//     links included (Policy.Resolve, Policy.LinkInside).
//   - The root's .ccignore (or, without one, its .dockerignore) excludes
//     files everywhere in the project, with Docker's pattern syntax; .cc/,
//     cc's own state, is always excluded (Policy.Excluded).
//   - A directory input (a copy step's source directory, a from_dockerfile
//     build context) may hold its own .ccignore (or .dockerignore): it
//     excludes more under that directory, on top of the root's, never less
//     (Policy.Dir).
//   - A walk visits entries in lexical order and applies the patterns as
//     BuildKit's file sync (fsutil) does: an excluded directory is entered
//     when an exception ("!pattern") may bring something inside it back.
//   - Only regular files are read; names are UTF-8 (NameUTF8).
//   - A version-control directory, or a directory or top-level file the
//     root's ignore file excludes, is omitted (Policy.Omits): the compile
//     cache keys it by name and type alone, as long as the compilation's
//     Watch counts no read under it (Touch).
package localfs

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/moby/patternmatcher"
	"github.com/moby/patternmatcher/ignorefile"

	"cc.dev/cc/schema"
)

// StateDir is cc's own directory in a project root; it is never an input.
const StateDir = ".cc"

// IgnoreFiles are the names of an ignore file, in order of preference: the
// first that exists is read.
var IgnoreFiles = []string{".ccignore", ".dockerignore"}

// maxIgnoreFile is the limit on an ignore file: more is surely not one.
const maxIgnoreFile = 16 << 20

// Errors of the policy.
var (
	// ErrOutsideRoot: a path leaves the project root.
	ErrOutsideRoot = errors.New("leaves the project root")
	// ErrStateDir: a path is in .cc, cc's own state: its database, the
	// database's key and the compile cache's key are never an input.
	ErrStateDir = errors.New("is in .cc, cc's own state directory, which a configuration cannot read")
	// ErrIgnored: a path is excluded by an ignore file.
	ErrIgnored = errors.New("is excluded by .ccignore")
	// ErrNotUTF8: a file name is not UTF-8. A tree names its entries by
	// UTF-8 paths, and a name that is not one would be changed (its bad
	// bytes replaced by U+FFFD), so two files could get one path.
	ErrNotUTF8 = errors.New("the file name is not UTF-8; rename it (cc names files by UTF-8 paths)")
)

// Policy is the local-files policy of one project root.
type Policy struct {
	root  string
	rules *matcher // the root's ignore file

	mu   sync.Mutex
	dirs map[string]dirEntry
}

type dirEntry struct {
	d   *Dir
	err error
}

// New reads the root's ignore file. root is absolute with its symbolic
// links resolved. An unreadable or malformed ignore file is an error that
// names it.
func New(root string) (*Policy, error) {
	m, err := readIgnore(root, ".")
	if err != nil {
		return nil, err
	}
	return &Policy{root: root, rules: m, dirs: map[string]dirEntry{}}, nil
}

// Root is the project root.
func (p *Policy) Root() string { return p.root }

// Patterns are the root's ignore patterns followed by .cc: the exclude
// patterns of a BuildKit local source rooted at the project root.
func (p *Policy) Patterns() []string {
	return append(append([]string(nil), p.rules.patterns()...), StateDir)
}

// Excluded reports whether rel (relative to the root, slash-separated) is
// excluded by the root's rules: .cc or the root's ignore file.
func (p *Policy) Excluded(rel string) bool {
	if rel == StateDir || strings.HasPrefix(rel, StateDir+"/") {
		return true
	}
	return p.rules.matches(rel)
}

// Resolve resolves rel against the root, symbolic links included, and
// refuses a path that ends up outside it. It returns the absolute path and
// the resolved path relative to the root. A path that does not exist is
// fs.ErrNotExist.
func (p *Policy) Resolve(rel string) (abs, real string, err error) {
	abs, err = Resolve(p.root, rel)
	if err != nil {
		return "", "", err
	}
	return abs, RelTo(p.root, abs), nil
}

// Resolve resolves rel against root (absolute, symbolic links resolved),
// symbolic links included, and refuses a path that ends up outside it
// (ErrOutsideRoot) or in its .cc (ErrStateDir), named or resolved. A path
// that does not exist is fs.ErrNotExist.
func Resolve(root, rel string) (string, error) {
	if filepath.IsAbs(rel) {
		return "", fmt.Errorf("%s: %w (paths are relative to the project root)", rel, ErrOutsideRoot)
	}
	clean := filepath.Clean(rel)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", fmt.Errorf("%s: %w", rel, ErrOutsideRoot)
	}
	if InStateDir(filepath.ToSlash(clean)) {
		return "", fmt.Errorf("%s: %w", rel, ErrStateDir)
	}
	joined := filepath.Join(root, clean)
	Touch(joined)
	abs, err := filepath.EvalSymlinks(joined)
	if err == nil {
		Touch(abs)
	}
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", fmt.Errorf("%s: %w", rel, fs.ErrNotExist)
		}
		return "", fmt.Errorf("%s: %w", rel, unwrapPathError(err))
	}
	if !inside(root, abs) {
		return "", fmt.Errorf("%s: %w (through a symbolic link)", rel, ErrOutsideRoot)
	}
	if InStateDir(RelTo(root, abs)) {
		return "", fmt.Errorf("%s: %w (through a symbolic link)", rel, ErrStateDir)
	}
	return abs, nil
}

// InStateDir reports whether rel (relative to the root, slash-separated)
// is .cc or in it.
func InStateDir(rel string) bool {
	return rel == StateDir || strings.HasPrefix(rel, StateDir+"/")
}

func inside(root, abs string) bool {
	return abs == root || strings.HasPrefix(abs, root+string(filepath.Separator))
}

func (p *Policy) inside(abs string) bool { return inside(p.root, abs) }

// LinkInside refuses a symbolic link at full (rel from the root) whose
// target leaves the root.
func (p *Policy) LinkInside(full, target, rel string) error {
	resolved := target
	if !filepath.IsAbs(resolved) {
		resolved = filepath.Join(filepath.Dir(full), target)
	}
	Touch(resolved)
	if real, err := filepath.EvalSymlinks(resolved); err == nil {
		resolved = real
	}
	Touch(resolved)
	if !p.inside(filepath.Clean(resolved)) {
		return fmt.Errorf("%s: %w (through a symbolic link to %s)", rel, ErrOutsideRoot, target)
	}
	return nil
}

// Open opens the input file rel for reading: inside the root (symbolic
// links resolved), not excluded by the root's rules, a regular file
// (schema.OpenRegular: a FIFO or device is refused without blocking).
func (p *Policy) Open(rel string) (*os.File, fs.FileInfo, error) {
	abs, real, err := p.Resolve(rel)
	if err != nil {
		return nil, nil, err
	}
	if p.Excluded(real) {
		return nil, nil, fmt.Errorf("%s %w", rel, ErrIgnored)
	}
	Touch(abs)
	f, fi, err := schema.OpenRegular(abs)
	if err != nil {
		return nil, nil, fmt.Errorf("%s %w", rel, unwrapPathError(err))
	}
	return f, fi, nil
}

// Readlink reads the target of the symbolic link rel, which must be inside
// the root and not excluded; the link itself is not followed.
func (p *Policy) Readlink(rel string) (string, error) {
	clean := filepath.ToSlash(filepath.Clean(rel))
	dir, real, err := p.Resolve(path.Dir(clean))
	if err != nil {
		return "", err
	}
	name := path.Join(real, path.Base(clean))
	if p.Excluded(name) {
		return "", fmt.Errorf("%s %w", rel, ErrIgnored)
	}
	full := filepath.Join(dir, path.Base(clean))
	Touch(full)
	target, err := os.Readlink(full)
	if err != nil {
		return "", fmt.Errorf("%s: %w", rel, unwrapPathError(err))
	}
	if err := p.LinkInside(full, target, rel); err != nil {
		return "", err
	}
	return target, nil
}

// NameUTF8 refuses a file name that is not UTF-8 (ErrNotUTF8).
func NameUTF8(rel string) error {
	if utf8.ValidString(rel) {
		return nil
	}
	return fmt.Errorf("%q: %w", rel, ErrNotUTF8)
}

// RelTo is abs relative to root, slash-separated.
func RelTo(root, abs string) string {
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// matcher is one ignore file's patterns.
type matcher struct {
	name string // the ignore file, relative to the root; "" for none
	pats []string
	// mu serializes matching: a PatternMatcher compiles each pattern the
	// first time it is used, so concurrent matching would race.
	mu sync.Mutex
	pm *patternmatcher.PatternMatcher
}

func (m *matcher) patterns() []string {
	if m == nil {
		return nil
	}
	return m.pats
}

func (m *matcher) matches(rel string) bool {
	if m == nil || m.pm == nil {
		return false
	}
	m.mu.Lock()
	ok, _ := m.pm.MatchesOrParentMatches(rel)
	m.mu.Unlock()
	return ok
}

// exceptions reports whether a "!pattern" may bring back something under
// an excluded directory.
func (m *matcher) exceptions() bool { return m != nil && m.pm != nil && m.pm.Exclusions() }

// readIgnore reads the ignore file of dir (relative to root): nil when it
// has none.
func readIgnore(root, dir string) (*matcher, error) {
	for _, name := range IgnoreFiles {
		rel := path.Join(dir, name)
		Touch(filepath.Join(root, filepath.FromSlash(rel)))
		b, err := schema.ReadRegular(filepath.Join(root, filepath.FromSlash(rel)), maxIgnoreFile)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s %w", rel, unwrapPathError(err))
		}
		patterns, err := ignorefile.ReadAll(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		pm, err := patternmatcher.New(patterns)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", rel, err)
		}
		return &matcher{name: rel, pats: patterns, pm: pm}, nil
	}
	return nil, nil
}
