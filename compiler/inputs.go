package compiler

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"cc.dev/cc/diag"
)

// inputFile hashes one local file named at path, reporting problems there.
func (b *builder) inputFile(rel string, path []string, what string) fileSum {
	s := b.fs.file(rel)
	if s.err != nil {
		b.fileError(s.err, rel, path, what)
		return fileSum{}
	}
	return s
}

func (b *builder) fileError(err error, rel string, path []string, what string) {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		d := b.errorf(path, "%s %s does not exist", what, rel)
		if s := diag.Suggest(filepath.Base(rel), b.fs.siblings(rel)); s != "" {
			d.Summary += fmt.Sprintf("; did you mean %s?", filepath.ToSlash(filepath.Join(filepath.Dir(rel), s)))
		}
	case errors.Is(err, errOutsideRoot):
		d := b.errorf(path, "%s %v", what, err)
		d.Detail = "local inputs must be inside the project root (" + b.p.dir + ")"
	default:
		b.errorf(path, "%s %v", what, err)
	}
}
