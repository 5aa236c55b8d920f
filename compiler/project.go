package compiler

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"cc.dev/cc/diag"
	"cc.dev/cc/localfs"
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
	// read holds what readConfig read, by absolute path.
	read map[string][]byte
	// sensitive holds the strings of sensitive values, to keep out of
	// diagnostics (scrub).
	sensitive map[string]bool
	// shortSensitive are the sensitive strings too short to scrub
	// everywhere, and sensRanges where the configuration's sensitive
	// values are written (sensLocs, until located): a diagnostic there
	// has them scrubbed too (sensitivediag.go).
	shortSensitive map[string]bool
	sensRanges     []*diag.Range
	sensLocs       []sensitiveLocs
	// marked: some value was marked sensitive (noteSensitive).
	marked bool
	// maxSize limits each configuration file's size.
	maxSize int64
	// track records what compilation is doing (nil: not tracked).
	track *tracker
	// sch is the schema to compile against; nil means schema.Default().
	sch *schema.Schema
	// env is the environment compiled for ("" the default), envFile
	// its HCL variable file (or ""), envVars the CC_VAR_name=value
	// pairs and tags the CUE -t values (issue 12, environments.go).
	env     string
	envFile string
	envVars []string
	tags    []string
	// unknownVars: an HCL variable without a value is unknown
	// (Input.UnknownVariables).
	unknownVars bool
	// unknownAt are the expressions whose value was not known (known).
	unknownAt []diag.Range
	// name is the HCL project name once evaluated, when known
	// (Result.Project).
	name string
	// stat is the stat cache of local inputs, or nil (issue 13).
	stat *statCache
}

// schema is the schema the project compiles against.
func (p *project) schema() *schema.Schema {
	if p.sch == nil {
		return schema.Default()
	}
	return p.sch
}

// locate finds the project at path: a directory or one .cue/.hcl file.
// A project is a directory in one language: a directory holding both is
// refused, naming the files of each (mixedLanguages), and so is one file
// named out of several of its language in its directory, which would
// compile without the others' resources (partOfProject); files given as
// varFiles (-var-file) are not configuration files.
func locate(path string, maxSize int64, varFiles ...string) (*project, error) {
	if path == "" {
		path = "."
	}
	touchAbs(path)
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
	localfs.Touch(absDir)
	if p.root, err = filepath.EvalSymlinks(absDir); err != nil {
		return nil, err
	}
	localfs.Touch(p.root)
	if p.single {
		p.files[0] = filepath.Join(p.root, filepath.Base(p.files[0]))
		return p, p.onlyFileOfLanguage(varFiles)
	}
	if err := p.scanDir(path); err != nil {
		return nil, err
	}
	return p, nil
}

// touchAbs passes path, made absolute, to localfs.Touch.
func touchAbs(path string) {
	if a, err := filepath.Abs(path); err == nil {
		path = a
	}
	localfs.Touch(path)
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

// onlyFileOfLanguage refuses the one file the user named when its
// directory holds other files of its language: they are one project, and
// a plan of the one file alone would delete the others' resources. Files
// of the other language are another rendering of the project (as in
// examples/), not part of this one; nor are varFiles.
func (p *project) onlyFileOfLanguage(varFiles []string) error {
	cues, hcls, err := p.configFiles(p.dir, false)
	if err != nil {
		return err
	}
	same := hcls
	if p.lang == "cue" {
		same = cues
	}
	named := filepath.Base(p.files[0])
	var siblings []string
	for _, n := range same {
		if n != named && !isVarFile(filepath.Join(p.root, n), varFiles) {
			siblings = append(siblings, n)
		}
	}
	if len(siblings) == 0 {
		return nil
	}
	return partOfProject(p.dir, named, p.lang, siblings)
}

// isVarFile reports whether the file abs (in the resolved project root)
// is one of the -var-file files.
func isVarFile(abs string, varFiles []string) bool {
	for _, v := range varFiles {
		a, err := filepath.Abs(v)
		if err != nil {
			continue
		}
		localfs.Touch(filepath.Dir(a))
		if dir, err := filepath.EvalSymlinks(filepath.Dir(a)); err == nil && filepath.Join(dir, filepath.Base(a)) == abs {
			return true
		}
	}
	return false
}

// scanDir finds the configuration files of the project directory (named
// path by the user), checking each and their total size, and its
// language: CUE or HCL, not both.
func (p *project) scanDir(path string) error {
	cues, hcls, err := p.configFiles(path, true)
	if err != nil {
		return err
	}
	switch {
	case len(cues) > 0 && len(hcls) > 0:
		return mixedLanguages(path, cues, hcls)
	case len(cues) > 0:
		p.lang = "cue"
	case len(hcls) > 0:
		p.lang = "hcl"
		for _, n := range hcls {
			p.files = append(p.files, filepath.Join(p.root, n))
		}
	default:
		return fmt.Errorf("no .cue or .hcl files in %s", path)
	}
	return nil
}

// configFiles lists the names of the .cue and .hcl files in the project
// root (named path by the user), sorted. With check, each must be a
// regular file under the size limit, and all of them together too.
func (p *project) configFiles(path string, check bool) (cues, hcls []string, err error) {
	localfs.Touch(p.root)
	entries, err := os.ReadDir(p.root)
	if err != nil {
		return nil, nil, err
	}
	var total int64
	for _, e := range entries {
		ext := filepath.Ext(e.Name())
		if e.IsDir() || ext != ".cue" && ext != ".hcl" {
			continue
		}
		localfs.Touch(filepath.Join(p.root, e.Name()))
		fi, err := os.Stat(filepath.Join(p.root, e.Name()))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", filepath.Join(path, e.Name()), unwrapPathError(err))
		}
		if fi.IsDir() {
			continue
		}
		if check {
			if err := p.checkConfigFile(filepath.Join(path, e.Name()), fi); err != nil {
				return nil, nil, err
			}
			// The limit is on the configuration as a whole, too: what it
			// costs to load is the sum of its files.
			if total += fi.Size(); total > p.maxSize {
				return nil, nil, fmt.Errorf("the configuration files in %s are larger than %s together, the limit on a configuration; raise it with --max-config-size", path, schema.FormatSize(p.maxSize))
			}
		}
		if ext == ".cue" {
			cues = append(cues, e.Name())
		} else {
			hcls = append(hcls, e.Name())
		}
	}
	sort.Strings(cues)
	sort.Strings(hcls)
	return cues, hcls, nil
}

