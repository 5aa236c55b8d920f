package compiler

// What the HCL loader holds while it evaluates is what a compile's memory
// peaks with (issue 13: at most 20 KiB per resource). A resource's syntax
// tree is needed until the resource is evaluated, not after: its value,
// and the ranges recorded from it, are all that is read later. So each is
// dropped once evaluated, and the top level's tree goes as it is read.

// afterEvaluate, when set (by tests), sees each loader once it has
// evaluated.
var afterEvaluate func(*hclLoader)

// release drops the body of the resource n, evaluated: the block keeps
// its ranges (for a later "defined twice" and the like), not its content.
func (l *hclLoader) release(n node) {
	r := l.resources[n]
	if r == nil || !r.done || r.block == nil {
		return
	}
	b := *r.block
	b.Body = nil
	r.block = &b
}

// reserveRanges makes room in the locator for the ranges a file of size
// bytes records: about one per 16 bytes in a generated project (an
// attribute, a block or a constructor item each); only large files are
// worth it.
func (l *hclLoader) reserveRanges(size int) {
	if size >= 64<<10 {
		l.ranges.reserve(len(l.ranges.index) + size/16)
	}
}
