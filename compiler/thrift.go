package compiler

import "errors"

// thriftReader decodes the Thrift compact protocol, as much of it as cc
// needs to read a Parquet footer's schema: struct fields, lists, strings
// and integers, and skipping anything else. Every length is checked
// against what is left, and nesting is bounded.
type thriftReader struct {
	b   []byte
	off int
}

// Compact protocol types.
const (
	thriftStop   = 0
	thriftTrue   = 1
	thriftFalse  = 2
	thriftByte   = 3
	thriftI16    = 4
	thriftI32    = 5
	thriftI64    = 6
	thriftDouble = 7
	thriftBinary = 8
	thriftList   = 9
	thriftSet    = 10
	thriftMap    = 11
	thriftStruct = 12
)

const thriftMaxDepth = 64

// errStopStruct, returned by a field callback, ends the decoding of the
// struct early: its remaining fields are not needed.
var errStopStruct = errors.New("stop")

var errTruncated = errors.New("truncated")

func (r *thriftReader) byte() (byte, error) {
	if r.off >= len(r.b) {
		return 0, errTruncated
	}
	c := r.b[r.off]
	r.off++
	return c, nil
}

func (r *thriftReader) uvarint() (uint64, error) {
	var v uint64
	for shift := 0; shift < 64; shift += 7 {
		c, err := r.byte()
		if err != nil {
			return 0, err
		}
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v, nil
		}
	}
	return 0, errors.New("varint too long")
}

// varint reads a zigzag varint (i16, i32, i64).
func (r *thriftReader) varint() (int64, error) {
	u, err := r.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

func (r *thriftReader) binary() ([]byte, error) {
	n, err := r.uvarint()
	if err != nil {
		return nil, err
	}
	if n > uint64(len(r.b)-r.off) {
		return nil, errTruncated
	}
	b := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return b, nil
}

// listHeader reads a list's (or set's) size and element type.
func (r *thriftReader) listHeader() (int, byte, error) {
	c, err := r.byte()
	if err != nil {
		return 0, 0, err
	}
	n := uint64(c >> 4)
	if n == 15 {
		if n, err = r.uvarint(); err != nil {
			return 0, 0, err
		}
	}
	if n > uint64(len(r.b)-r.off) { // every element takes a byte at least
		return 0, 0, errTruncated
	}
	return int(n), c & 0x0f, nil
}

// structFields reads a struct's fields, calling fn with each field's id
// and type; fn must consume the value (or skip it).
func (r *thriftReader) structFields(depth int, fn func(id int16, typ byte) error) error {
	if depth > thriftMaxDepth {
		return errors.New("nests too deep")
	}
	var id int16
	for {
		c, err := r.byte()
		if err != nil {
			return err
		}
		typ := c & 0x0f
		if typ == thriftStop {
			return nil
		}
		if delta := int16(c >> 4); delta != 0 {
			id += delta
		} else {
			v, err := r.varint()
			if err != nil {
				return err
			}
			id = int16(v)
		}
		if err := fn(id, typ); err != nil {
			if err == errStopStruct {
				return nil
			}
			return err
		}
	}
}

// skip consumes a value of type typ.
func (r *thriftReader) skip(typ byte, depth int) error {
	if depth > thriftMaxDepth {
		return errors.New("nests too deep")
	}
	switch typ {
	case thriftTrue, thriftFalse:
		return nil // in a struct field the value is in the type
	case thriftByte:
		_, err := r.byte()
		return err
	case thriftI16, thriftI32, thriftI64:
		_, err := r.uvarint()
		return err
	case thriftDouble:
		if len(r.b)-r.off < 8 {
			return errTruncated
		}
		r.off += 8
		return nil
	case thriftBinary:
		_, err := r.binary()
		return err
	case thriftList, thriftSet:
		n, et, err := r.listHeader()
		if err != nil {
			return err
		}
		return r.skipN(n, et, et, depth)
	case thriftMap:
		return r.skipMap(depth)
	case thriftStruct:
		return r.structFields(depth+1, func(_ int16, t byte) error { return r.skip(t, depth+1) })
	}
	return errors.New("unknown Thrift type")
}

// skipN skips n elements of a collection, alternating key and value
// types for a map. A boolean element is one byte.
func (r *thriftReader) skipN(n int, kt, vt byte, depth int) error {
	for i := 0; i < n; i++ {
		t := kt
		if i%2 == 1 {
			t = vt
		}
		if t == thriftTrue || t == thriftFalse {
			t = thriftByte
		}
		if err := r.skip(t, depth+1); err != nil {
			return err
		}
	}
	return nil
}

func (r *thriftReader) skipMap(depth int) error {
	n, err := r.uvarint()
	if err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if n > uint64(len(r.b)-r.off) {
		return errTruncated
	}
	c, err := r.byte()
	if err != nil {
		return err
	}
	return r.skipN(2*int(n), c>>4, c&0x0f, depth)
}
