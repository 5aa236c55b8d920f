package schema

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// ErrNotRegular: a path that was to be read names something other than a
// regular file (a FIFO, a device, a socket, a directory). Reading one could
// block for ever or never end, so it is refused before it is opened.
var ErrNotRegular = errors.New("not a regular file")

// TooLargeError: a file is larger than the limit it is read under.
type TooLargeError struct {
	Limit int64
}

func (e *TooLargeError) Error() string { return "is larger than " + FormatSize(e.Limit) }

// OpenRegular opens name for reading when it is a regular file (symbolic
// links followed), and refuses anything else without blocking: the mode is
// checked before opening, and again on the opened file, which is opened
// non-blocking so that a FIFO put in its place meanwhile does not wait for
// a writer.
func OpenRegular(name string) (*os.File, fs.FileInfo, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, nil, err
	}
	if err := regular(fi); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	fi, err = f.Stat()
	if err == nil {
		err = regular(fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

func regular(fi fs.FileInfo) error { return RegularMode(fi.Mode()) }

// RegularMode is nil for a regular file's mode and otherwise an error
// wrapping ErrNotRegular that says what the file is instead.
func RegularMode(m fs.FileMode) error {
	switch {
	case m.IsRegular():
		return nil
	case m.IsDir():
		return fmt.Errorf("is a directory, %w", ErrNotRegular)
	case m&fs.ModeNamedPipe != 0:
		return fmt.Errorf("is a named pipe (FIFO), %w", ErrNotRegular)
	case m&fs.ModeDevice != 0:
		return fmt.Errorf("is a device, %w", ErrNotRegular)
	case m&fs.ModeSocket != 0:
		return fmt.Errorf("is a socket, %w", ErrNotRegular)
	}
	return ErrNotRegular
}

// ReadRegular reads the regular file name (OpenRegular) and refuses, as a
// *TooLargeError, one of more than limit bytes: its size is checked before
// reading, and the read itself stops one byte past the limit, should the
// file grow meanwhile.
func ReadRegular(name string, limit int64) ([]byte, error) {
	f, fi, err := OpenRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &TooLargeError{Limit: limit}
	}
	return b, nil
}

// FormatSize words a size in bytes: "16 MiB", "1.5 GiB", "512 bytes".
func FormatSize(n int64) string {
	units := []string{"KiB", "MiB", "GiB", "TiB"}
	if n < 1024 {
		return fmt.Sprintf("%d bytes", n)
	}
	f, u := float64(n)/1024, 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	if f == float64(int64(f)) {
		return fmt.Sprintf("%d %s", int64(f), units[u])
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}
