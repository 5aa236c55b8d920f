package compiler

import (
	"encoding/binary"
	"encoding/json"
	"errors"

	"cc.dev/cc/diag"
	"cc.dev/cc/schema"
)

// The resources of a cached result (issue 13: compile cache) are in a
// compact form of their own rather than gob's: 10,000 of them decode in
// a few milliseconds. Strings are interned (a repeated one is an index),
// specs are slices of the payload, positions come from slabs. Lifecycles,
// rare, go by gob (cachedDesired.Lifecycles).
// TestCachedResourceFields keeps the form in step with schema.Resource.

type resEncoder struct {
	b    []byte
	strs map[string]uint64
}

func (e *resEncoder) uv(x uint64) { e.b = binary.AppendUvarint(e.b, x) }
func (e *resEncoder) iv(x int)    { e.b = binary.AppendVarint(e.b, int64(x)) }

func (e *resEncoder) str(s string) {
	if id, ok := e.strs[s]; ok {
		e.uv(id<<1 | 1)
		return
	}
	e.strs[s] = uint64(len(e.strs))
	e.uv(uint64(len(s)) << 1)
	e.b = append(e.b, s...)
}

// list writes nil as 0, else the length + 1.
func (e *resEncoder) list(ss []string) {
	if ss == nil {
		e.uv(0)
		return
	}
	e.uv(uint64(len(ss)) + 1)
	for _, s := range ss {
		e.str(s)
	}
}

func (e *resEncoder) rng(r *diag.Range) {
	if r == nil {
		e.uv(0)
		return
	}
	e.uv(1)
	e.str(r.File)
	for _, p := range []diag.Pos{r.Start, r.End} {
		e.iv(p.Line)
		e.iv(p.Col)
		e.iv(p.Byte)
	}
}

func (e *resEncoder) resource(r *schema.Resource) {
	e.str(r.Address)
	e.str(string(r.Kind))
	e.str(r.Name)
	e.list(r.Aliases)
	e.str(r.Hash)
	if r.Spec == nil {
		e.uv(0)
	} else {
		e.uv(uint64(len(r.Spec)) + 1)
		e.b = append(e.b, r.Spec...)
	}
	e.list(r.DependsOn)
	e.list(r.Sensitive)
	if r.Inputs == nil {
		e.uv(0)
	} else {
		e.uv(uint64(len(r.Inputs)) + 1)
		for _, in := range r.Inputs {
			e.str(in.Path)
			e.str(in.Digest)
			e.uv(map[bool]uint64{false: 0, true: 1}[in.Tree])
		}
	}
	e.rng(r.Range)
	if r.Ranges == nil {
		e.uv(0)
		return
	}
	e.uv(uint64(len(r.Ranges)) + 1)
	for k, v := range r.Ranges {
		e.str(k)
		e.rng(v)
	}
}

// encodeResources gives the compact form of rs, and their lifecycles by
// index.
func encodeResources(rs []schema.Resource) ([]byte, map[int]*schema.Lifecycle) {
	e := &resEncoder{b: make([]byte, 0, len(rs)*512), strs: map[string]uint64{}}
	lcs := map[int]*schema.Lifecycle{}
	if rs == nil {
		return nil, lcs
	}
	e.uv(uint64(len(rs)))
	for i := range rs {
		e.resource(&rs[i])
		if rs[i].Lifecycle != nil {
			lcs[i] = rs[i].Lifecycle
		}
	}
	return e.b, lcs
}

var errBadCache = errors.New("bad cache entry")

type resDecoder struct {
	b    []byte
	i    int
	strs []string
	slab []diag.Range
	err  error
}

func (d *resDecoder) uv() uint64 {
	x, n := binary.Uvarint(d.b[d.i:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.i += n
	return x
}

func (d *resDecoder) iv() int {
	x, n := binary.Varint(d.b[d.i:])
	if n <= 0 {
		d.fail()
		return 0
	}
	d.i += n
	return int(x)
}

// fail stops the decoding: every read after gives zeros.
func (d *resDecoder) fail() {
	d.err = errBadCache
	d.i = len(d.b)
}

func (d *resDecoder) raw(n uint64) []byte {
	if n > uint64(len(d.b)-d.i) {
		d.fail()
		return nil
	}
	b := d.b[d.i : d.i+int(n) : d.i+int(n)]
	d.i += int(n)
	return b
}

func (d *resDecoder) str() string {
	x := d.uv()
	if x&1 == 1 {
		if x>>1 >= uint64(len(d.strs)) {
			d.fail()
			return ""
		}
		return d.strs[x>>1]
	}
	s := string(d.raw(x >> 1))
	d.strs = append(d.strs, s)
	return s
}

// count reads a length + 1 (0 is nil), refusing one longer than what is
// left to read.
func (d *resDecoder) count() (int, bool) {
	n := d.uv()
	if n == 0 {
		return 0, false
	}
	if n-1 > uint64(len(d.b)-d.i) {
		d.fail()
		return 0, false
	}
	return int(n - 1), true
}

func (d *resDecoder) list() []string {
	n, ok := d.count()
	if !ok {
		return nil
	}
	ss := make([]string, n)
	for i := range ss {
		ss[i] = d.str()
	}
	return ss
}

func (d *resDecoder) rng() *diag.Range {
	if d.uv() == 0 {
		return nil
	}
	if len(d.slab) == 0 {
		d.slab = make([]diag.Range, 1024)
	}
	r := &d.slab[0]
	d.slab = d.slab[1:]
	r.File = d.str()
	for _, p := range []*diag.Pos{&r.Start, &r.End} {
		p.Line, p.Col, p.Byte = d.iv(), d.iv(), d.iv()
	}
	return r
}

func (d *resDecoder) resource(r *schema.Resource) {
	r.Address, r.Kind, r.Name = d.str(), schema.Kind(d.str()), d.str()
	r.Aliases = d.list()
	r.Hash = d.str()
	if n := d.uv(); n > 0 {
		r.Spec = json.RawMessage(d.raw(n - 1))
	}
	r.DependsOn = d.list()
	r.Sensitive = d.list()
	if n, ok := d.count(); ok {
		r.Inputs = make([]schema.Input, n)
		for i := range r.Inputs {
			r.Inputs[i] = schema.Input{Path: d.str(), Digest: d.str(), Tree: d.uv() == 1}
		}
	}
	r.Range = d.rng()
	if n, ok := d.count(); ok {
		r.Ranges = make(map[string]*diag.Range, n)
		for i := 0; i < n && d.err == nil; i++ {
			k := d.str()
			r.Ranges[k] = d.rng()
		}
	}
}

// decodeResources reads encodeResources' form back.
func decodeResources(b []byte, lcs map[int]*schema.Lifecycle) ([]schema.Resource, error) {
	if b == nil {
		return nil, nil
	}
	d := &resDecoder{b: b}
	n := d.uv()
	if d.err != nil || n > uint64(len(b)) {
		return nil, errBadCache
	}
	rs := make([]schema.Resource, n)
	for i := range rs {
		d.resource(&rs[i])
		rs[i].Lifecycle = lcs[i]
		if d.err != nil {
			return nil, d.err
		}
	}
	if d.i != len(b) {
		return nil, errBadCache
	}
	return rs, nil
}
