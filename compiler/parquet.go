package compiler

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
)

// A Parquet file starts and ends with the magic bytes; before the final
// ones stand the footer (FileMetaData, Thrift compact protocol) and its
// length, four bytes little-endian. cc reads only that footer, and of it
// only the schema: the names of the top-level columns. The parquet-go and
// Arrow modules read Parquet whole, with their codecs, for what is a
// hundred lines of Thrift here.
var parquetMagic = []byte("PAR1")

// maxParquetFooter bounds the footer cc reads: a schema of thousands of
// columns is well under it.
const maxParquetFooter = 16 << 20

var errNotParquet = errors.New(`is not a Parquet file: it does not start and end with "PAR1"`)

// parquetColumns reads the names of the top-level columns of the Parquet
// file f of size n.
func parquetColumns(f io.ReaderAt, n int64) ([]string, error) {
	if n < 12 {
		return nil, errNotParquet
	}
	var head [4]byte
	var tail [8]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return nil, err
	}
	if _, err := f.ReadAt(tail[:], n-8); err != nil {
		return nil, err
	}
	if !bytes.Equal(head[:], parquetMagic) || !bytes.Equal(tail[4:], parquetMagic) {
		return nil, errNotParquet
	}
	size := int64(binary.LittleEndian.Uint32(tail[:4]))
	switch {
	case size > n-12:
		return nil, fmt.Errorf("is not a valid Parquet file: its footer length %d is more than the file holds", size)
	case size > maxParquetFooter:
		return nil, fmt.Errorf("has a Parquet footer of %d bytes, more than the %d cc reads", size, maxParquetFooter)
	}
	footer := make([]byte, size)
	if _, err := f.ReadAt(footer, n-8-size); err != nil {
		return nil, err
	}
	cols, err := parquetSchema(footer)
	if err != nil {
		return nil, fmt.Errorf("is not a valid Parquet file: its footer: %w", err)
	}
	return cols, nil
}

// parquetFileColumns opens and reads a Parquet file's columns.
func parquetFileColumns(f *os.File) ([]string, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	return parquetColumns(f, fi.Size())
}

// schemaElement is what cc reads of a Parquet SchemaElement.
type schemaElement struct {
	name     string
	children int
}

// parquetSchema decodes the schema of a FileMetaData (field 2, a list of
// SchemaElement: name is field 4, num_children field 5) and returns the
// top-level column names: the children of the root, the first element,
// each followed by its own subtree.
func parquetSchema(footer []byte) ([]string, error) {
	r := &thriftReader{b: footer}
	var elems []schemaElement
	err := r.structFields(0, func(id int16, typ byte) error {
		if id != 2 || typ != thriftList {
			return r.skip(typ, 0)
		}
		n, et, err := r.listHeader()
		if err != nil {
			return err
		}
		for i := 0; i < n; i++ {
			if et != thriftStruct {
				return errors.New("schema is not a list of structs")
			}
			e, err := r.schemaElement()
			if err != nil {
				return err
			}
			elems = append(elems, e)
		}
		return errStopStruct
	})
	if err != nil {
		return nil, err
	}
	if len(elems) == 0 {
		return nil, errors.New("no schema")
	}
	var cols []string
	i := 1
	for c := 0; c < elems[0].children; c++ {
		if i >= len(elems) {
			return nil, errors.New("schema has fewer elements than its root's children")
		}
		cols = append(cols, elems[i].name)
		if i, err = skipSubtree(elems, i, 0); err != nil {
			return nil, err
		}
	}
	return cols, nil
}

// skipSubtree returns the index after the subtree of elems[i].
func skipSubtree(elems []schemaElement, i, depth int) (int, error) {
	if depth > thriftMaxDepth {
		return 0, errors.New("schema nests too deep")
	}
	n := elems[i].children
	i++
	for c := 0; c < n; c++ {
		if i >= len(elems) {
			return 0, errors.New("schema has fewer elements than its groups' children")
		}
		var err error
		if i, err = skipSubtree(elems, i, depth+1); err != nil {
			return 0, err
		}
	}
	return i, nil
}

func (r *thriftReader) schemaElement() (schemaElement, error) {
	var e schemaElement
	err := r.structFields(1, func(id int16, typ byte) error {
		switch {
		case id == 4 && typ == thriftBinary:
			b, err := r.binary()
			e.name = string(b)
			return err
		case id == 5 && typ == thriftI32:
			v, err := r.varint()
			if err != nil {
				return err
			}
			if v < 0 || v > int64(len(r.b)) {
				return errors.New("num_children out of range")
			}
			e.children = int(v)
			return nil
		}
		return r.skip(typ, 1)
	})
	return e, err
}
