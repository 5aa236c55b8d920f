package planner

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// Save writes the plan file to name, readable only by its owner: it holds
// no secret value, but specs and paths are nobody else's business. It is
// written to name.tmp first and renamed, so a reader never sees half of it.
func (f *File) Save(name string) error {
	var b bytes.Buffer
	if err := f.Write(&b); err != nil {
		return err
	}
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, b.Bytes(), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

// LoadFile reads the plan file name (saved by Save or cc plan --out) with
// ReadFile, or says it is not one. It is untrusted input: only a regular
// file is read, and at most MaxFileSize bytes of it. Errors start with
// name (and LINE:COL for a JSON error).
func LoadFile(name string) (*File, error) {
	// Look before opening: opening a FIFO would block until a writer
	// came; the open file is looked at again below.
	if fi, err := os.Stat(name); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	fd, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer fd.Close()
	if fi, err := fd.Stat(); err != nil {
		return nil, err
	} else if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	b, err := io.ReadAll(io.LimitReader(fd, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	f, err := ReadFile(b)
	if err != nil {
		sep := ": "
		if c := err.Error(); c != "" && c[0] >= '0' && c[0] <= '9' {
			sep = ":" // LINE:COL: ...
		}
		return nil, fmt.Errorf("%s%s%w", name, sep, err)
	}
	return f, nil
}
