package compiler

import (
	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// hclsyntax.ParseConfig spends most of its time in its lexer: a token
// slice for the whole file, columns counted in grapheme clusters, every
// string copied and normalised. Configurations are mostly plain: blocks,
// attributes, quoted strings and simple templates, numbers, lists, maps,
// references, calls and operators. For those, fastParseConfig reads the
// bytes once and builds the very nodes hclsyntax builds, with the same
// ranges, in slabs; on anything else (a template directive or strip
// marker, a heredoc, a for or splat expression, a legacy index "a.0", a
// byte outside printable ASCII, any syntax error) it gives up at once
// and the caller parses with hclsyntax, which stays the authority and the
// only source of diagnostics. In ASCII a grapheme cluster is a byte and
// hclsyntax counts a tab as one column, so a column is the offset in its
// line plus one.

// fastMaxDepth bounds the nesting of blocks and expressions
// fastParseConfig follows, so that no input can exhaust its stack.
const fastMaxDepth = 100

// fastParser is the state of one fastParseConfig: where it reads, the line
// it is on, the last token it read, and the slabs nodes come from.
type fastParser struct {
	src  []byte
	str  string // src as one string, which names and values are cut from
	file string
	i    int     // offset of the next byte to read
	line int     // the line of src[i]
	col0 int     // the offset of column 1 of line (below 0 on a first line that starts past column 1)
	base int     // the byte offset of src[0] in the file
	prev hcl.Pos // the end of the last token read (hclsyntax's PrevRange)

	depth int
	exprs []hclsyntax.Expression // items of the collections being read
	items []hclsyntax.ObjectConsItem
	block []*hclsyntax.Block
	steps []hcl.Traverser

	bodies   fastSlab[hclsyntax.Body]
	attrs    fastSlab[hclsyntax.Attribute]
	blocks   fastSlab[hclsyntax.Block]
	lits     fastSlab[hclsyntax.LiteralValueExpr]
	tmpls    fastSlab[hclsyntax.TemplateExpr]
	wraps    fastSlab[hclsyntax.TemplateWrapExpr]
	travs    fastSlab[hclsyntax.ScopeTraversalExpr]
	rels     fastSlab[hclsyntax.RelativeTraversalExpr]
	indexes  fastSlab[hclsyntax.IndexExpr]
	tuples   fastSlab[hclsyntax.TupleConsExpr]
	objs     fastSlab[hclsyntax.ObjectConsExpr]
	keys     fastSlab[hclsyntax.ObjectConsKeyExpr]
	calls    fastSlab[hclsyntax.FunctionCallExpr]
	conds    fastSlab[hclsyntax.ConditionalExpr]
	binops   fastSlab[hclsyntax.BinaryOpExpr]
	unops    fastSlab[hclsyntax.UnaryOpExpr]
	parenArr fastSlab[hclsyntax.ParenthesesExpr]
	exprArr  fastSlab[hclsyntax.Expression]
	itemArr  fastSlab[hclsyntax.ObjectConsItem]
	blkArr   fastSlab[*hclsyntax.Block]
	stepArr  fastSlab[hcl.Traverser]
}

// fastParseConfig parses src as hclsyntax.ParseConfig(src, filename,
// start) does, when src keeps to the plain subset it knows: ok only when
// the body is deeply equal to hclsyntax's and hclsyntax reports no
// diagnostic at all. Otherwise it returns nil and false, soon, and the
// caller parses with hclsyntax. A panic, which would be a bug of
// fastParse, is a refusal too.
func fastParseConfig(src []byte, filename string, start hcl.Pos) (body *hclsyntax.Body, ok bool) {
	defer func() {
		if recover() != nil {
			body, ok = nil, false
		}
	}()
	return fastParse(src, filename, start)
}

// fastParse is fastParseConfig without the recover, for the tests.
func fastParse(src []byte, filename string, start hcl.Pos) (*hclsyntax.Body, bool) {
	if start.Line < 1 || start.Column < 1 {
		return nil, false
	}
	p := &fastParser{src: src, str: string(src), file: filename, line: start.Line,
		col0: 1 - start.Column, base: start.Byte}
	return p.body(nil)
}

// fastSlab hands out Ts from chunks it allocates, the first of one T and
// each twice the last up to a bound, so that a small file stays small.
type fastSlab[T any] struct {
	buf  []T
	next int
}

// one is a new zero T.
func (s *fastSlab[T]) one() *T {
	if len(s.buf) == 0 {
		s.grow(1)
	}
	x := &s.buf[0]
	s.buf = s.buf[1:]
	return x
}

// many is a new slice of n zero Ts, its capacity n (so that an append to
// it never writes into the slab).
func (s *fastSlab[T]) many(n int) []T {
	if n > len(s.buf) {
		if n > 64 {
			return make([]T, n)
		}
		s.grow(n)
	}
	x := s.buf[:n:n]
	s.buf = s.buf[n:]
	return x
}

// grow replaces the chunk with a new one, of at least n.
func (s *fastSlab[T]) grow(n int) {
	s.next = min(max(2*s.next, 1), 1024)
	s.buf = make([]T, max(s.next, n))
}

// pos is the position of src[i], which is on the current line.
func (p *fastParser) pos(i int) hcl.Pos {
	return hcl.Pos{Line: p.line, Column: i - p.col0 + 1, Byte: p.base + i}
}

// rng is the range of src[a:b], on the current line.
func (p *fastParser) rng(a, b int) hcl.Range {
	return hcl.Range{Filename: p.file, Start: p.pos(a), End: p.pos(b)}
}

// tok reads the n bytes at i as one token and returns its range.
func (p *fastParser) tok(n int) hcl.Range {
	r := p.rng(p.i, p.i+n)
	p.i += n
	p.prev = r.End
	return r
}

// between is hcl.RangeBetween of two positions.
func (p *fastParser) between(a, b hcl.Pos) hcl.Range {
	return hcl.Range{Filename: p.file, Start: a, End: b}
}

// at says whether the next byte is c.
func (p *fastParser) at(c byte) bool { return p.i < len(p.src) && p.src[p.i] == c }

// peek2 is the byte after the next one, or 0.
func (p *fastParser) peek2() byte {
	if p.i+1 < len(p.src) {
		return p.src[p.i+1]
	}
	return 0
}

// fastIdentStart and fastIdentChar are the ASCII bytes an HCL identifier
// starts with and goes on with (ID_Start or '_', then ID_Continue or '-').
func fastIdentStart(c byte) bool { return c == '_' || (c|0x20 >= 'a' && c|0x20 <= 'z') }

func fastIdentChar(c byte) bool {
	return fastIdentStart(c) || c == '-' || (c >= '0' && c <= '9')
}

// fastCommentByte says whether a comment may hold c: printable ASCII,
// a tab or a newline.
func fastCommentByte(c byte) bool { return (c >= ' ' && c < 0x7f) || c == '\t' || c == '\n' }

// ident reads an identifier and returns its name and range.
func (p *fastParser) ident() (string, hcl.Range) {
	j := p.i + 1
	for j < len(p.src) && fastIdentChar(p.src[j]) {
		j++
	}
	name := p.str[p.i:j]
	return name, p.tok(j - p.i)
}

// skip passes blanks and comments, and newlines too when nl (where
// hclsyntax ignores them: in brackets and parentheses). Without nl it
// stops at a newline, or at a line comment, which hclsyntax reads as
// one; a line comment the file ends in is passed. False on a comment
// that is not closed or holds a byte fastParseConfig does not take.
func (p *fastParser) skip(nl bool) bool {
	for p.i < len(p.src) {
		switch p.src[p.i] {
		case ' ', '\t':
			p.i++
		case '\n':
			if !nl {
				return true
			}
			p.newline(p.i + 1)
		case '#', '/':
			if p.src[p.i] == '/' {
				switch p.peek2() {
				case '*':
					if !p.blockComment() {
						return false
					}
					continue
				case '/':
				default:
					return true
				}
			}
			if !p.lineComment(nl) {
				return false
			}
			if !nl && p.i < len(p.src) {
				return true
			}
		default:
			return true
		}
	}
	return true
}

// newline moves to the line starting at src[j].
func (p *fastParser) newline(j int) {
	p.i, p.line, p.col0 = j, p.line+1, j
}

// lineComment checks the line comment at i and, when pass, reads it with
// its newline; it also reads one the file ends in. Otherwise it leaves
// the comment to be read as a newline (readNewline).
func (p *fastParser) lineComment(pass bool) bool {
	j := p.i
	for j < len(p.src) && p.src[j] != '\n' {
		if !fastCommentByte(p.src[j]) {
			return false
		}
		j++
	}
	switch {
	case j == len(p.src):
		p.i = j
	case pass:
		p.newline(j + 1)
	}
	return true
}

// blockComment reads the comment at i, to the first "*/".
func (p *fastParser) blockComment() bool {
	for j := p.i + 2; j+1 < len(p.src); j++ {
		switch c := p.src[j]; {
		case c == '*' && p.src[j+1] == '/':
			p.i = j + 2
			return true
		case c == '\n':
			p.line, p.col0 = p.line+1, j+1
		case !fastCommentByte(c):
			return false
		}
	}
	return false
}

// atNewline says whether what skip(false) stopped at is a newline token:
// a newline or a line comment (which then ends in one).
func (p *fastParser) atNewline() bool {
	if p.i >= len(p.src) {
		return false
	}
	c := p.src[p.i]
	return c == '\n' || c == '#' || (c == '/' && p.peek2() == '/')
}

// readNewline reads the newline token atNewline found.
func (p *fastParser) readNewline() {
	if p.src[p.i] == '\n' {
		p.newline(p.i + 1)
		return
	}
	p.lineComment(true)
}

// endOfItem reads what must follow an attribute or a block in a body: a
// newline, or the end of the file.
func (p *fastParser) endOfItem() bool {
	if !p.skip(false) {
		return false
	}
	if p.atNewline() {
		p.readNewline()
		return true
	}
	return p.i == len(p.src)
}

// body reads a body as hclsyntax's ParseBody does: the file's, when open
// is nil, to the end of the file, or a block's, opened by the brace at
// open, to its closing brace. Like ParseBody it starts the file's range
// at the first token, newline or not.
func (p *fastParser) body(open *hcl.Range) (*hclsyntax.Body, bool) {
	b := p.bodies.one()
	b.Attributes = hclsyntax.Attributes{}
	base := len(p.block)
	var start hcl.Pos
	if open != nil {
		if p.depth++; p.depth > fastMaxDepth {
			return nil, false
		}
		defer func() { p.depth-- }()
		start = open.Start
	} else if !p.skip(false) {
		return nil, false
	} else {
		start = p.pos(p.i)
	}
	var end hcl.Range
	for {
		if !p.skip(false) {
			return nil, false
		}
		if p.i == len(p.src) {
			if open != nil {
				return nil, false
			}
			end = p.rng(p.i, p.i)
			break
		}
		if c := p.src[p.i]; c == '}' && open != nil {
			end = p.tok(1)
			break
		} else if p.atNewline() {
			p.readNewline()
			continue
		} else if !fastIdentStart(c) || !p.item(b) {
			return nil, false
		}
	}
	b.Blocks = hclsyntax.Blocks{}
	if n := len(p.block) - base; n > 0 {
		b.Blocks = p.blkArr.many(n)
		copy(b.Blocks, p.block[base:])
		clear(p.block[base:])
		p.block = p.block[:base]
	}
	b.SrcRange = p.between(start, end.End)
	b.EndRange = p.between(end.End, end.End)
	return b, true
}

// item reads an attribute or a block into b (ParseBodyItem).
func (p *fastParser) item(b *hclsyntax.Body) bool {
	name, nameRange := p.ident()
	if !p.skip(false) || p.i == len(p.src) {
		return false
	}
	switch c := p.src[p.i]; {
	case p.atEquals():
		a, ok := p.attribute(name, nameRange, false)
		if !ok {
			return false
		}
		if _, dup := b.Attributes[name]; dup {
			return false
		}
		b.Attributes[name] = a
		return true
	case c == '"' || c == '{' || fastIdentStart(c):
		blk, ok := p.block1(name, nameRange)
		if ok {
			p.block = append(p.block, blk)
		}
		return ok
	}
	return false
}

// atEquals says whether the next token is "=" (and not "==" or "=>").
func (p *fastParser) atEquals() bool {
	c := p.peek2()
	return p.at('=') && c != '=' && c != '>'
}

// attribute reads the rest of an attribute, from its equals sign; in a
// one-line block (single) nothing need follow it, elsewhere a newline or
// the end of the file must.
func (p *fastParser) attribute(name string, nameRange hcl.Range, single bool) (*hclsyntax.Attribute, bool) {
	eq := p.tok(1)
	expr, ok := p.expr(false)
	if !ok {
		return nil, false
	}
	end := p.prev
	if !single && !p.endOfItem() {
		return nil, false
	}
	a := p.attrs.one()
	*a = hclsyntax.Attribute{Name: name, Expr: expr,
		SrcRange: p.between(nameRange.Start, end), NameRange: nameRange, EqualsRange: eq}
	return a, true
}

// block1 reads the rest of a block, from after its type: its labels, and
// its body on lines of its own or an attribute on the same line.
func (p *fastParser) block1(typ string, typeRange hcl.Range) (*hclsyntax.Block, bool) {
	blk := p.blocks.one()
	blk.Type, blk.TypeRange = typ, typeRange
	for !p.at('{') {
		switch {
		case p.at('"'):
			s, r, ok := p.quoted()
			if !ok {
				return nil, false
			}
			blk.Labels = append(blk.Labels, s)
			blk.LabelRanges = append(blk.LabelRanges, r)
		case p.i < len(p.src) && fastIdentStart(p.src[p.i]):
			s, r := p.ident()
			blk.Labels = append(blk.Labels, s)
			blk.LabelRanges = append(blk.LabelRanges, r)
		default:
			return nil, false
		}
		if !p.skip(false) {
			return nil, false
		}
	}
	blk.OpenBraceRange = p.tok(1)
	if !p.skip(false) {
		return nil, false
	}
	var ok bool
	if p.i == len(p.src) || p.at('}') || p.atNewline() {
		blk.Body, ok = p.body(&blk.OpenBraceRange)
	} else {
		blk.Body, ok = p.singleAttrBody()
	}
	if !ok {
		return nil, false
	}
	blk.CloseBraceRange = p.rng(p.i-1, p.i)
	return blk, p.endOfItem()
}

// singleAttrBody reads the body of a one-line block, "{ name = value }",
// from its name to its closing brace (parseSingleAttrBody).
func (p *fastParser) singleAttrBody() (*hclsyntax.Body, bool) {
	if !fastIdentStart(p.src[p.i]) {
		return nil, false
	}
	name, nameRange := p.ident()
	if !p.skip(false) || !p.atEquals() {
		return nil, false
	}
	a, ok := p.attribute(name, nameRange, true)
	if !ok || !p.skip(false) || !p.at('}') {
		return nil, false
	}
	p.tok(1)
	b := p.bodies.one()
	b.Attributes = hclsyntax.Attributes{name: a}
	b.SrcRange = a.SrcRange
	b.EndRange = p.between(a.SrcRange.End, a.SrcRange.End)
	return b, true
}

// quoted reads a quoted string with no template sequence in it, as a block
// label (parseQuotedStringLiteral), and returns its value and range.
func (p *fastParser) quoted() (string, hcl.Range, bool) {
	open := p.pos(p.i)
	s, j, ok := p.stringContent(p.i + 1)
	if !ok || p.src[j] != '"' {
		return "", hcl.Range{}, false
	}
	p.i = j
	return s, p.between(open, p.tok(1).End), true
}

// stringContent reads the literal content of a quoted string from src[i]
// and returns its value and the offset of its closing quote or of the
// "${" of an interpolation. It takes the escapes \n, \r, \t, \" and \\,
// and $${ and %%{ for a literal ${ and %{; it refuses a directive, a
// newline, any other escape, any "$$" or "%%" not before "{" (hclsyntax
// reads those in pieces), and bytes outside printable ASCII and the tab.
func (p *fastParser) stringContent(i int) (string, int, bool) {
	esc := false
	for j := i; j < len(p.src); j++ {
		switch c := p.src[j]; c {
		case '"':
			return p.literal(i, j, esc), j, true
		case '\\':
			if j+1 == len(p.src) {
				return "", 0, false
			}
			switch p.src[j+1] {
			case 'n', 'r', 't', '"', '\\':
			default:
				return "", 0, false
			}
			esc = true
			j++
		case '$', '%':
			switch {
			case j+1 == len(p.src) || (c == '%' && p.src[j+1] == '{'):
				return "", 0, false
			case p.src[j+1] == '{':
				return p.literal(i, j, esc), j, true
			case p.src[j+1] == c:
				if j+2 == len(p.src) || p.src[j+2] != '{' {
					return "", 0, false
				}
				esc = true
				j += 2
			}
		default:
			if (c < ' ' && c != '\t') || c >= 0x7f {
				return "", 0, false
			}
		}
	}
	return "", 0, false
}

// literal is the value of src[i:j], which stringContent read, and which
// holds an escape when esc.
func (p *fastParser) literal(i, j int, esc bool) string {
	if !esc {
		return p.str[i:j]
	}
	return p.unescape(i, j)
}

// unescape is the value of src[i:j], a string stringContent read.
func (p *fastParser) unescape(i, j int) string {
	out := make([]byte, 0, j-i)
	for ; i < j; i++ {
		c := p.src[i]
		switch {
		case c == '\\':
			i++
			switch c = p.src[i]; c {
			case 'n':
				c = '\n'
			case 'r':
				c = '\r'
			case 't':
				c = '\t'
			}
		case (c == '$' || c == '%') && p.src[i+1] == c:
			i++ // "$${" is "${"
		}
		out = append(out, c)
	}
	return string(out)
}

// expr reads an expression (ParseExpression): a conditional, "c ? t : f",
// or an operand of it. nl says whether newlines are ignored where it is
// (in brackets and interpolations). Whatever may continue an expression
// but is not of the subset (a splat, an operator fastParseConfig does not
// know) is left for the caller, which refuses it.
func (p *fastParser) expr(nl bool) (hclsyntax.Expression, bool) {
	if p.depth++; p.depth > fastMaxDepth || !p.skip(nl) {
		return nil, false
	}
	defer func() { p.depth-- }()
	start := p.pos(p.i)
	cond, ok := p.binary(nl, 0)
	if !ok || !p.skip(nl) || !p.at('?') {
		return cond, ok
	}
	p.tok(1)
	t, ok := p.expr(nl)
	if !ok || !p.skip(nl) || !p.at(':') || p.peek2() == ':' {
		return nil, false
	}
	p.tok(1)
	f, ok := p.expr(nl)
	if !ok {
		return nil, false
	}
	c := p.conds.one()
	*c = hclsyntax.ConditionalExpr{Condition: cond, TrueResult: t, FalseResult: f,
		SrcRange: p.between(start, f.Range().End)}
	return c, true
}

// fastOp is a binary operator's token and operation.
type fastOp struct {
	tok string
	op  *hclsyntax.Operation
}

// fastBinaryOps are hclsyntax's binary operators by precedence, the
// loosest first, and at each level the longer tokens first.
var fastBinaryOps = [][]fastOp{
	{{"||", hclsyntax.OpLogicalOr}},
	{{"&&", hclsyntax.OpLogicalAnd}},
	{{"==", hclsyntax.OpEqual}, {"!=", hclsyntax.OpNotEqual}},
	{{">=", hclsyntax.OpGreaterThanOrEqual}, {"<=", hclsyntax.OpLessThanOrEqual},
		{">", hclsyntax.OpGreaterThan}, {"<", hclsyntax.OpLessThan}},
	{{"+", hclsyntax.OpAdd}, {"-", hclsyntax.OpSubtract}},
	{{"*", hclsyntax.OpMultiply}, {"/", hclsyntax.OpDivide}, {"%", hclsyntax.OpModulo}},
}

// binary reads the operations of precedence level and tighter, left to
// right (parseBinaryOps).
func (p *fastParser) binary(nl bool, level int) (hclsyntax.Expression, bool) {
	if level == len(fastBinaryOps) {
		return p.term(nl)
	}
	lhs, ok := p.binary(nl, level+1)
	for ok {
		if !p.skip(nl) {
			return nil, false
		}
		op := p.binaryOp(level)
		if op == nil {
			return lhs, true
		}
		var rhs hclsyntax.Expression
		if rhs, ok = p.binary(nl, level+1); ok {
			b := p.binops.one()
			*b = hclsyntax.BinaryOpExpr{LHS: lhs, Op: op, RHS: rhs,
				SrcRange: p.between(lhs.Range().Start, rhs.Range().End)}
			lhs = b
		}
	}
	return nil, false
}

// binaryOp reads the operator of level at i, if the token there is one.
// A "<" before "<" (a heredoc) and a "/" before "/" (a comment) are not.
func (p *fastParser) binaryOp(level int) *hclsyntax.Operation {
	for _, o := range fastBinaryOps[level] {
		n := len(o.tok)
		if p.i+n > len(p.src) || p.str[p.i:p.i+n] != o.tok {
			continue
		}
		if n == 1 && (o.tok == "<" || o.tok == "/") && p.peek2() == o.tok[0] {
			return nil
		}
		p.tok(n)
		return o.op
	}
	return nil
}

// term reads an operand (parseExpressionWithTraversals): "-" or "!" and
// an operand, an expression in parentheses, a quoted string (a template
// with interpolations but no directives), a number, true, false or null,
// a reference, a function call, a tuple or an object, with the steps
// after it.
func (p *fastParser) term(nl bool) (hclsyntax.Expression, bool) {
	if p.depth++; p.depth > fastMaxDepth || !p.skip(nl) || p.i == len(p.src) {
		return nil, false
	}
	defer func() { p.depth-- }()
	var e hclsyntax.Expression
	var ok bool
	switch c := p.src[p.i]; {
	case fastIdentStart(c):
		return p.identExpr(nl)
	case c == '-' || (c == '!' && p.peek2() != '='):
		return p.unary(nl)
	case c == '(':
		e, ok = p.parens()
	case c == '"':
		e, ok = p.template()
	case c >= '0' && c <= '9':
		e, ok = p.number()
	case c == '[':
		e, ok = p.tuple()
	case c == '{':
		e, ok = p.object()
	}
	if !ok {
		return nil, false
	}
	return p.traversals(e, false, nl)
}

// unary reads "-" or "!" and its operand.
func (p *fastParser) unary(nl bool) (hclsyntax.Expression, bool) {
	op := hclsyntax.OpNegate
	if p.src[p.i] == '!' {
		op = hclsyntax.OpLogicalNot
	}
	sym := p.tok(1)
	val, ok := p.term(nl)
	if !ok {
		return nil, false
	}
	u := p.unops.one()
	*u = hclsyntax.UnaryOpExpr{Op: op, Val: val, SrcRange: p.between(sym.Start, val.Range().End), SymbolRange: sym}
	return u, true
}

// parens reads an expression in parentheses, newlines ignored in them.
func (p *fastParser) parens() (hclsyntax.Expression, bool) {
	open := p.tok(1)
	e, ok := p.expr(true)
	if !ok || !p.skip(true) || !p.at(')') {
		return nil, false
	}
	x := p.parenArr.one()
	x.Expression, x.SrcRange = e, p.between(open.Start, p.tok(1).End)
	return x, true
}

// template reads a quoted string as hclsyntax does (parseTemplateInner):
// a TemplateExpr of its parts, a LiteralValueExpr for each run of literal
// content and the expression of each interpolation, or a TemplateWrapExpr
// of the expression when one interpolation is all of it. An empty string
// is one empty literal, ranged just past its closing quote.
func (p *fastParser) template() (hclsyntax.Expression, bool) {
	open := p.tok(1)
	base := len(p.exprs)
	defer func() { clear(p.exprs[base:]); p.exprs = p.exprs[:base] }()
	lits := 0
	for {
		s, j, ok := p.stringContent(p.i)
		if !ok {
			return nil, false
		}
		if j > p.i {
			lit := p.lits.one()
			lit.Val, lit.SrcRange = cty.StringVal(s), p.rng(p.i, j)
			p.exprs, lits = append(p.exprs, lit), lits+1
		}
		p.i = j
		if p.src[j] == '"' {
			break
		}
		e, ok := p.interpolation()
		if !ok {
			return nil, false
		}
		p.exprs = append(p.exprs, e)
	}
	closing := p.tok(1)
	rng := p.between(open.Start, closing.End)
	switch n := len(p.exprs) - base; {
	case n == 0:
		lit := p.lits.one()
		lit.Val, lit.SrcRange = cty.StringVal(""), p.between(closing.End, closing.End)
		p.exprs = append(p.exprs, lit)
	case n == 1 && lits == 0:
		w := p.wraps.one()
		w.Wrapped, w.SrcRange = p.exprs[base], rng
		return w, true
	}
	t := p.tmpls.one()
	t.Parts = p.exprArr.many(len(p.exprs) - base)
	copy(t.Parts, p.exprs[base:])
	t.SrcRange = rng
	return t, true
}

// interpolation reads "${ expr }", newlines ignored in it; it refuses the
// "~" that strips blanks next to it.
func (p *fastParser) interpolation() (hclsyntax.Expression, bool) {
	p.i += 2
	if p.at('~') {
		return nil, false
	}
	e, ok := p.expr(true)
	if !ok || !p.skip(true) || !p.at('}') {
		return nil, false
	}
	p.tok(1)
	return e, true
}

// number reads a number literal, digits with an optional fraction and
// exponent, which cty.ParseNumberVal makes the value of, as in hclsyntax.
// It refuses one followed by a dot or a letter, which hclsyntax lexes
// otherwise or refuses (a "-" after it is a minus).
func (p *fastParser) number() (hclsyntax.Expression, bool) {
	j := p.digits(p.i)
	if j+1 < len(p.src) && p.src[j] == '.' && p.src[j+1] >= '0' && p.src[j+1] <= '9' {
		j = p.digits(j + 1)
	}
	if j < len(p.src) && p.src[j]|0x20 == 'e' {
		k := j + 1
		if k < len(p.src) && (p.src[k] == '+' || p.src[k] == '-') {
			k++
		}
		if k == len(p.src) || p.src[k] < '0' || p.src[k] > '9' {
			return nil, false
		}
		j = p.digits(k)
	}
	if j < len(p.src) && (p.src[j] == '.' || fastIdentStart(p.src[j]) || p.src[j] >= '0' && p.src[j] <= '9') {
		return nil, false
	}
	v, err := cty.ParseNumberVal(p.str[p.i:j])
	if err != nil {
		return nil, false
	}
	lit := p.lits.one()
	lit.Val, lit.SrcRange = v, p.tok(j-p.i)
	return lit, true
}

// digits is the offset past the digits at src[j].
func (p *fastParser) digits(j int) int {
	for j < len(p.src) && p.src[j] >= '0' && p.src[j] <= '9' {
		j++
	}
	return j
}

// identExpr reads what starts with an identifier: true, false or null, a
// function call, or a reference with its attribute and index steps.
func (p *fastParser) identExpr(nl bool) (hclsyntax.Expression, bool) {
	name, r := p.ident()
	if !p.skip(nl) {
		return nil, false
	}
	if p.at('(') {
		e, ok := p.call(name, r)
		if !ok {
			return nil, false
		}
		return p.traversals(e, false, nl)
	}
	if p.at(':') && p.peek2() == ':' {
		return nil, false // a function in a namespace
	}
	var v cty.Value
	switch name {
	case "true":
		v = cty.True
	case "false":
		v = cty.False
	case "null":
		v = cty.NullVal(cty.DynamicPseudoType)
	default:
		t := p.travs.one()
		t.SrcRange = r
		p.steps = append(p.steps, hcl.TraverseRoot{Name: name, SrcRange: r})
		return p.traversals(t, true, nl)
	}
	lit := p.lits.one()
	lit.Val, lit.SrcRange = v, r
	return p.traversals(lit, false, nl)
}

// traversals reads the attribute and index steps after the operand e
// (parseExpressionTraversals). An attribute, or an index by a literal,
// extends e when it is a traversal and makes a RelativeTraversalExpr of
// e otherwise; an index by anything else makes an IndexExpr of e. The
// steps of the traversal being read wait in p.steps[base:] and make its
// Traversal when it ends; root says e is a reference, whose root step the
// caller put there.
func (p *fastParser) traversals(e hclsyntax.Expression, root, nl bool) (hclsyntax.Expression, bool) {
	base := len(p.steps)
	if root {
		base--
	}
	defer func() { clear(p.steps[base:]); p.steps = p.steps[:base] }()
	start, end, open := e.Range().Start, e.Range().End, root
	for {
		if !p.skip(nl) {
			return nil, false
		}
		var step hcl.Traverser
		switch {
		case p.at('.'):
			dot := p.tok(1)
			if !p.skip(nl) || p.i == len(p.src) || !fastIdentStart(p.src[p.i]) {
				return nil, false // a legacy index, a splat or an error
			}
			s, sr := p.ident()
			step = hcl.TraverseAttr{Name: s, SrcRange: p.between(dot.Start, sr.End)}
		case p.at('['):
			idx, ok := p.index()
			if !ok {
				return nil, false
			}
			if idx.lit {
				step = hcl.TraverseIndex{Key: idx.val, SrcRange: idx.rng}
				break
			}
			x := p.indexes.one()
			*x = hclsyntax.IndexExpr{Collection: p.endTraversal(e, base, open, start, end), Key: idx.key,
				SrcRange: p.between(start, idx.rng.End), OpenRange: idx.open, BracketRange: idx.rng}
			e, end, open = x, idx.rng.End, false
			continue
		default:
			return p.endTraversal(e, base, open, start, end), true
		}
		if !open {
			rel := p.rels.one()
			rel.Source = e
			e, open = rel, true
		}
		p.steps = append(p.steps, step)
		end = p.prev
	}
}

// endTraversal gives e, when open (a traversal whose steps wait in
// p.steps[base:]), its steps and its range, from start to end.
func (p *fastParser) endTraversal(e hclsyntax.Expression, base int, open bool, start, end hcl.Pos) hclsyntax.Expression {
	if !open {
		return e
	}
	steps := p.stepArr.many(len(p.steps) - base)
	copy(steps, p.steps[base:])
	clear(p.steps[base:])
	p.steps = p.steps[:base]
	switch t := e.(type) {
	case *hclsyntax.ScopeTraversalExpr:
		t.Traversal, t.SrcRange = steps, p.between(start, end)
	case *hclsyntax.RelativeTraversalExpr:
		t.Traversal, t.SrcRange = steps, p.between(start, end)
	}
	return e
}

// fastIndex is an index step read: its key, the range of its opening
// bracket and its own, and, when lit (the key is a number, a string,
// true, false or null), the key's value with no context, which hclsyntax
// makes a TraverseIndex of.
type fastIndex struct {
	key       hclsyntax.Expression
	open, rng hcl.Range
	lit       bool
	val       cty.Value
}

// index reads an index step, "[key]", newlines ignored in it.
func (p *fastParser) index() (fastIndex, bool) {
	idx := fastIndex{open: p.tok(1)}
	var ok bool
	if idx.key, ok = p.expr(true); !ok || !p.skip(true) || !p.at(']') {
		return idx, false
	}
	idx.rng = p.between(idx.open.Start, p.tok(1).End)
	switch k := idx.key.(type) {
	case *hclsyntax.LiteralValueExpr:
		idx.lit = true
	case *hclsyntax.TemplateExpr:
		idx.lit = k.IsStringLiteral()
	}
	if idx.lit {
		idx.val, _ = idx.key.Value(nil)
	}
	return idx, true
}

// call reads the arguments of a call of the function name at r, from the
// opening parenthesis; it refuses an expanded final argument ("...").
func (p *fastParser) call(name string, r hcl.Range) (hclsyntax.Expression, bool) {
	open := p.tok(1)
	args, ok := p.list(')')
	if !ok {
		return nil, false
	}
	c := p.calls.one()
	*c = hclsyntax.FunctionCallExpr{Name: name, Args: args, NameRange: r,
		OpenParenRange: open, CloseParenRange: p.rng(p.i-1, p.i)}
	return c, true
}

// list reads expressions separated by commas, newlines ignored, up to and
// with the closing bracket, which a comma may come before; nil when none.
func (p *fastParser) list(closing byte) ([]hclsyntax.Expression, bool) {
	base := len(p.exprs)
	defer func() { clear(p.exprs[base:]); p.exprs = p.exprs[:base] }()
	for {
		if !p.skip(true) {
			return nil, false
		}
		if p.at(closing) {
			break
		}
		e, ok := p.expr(true)
		if !ok || !p.skip(true) {
			return nil, false
		}
		p.exprs = append(p.exprs, e)
		if p.at(closing) {
			break
		}
		if !p.at(',') {
			return nil, false
		}
		p.tok(1)
	}
	p.tok(1)
	if len(p.exprs) == base {
		return nil, true
	}
	out := p.exprArr.many(len(p.exprs) - base)
	copy(out, p.exprs[base:])
	return out, true
}

// tuple reads a tuple constructor, "[a, b]"; it refuses a for expression.
func (p *fastParser) tuple() (hclsyntax.Expression, bool) {
	open := p.tok(1)
	if p.forNext() {
		return nil, false
	}
	exprs, ok := p.list(']')
	if !ok {
		return nil, false
	}
	t := p.tuples.one()
	*t = hclsyntax.TupleConsExpr{Exprs: exprs, SrcRange: p.between(open.Start, p.prev), OpenRange: open}
	return t, true
}

// forNext says whether the next token, newlines ignored, is "for" (or the
// comments before it cannot be read): a for expression, after a bracket.
func (p *fastParser) forNext() bool {
	i, line, col0 := p.i, p.line, p.col0
	defer func() { p.i, p.line, p.col0 = i, line, col0 }()
	if !p.skip(true) {
		return true
	}
	j := p.i + 3
	return j <= len(p.src) && p.str[p.i:j] == "for" && (j == len(p.src) || !fastIdentChar(p.src[j]))
}

// object reads an object constructor, "{ k = v, "k" = v \n k: v }", its
// items separated by commas or newlines; it refuses a for expression.
func (p *fastParser) object() (hclsyntax.Expression, bool) {
	open := p.tok(1)
	if p.forNext() {
		return nil, false
	}
	base := len(p.items)
	defer func() { clear(p.items[base:]); p.items = p.items[:base] }()
	for {
		if !p.skip(false) || p.i == len(p.src) {
			return nil, false
		}
		if p.atNewline() {
			p.readNewline()
			continue
		}
		if p.at('}') {
			break
		}
		item, ok := p.objectItem()
		if !ok || !p.skip(false) {
			return nil, false
		}
		p.items = append(p.items, item)
		if p.at('}') {
			break
		}
		if p.atNewline() {
			p.readNewline()
		} else if p.at(',') {
			p.tok(1)
		} else {
			return nil, false
		}
	}
	o := p.objs.one()
	o.OpenRange = open
	o.SrcRange = p.between(open.Start, p.tok(1).End)
	if n := len(p.items) - base; n > 0 {
		o.Items = p.itemArr.many(n)
		copy(o.Items, p.items[base:])
	}
	return o, true
}

// objectItem reads "key = value" or "key: value" in an object.
func (p *fastParser) objectItem() (hclsyntax.ObjectConsItem, bool) {
	force := p.at('(')
	key, ok := p.expr(false)
	if !ok || !p.skip(false) {
		return hclsyntax.ObjectConsItem{}, false
	}
	if !p.atEquals() && !(p.at(':') && p.peek2() != ':') {
		return hclsyntax.ObjectConsItem{}, false
	}
	p.tok(1)
	value, ok := p.expr(false)
	if !ok {
		return hclsyntax.ObjectConsItem{}, false
	}
	k := p.keys.one()
	k.Wrapped, k.ForceNonLiteral = key, force
	return hclsyntax.ObjectConsItem{KeyExpr: k, ValueExpr: value}, true
}
