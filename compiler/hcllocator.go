package compiler

import (
	"math"
	"strings"

	"github.com/hashicorp/hcl/v2"

	"cc.dev/cc/diag"
)

// hclLocator maps config paths to HCL source ranges: where each value is
// written and where its name is. A compile records one or more for every
// attribute, block and constructor item, so they are kept compact (issue
// 13: memory per resource): a map from the path to an index into one
// slice of packed ranges, whose file names are interned.
type hclLocator struct {
	index   map[string]int32
	entries []rangeEntry
	files   []string
	fileIdx map[string]uint32
	// wide holds the ranges that do not pack (numbers past 32 bits, two
	// files); it comes first.
	wide      map[string]rangePair
	sensitive [][]string
}

// rangePair is where a value is written and where its name is.
type rangePair struct{ val, key hcl.Range }

// rangeEntry is a rangePair packed: both ranges in one file.
type rangeEntry struct {
	file     uint32
	val, key packedRange
}

// packedRange is an hcl.Range without its file name.
type packedRange struct{ sLine, sCol, sByte, eLine, eCol, eByte uint32 }

func newHCLLocator() *hclLocator {
	return &hclLocator{index: map[string]int32{}, fileIdx: map[string]uint32{}}
}

// reserve makes room for about n more ranges.
func (l *hclLocator) reserve(n int) {
	if n <= len(l.index) {
		return
	}
	index := make(map[string]int32, n)
	for k, v := range l.index {
		index[k] = v
	}
	l.index = index
	l.entries = append(make([]rangeEntry, 0, n), l.entries...)
}

func (l *hclLocator) set(path []string, val, key hcl.Range) {
	l.put(pathKey(path), rangePair{val, key})
}

// put records r at the path key k.
func (l *hclLocator) put(k string, r rangePair) {
	e, ok := l.pack(r)
	if !ok {
		if l.wide == nil {
			l.wide = map[string]rangePair{}
		}
		l.wide[k] = r
		return
	}
	delete(l.wide, k)
	if i, had := l.index[k]; had {
		l.entries[i] = e
		return
	}
	l.index[k] = int32(len(l.entries))
	l.entries = append(l.entries, e)
}

// get is the ranges recorded at the path key k.
func (l *hclLocator) get(k string) (rangePair, bool) {
	if r, ok := l.wide[k]; ok {
		return r, true
	}
	i, ok := l.index[k]
	if !ok {
		return rangePair{}, false
	}
	e := l.entries[i]
	f := l.files[e.file]
	return rangePair{e.val.unpack(f), e.key.unpack(f)}, true
}

// pack packs r; false when it spans two files or a number is too large.
func (l *hclLocator) pack(r rangePair) (rangeEntry, bool) {
	if r.val.Filename != r.key.Filename {
		return rangeEntry{}, false
	}
	v, ok1 := packRange(r.val)
	k, ok2 := packRange(r.key)
	if !ok1 || !ok2 {
		return rangeEntry{}, false
	}
	f, ok := l.fileIdx[r.val.Filename]
	if !ok {
		f = uint32(len(l.files))
		l.files = append(l.files, r.val.Filename)
		l.fileIdx[r.val.Filename] = f
	}
	return rangeEntry{file: f, val: v, key: k}, true
}

func packRange(r hcl.Range) (packedRange, bool) {
	ns := [6]int{r.Start.Line, r.Start.Column, r.Start.Byte, r.End.Line, r.End.Column, r.End.Byte}
	for _, n := range ns {
		if n < 0 || n >= math.MaxUint32 {
			return packedRange{}, false
		}
	}
	return packedRange{uint32(ns[0]), uint32(ns[1]), uint32(ns[2]), uint32(ns[3]), uint32(ns[4]), uint32(ns[5])}, true
}

func (p packedRange) unpack(file string) hcl.Range {
	return hcl.Range{
		Filename: file,
		Start:    hcl.Pos{Line: int(p.sLine), Column: int(p.sCol), Byte: int(p.sByte)},
		End:      hcl.Pos{Line: int(p.eLine), Column: int(p.eCol), Byte: int(p.eByte)},
	}
}

// move gives to the ranges recorded at from and under it.
func (l *hclLocator) move(from, to []string) {
	fk, tk := pathKey(from), pathKey(to)
	var moved []string
	under := func(k string) {
		if rest, ok := strings.CutPrefix(k, fk); ok && (rest == "" || rest[0] == 0) {
			moved = append(moved, rest)
		}
	}
	for k := range l.index {
		under(k)
	}
	for k := range l.wide {
		if _, both := l.index[k]; !both {
			under(k)
		}
	}
	for _, rest := range moved {
		if r, ok := l.get(fk + rest); ok {
			l.put(tk+rest, r)
		}
	}
}

func (l *hclLocator) at(path []string) *diag.Range {
	for n := len(path); n >= 0; n-- {
		if r, ok := l.get(pathKey(path[:n])); ok {
			return toRange(r.val)
		}
	}
	return nil
}

func (l *hclLocator) key(path []string) *diag.Range {
	if r, ok := l.get(pathKey(path)); ok {
		return toRange(r.key)
	}
	return l.at(path)
}
