package compiler

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"cc.dev/cc/schema"
)

// project is where a configuration lives.
type project struct {
	lang string // "cue" or "hcl"
	// root is the absolute project root, symlinks resolved.
	root string
	// dir is the directory as the user named it, for display names.
	dir string
	// files are the configuration files to load (absolute); for CUE a
	// directory load names none and lets cue/load find them.
	files []string
	// single is set when the user named one file.
	single bool
	// sources collects every loaded configuration file by display name.
	sources map[string][]byte
	// sensitive holds the strings of sensitive values, to keep out of
	// diagnostics (scrub).
	sensitive map[string]bool
	// marked: some value was marked sensitive (noteSensitive).
	marked bool
	// maxSize limits each configuration file's size.
	maxSize int64
	// track records what compilation is doing (nil: not tracked).
	track *tracker
	// sch is the schema to compile against; nil means schema.Default().
	sch *schema.Schema
}

// schema is the schema the project compiles against.
func (p *project) schema() *schema.Schema {
	if p.sch == nil {
		return schema.Default()
	}
	return p.sch
}

// locate finds the project at path: a directory or one .cue/.hcl file.
func locate(path string, maxSize int64) (*project, error) {
	if path == "" {
		path = "."
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("no project at %s: %w", path, unwrapPathError(err))
	}
	p := &project{sources: map[string][]byte{}, maxSize: maxSize}
	if !fi.IsDir() {
		if err := p.useFile(path, fi); err != nil {
			return nil, err
		}
	} else {
		p.dir = path
	}
	absDir, err := filepath.Abs(p.dir)
	if err != nil {
		return nil, err
	}
	if p.root, err = filepath.EvalSymlinks(absDir); err != nil {
		return nil, err
	}
	if p.single {
		p.files[0] = filepath.Join(p.root, filepath.Base(p.files[0]))
		return p, nil
	}
	if err := p.scanDir(path); err != nil {
		return nil, err
	}
	return p, nil
}

// useFile makes the one configuration file at path, a .cue or .hcl file,
// the project.
func (p *project) useFile(path string, fi fs.FileInfo) error {
	if err := p.checkConfigFile(path, fi); err != nil {
		return err
	}
	switch filepath.Ext(path) {
	case ".cue":
		p.lang = "cue"
	case ".hcl":
		p.lang = "hcl"
	default:
		return fmt.Errorf("%s: a project file ends in .cue or .hcl", path)
	}
	p.dir = filepath.Dir(path)
	p.single = true
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	p.files = []string{abs}
	return nil
}

// scanDir finds the configuration files of the project directory (named
// path by the user), checking each and their total size, and its
// language: CUE or HCL, not both.
func (p *project) scanDir(path string) error {
	entries, err := os.ReadDir(p.root)
	if err != nil {
		return err
	}
	var cues, hcls []string
	var total int64
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		ext := filepath.Ext(e.Name())
		if ext != ".cue" && ext != ".hcl" {
			continue
		}
		fi, err := os.Stat(filepath.Join(p.root, e.Name()))
		if err != nil {
			return fmt.Errorf("%s: %w", filepath.Join(path, e.Name()), unwrapPathError(err))
		}
		if fi.IsDir() {
			continue
		}
		if err := p.checkConfigFile(filepath.Join(path, e.Name()), fi); err != nil {
			return err
		}
		// The limit is on the configuration as a whole, too: what it
		// costs to load is the sum of its files.
		if total += fi.Size(); total > p.maxSize {
			return fmt.Errorf("the configuration files in %s are larger than %s together, the limit on a configuration; raise it with --max-config-size", path, schema.FormatSize(p.maxSize))
		}
		switch ext {
		case ".cue":
			cues = append(cues, e.Name())
		case ".hcl":
			hcls = append(hcls, filepath.Join(p.root, e.Name()))
		}
	}
	switch {
	case len(cues) > 0 && len(hcls) > 0:
		return fmt.Errorf("%s holds both CUE and HCL files; name the one to use, as in %s",
			path, filepath.Join(path, cues[0]))
	case len(cues) > 0:
		p.lang = "cue"
	case len(hcls) > 0:
		p.lang = "hcl"
		sort.Strings(hcls)
		p.files = hcls
	default:
		return fmt.Errorf("no .cue or .hcl files in %s", path)
	}
	return nil
}

// checkConfigFile refuses, before anything reads it, a configuration file
// that is not a regular file (a FIFO would block the load for ever) or is
// larger than the limit.
func (p *project) checkConfigFile(name string, fi fs.FileInfo) error {
	if err := schema.RegularMode(fi.Mode()); err != nil {
		return fmt.Errorf("%s %w", name, err)
	}
	if fi.Size() > p.maxSize {
		return p.tooLarge(name)
	}
	return nil
}

func (p *project) tooLarge(name string) error {
	return fmt.Errorf("%s is larger than %s, the limit on a configuration file; raise it with --max-config-size", name, schema.FormatSize(p.maxSize))
}

// readConfig reads a configuration file (or -var-file) under the limit.
func (p *project) readConfig(abs string) ([]byte, error) {
	b, err := schema.ReadRegular(abs, p.maxSize)
	var tl *schema.TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, p.tooLarge(p.display(abs))
	case err != nil:
		return nil, fmt.Errorf("%s: %w", p.display(abs), unwrapPathError(err))
	}
	return b, nil
}

// display turns an absolute file name into the name to show: relative to
// the directory the user named, joined to it as the user wrote it.
func (p *project) display(abs string) string {
	if !filepath.IsAbs(abs) {
		return abs
	}
	rel, err := filepath.Rel(p.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(filepath.Join(p.dir, rel))
}

// readLock reads cc.lock from the project root; no file is an empty lock.
func readLock(root string) (*schema.Lock, error) {
	b, err := schema.ReadRegular(filepath.Join(root, schema.LockFile), maxSmallFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &schema.Lock{Version: schema.LockVersion, Bases: map[string]string{}}, nil
	}
	if err != nil {
		return nil, err
	}
	return schema.ParseLock(b)
}

func unwrapPathError(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// pathKey joins a config path for map keys.
func pathKey(path []string) string { return strings.Join(path, "\x00") }