// mixedLanguages is the error of a directory (named path) holding both
// CUE and HCL files: at the first file of the language with fewer files
// (the stray ones, CUE on a tie), naming every file of both.
func mixedLanguages(path string, cues, hcls []string) error {
	strays, others := cues, hcls
	if len(hcls) < len(cues) {
		strays, others = hcls, cues
	}
	d := diag.Diagnostic{
		Severity: diag.Error,
		Summary: fmt.Sprintf("%s holds both CUE files (%s) and HCL files (%s): a project is a directory in one language",
			path, strings.Join(cues, ", "), strings.Join(hcls, ", ")),
		Detail:  fmt.Sprintf("move the files of one language out of %s, into a directory of their own (naming one file compiles it alone, and is refused when other files of its language are beside it)", path),
		Subject: fileStart(path, strays[0]),
	}
	for _, n := range append(append([]string{}, strays[1:]...), others...) {
		d.Related = append(d.Related, *fileStart(path, n))
	}
	return &Error{Diagnostics: diag.Diagnostics{&d}}
}

// partOfProject is the error of naming one file (named, in dir) of a
// project of several files of its language (siblings): compiled alone, it
// leaves out the siblings' resources, and a plan of it deletes them.
func partOfProject(dir, named, lang string, siblings []string) error {
	d := diag.Diagnostic{
		Severity: diag.Error,
		Summary: fmt.Sprintf("%s is one of the %d %s files of the project in %s, with %s: compiled alone, it leaves out their resources, and a plan of it would delete them",
			filepath.Join(dir, named), len(siblings)+1, strings.ToUpper(lang), dir, strings.Join(siblings, ", ")),
		Detail:  fmt.Sprintf("name the project's directory, %s, to compile all of its files", dir),
		Subject: fileStart(dir, named),
	}
	for _, n := range siblings {
		d.Related = append(d.Related, *fileStart(dir, n))
	}
	return &Error{Diagnostics: diag.Diagnostics{&d}}
}

// fileStart is the range of the start of the file name in dir.
func fileStart(dir, name string) *diag.Range {
	start := diag.Pos{Line: 1, Col: 1}
	return &diag.Range{File: filepath.Join(dir, name), Start: start, End: start}
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

// readConfig reads a configuration file under the limit (readOnce).
func (p *project) readConfig(abs string) ([]byte, error) {
	b, err := p.readOnce(abs)
	var tl *schema.TooLargeError
	switch {
	case errors.As(err, &tl):
		return nil, p.tooLarge(p.display(abs))
	case err != nil:
		return nil, fmt.Errorf("%s: %w", p.display(abs), unwrapPathError(err))
	}
	return b, nil
}

// readOnce reads a file of the configuration (or a --var-file) under the
// limit, once per compile: a load that runs again (loadHCL), or a module
// used twice, sees the bytes the first read saw.
func (p *project) readOnce(path string) ([]byte, error) {
	if b, ok := p.read[path]; ok {
		return b, nil
	}
	touchAbs(path)
	b, err := schema.ReadRegular(path, p.maxSize)
	if err != nil {
		return nil, err
	}
	if p.read == nil {
		p.read = map[string][]byte{}
	}
	p.read[path] = b
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
	localfs.Touch(filepath.Join(root, schema.LockFile))
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
