package compiler

import (
	"bytes"
	"runtime"
	"sync"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// A large HCL file is parsed in pieces, in parallel (issue 13): one cheap
// scan finds where top-level blocks end, the file is cut there into
// chunks, each chunk is parsed with the position it starts at (so every
// range is the one a parse of the whole file gives), and the chunks'
// bodies are joined. A chunk, or a file parsed whole, is parsed by
// fastParseConfig when it keeps to the plain syntax that takes, and by
// hclsyntax otherwise, which alone reports diagnostics. The scan follows the lexer's strings,
// templates, heredocs, comments and brackets; on anything it does not
// follow (a newline in a string, unbalanced brackets) and whenever a
// chunk has any diagnostic, or two chunks set the same attribute, the file
// is parsed whole instead, so errors are exactly those of one parse.

// splitMinSize is the smallest file parsed in pieces, and splitChunkSize
// the size a piece is cut at (past it, at the next top-level block's end).
var (
	splitMinSize   = 256 << 10
	splitChunkSize = 128 << 10
)

// parseHCLConfig parses a configuration file as hclsyntax.ParseConfig does
// (from hcl.InitialPos), in parallel pieces when it is large.
func parseHCLConfig(src []byte, name string) (*hclsyntax.Body, hcl.Diagnostics) {
	return parseHCLConfigEach(src, name, nil)
}

// parseHCLConfigEach is parseHCLConfig that also calls each, when not
// nil, on what it parsed without errors before returning it: on every
// piece, in the worker that parsed it, or on the whole body. each must be
// safe to call from several goroutines at once, and must not care which
// piece of a file it sees first.
func parseHCLConfigEach(src []byte, name string, each func(*hclsyntax.Body)) (*hclsyntax.Body, hcl.Diagnostics) {
	if len(src) >= splitMinSize && runtime.GOMAXPROCS(0) > 1 {
		if cuts := splitPoints(src, splitChunkSize); len(cuts) > 0 {
			if body := parseChunksEach(src, name, cuts, each); body != nil {
				return body, nil
			}
		}
	}
	if body, ok := fastParseConfig(src, name, hcl.InitialPos); ok {
		if each != nil {
			each(body)
		}
		return ownBody(body), nil
	}
	file, hd := hclsyntax.ParseConfig(src, name, hcl.InitialPos)
	if file == nil {
		return nil, hd
	}
	body := file.Body.(*hclsyntax.Body)
	if each != nil && !hd.HasErrors() {
		each(body)
	}
	return body, hd
}

// cut is where a chunk starts: at the beginning of a line.
type cut struct{ byte, line int }

// splitPoints scans src as the HCL lexer would and returns where to cut
// it: after the newline that ends a top-level block's closing brace, once
// at least size bytes have passed since the last cut. Nil when src holds
// something the scan does not follow, or no place to cut.
func splitPoints(src []byte, size int) []cut {
	var cuts []cut
	var stack []byte // '{', '[', '(' brackets, '"' strings, '$' interpolations, 'h' heredocs
	var docs []heredoc
	line, last := 1, 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == '\n' {
			line++
		}
		top := byte(0)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		if top == 'h' {
			// As the lexer's heredocTemplate: a line that begins in the
			// heredoc and holds only its marker, blanks around it, ends
			// it; an interpolation or a directive is scanned as code.
			d := &docs[len(docs)-1]
			if d.startOfLine {
				end := skipLine(src, i)
				if end == len(src) {
					return nil // no newline: the lexer takes no marker here
				}
				if bytes.Equal(bytes.TrimSpace(src[i:end]), d.marker) {
					stack, docs = stack[:len(stack)-1], docs[:len(docs)-1]
					i = end - 1 // the newline is the main scan's
					continue
				}
				d.startOfLine = false
			}
			if c == '\n' {
				d.startOfLine = true
				continue
			}
			skip, open := templateSeq(src, i)
			if open {
				stack = append(stack, '$')
			}
			i += skip
			continue
		}
		if top == '"' {
			switch {
			case c == '\n':
				return nil // an error, or a string the scan does not follow
			case c == '\\' && i+1 < len(src) && src[i+1] == '\n':
				return nil
			case c == '\\':
				i++
			case c == '"':
				stack = stack[:len(stack)-1]
			default:
				skip, open := templateSeq(src, i)
				if open {
					stack = append(stack, '$')
				}
				i += skip
			}
			continue
		}
		switch c {
		case '"', '{', '[', '(':
			stack = append(stack, c)
		case '}', ']', ')':
			if top != openerOf(c) && (c != '}' || top != '$') {
				return nil
			}
			stack = stack[:len(stack)-1]
			if c == '}' && len(stack) == 0 && i+1-last >= size {
				if end, ok := lineEnd(src, i+1); ok && end < len(src) {
					cuts = append(cuts, cut{byte: end, line: line + 1})
					last, line, i = end, line+1, end-1
				}
			}
		case '#':
			i = skipLine(src, i) - 1
		case '/':
			if i+1 < len(src) && src[i+1] == '/' {
				i = skipLine(src, i) - 1
			} else if i+1 < len(src) && src[i+1] == '*' {
				j := bytes.Index(src[i+2:], []byte("*/"))
				if j < 0 {
					return nil
				}
				line += bytes.Count(src[i:i+2+j], []byte("\n"))
				i += j + 3
			}
		case '<':
			if i+1 < len(src) && src[i+1] == '<' {
				marker, nl, ok := heredocIntro(src, i)
				if !ok {
					return nil // an error, or one the scan does not follow
				}
				stack, docs = append(stack, 'h'), append(docs, heredoc{marker: marker, startOfLine: true})
				line++
				i = nl
			}
		}
	}
	if len(stack) > 0 {
		return nil
	}
	return cuts
}

// templateSeq reads a template sequence at src[i], in a string or a
// heredoc: "$${" or "%%{" is literal (skip the next 2 bytes), and "${" or
// "%{" opens an interpolation or a directive (skip 1, open).
func templateSeq(src []byte, i int) (skip int, open bool) {
	c := src[i]
	if c != '$' && c != '%' || i+1 >= len(src) {
		return 0, false
	}
	if src[i+1] == c && i+2 < len(src) && src[i+2] == '{' {
		return 2, false
	}
	if src[i+1] == '{' {
		return 1, true
	}
	return 0, false
}

// heredoc is a heredoc template the scan is in: its closing marker, and
// whether the scan is at the start of one of its lines.
type heredoc struct {
	marker      []byte
	startOfLine bool
}

// heredocIntro reads the heredoc introducer at src[i] ("<<EOT" or
// "<<-EOT", then a newline, as the lexer's BeginHeredocTmpl) and returns
// its marker and the offset of the newline; ok is false for anything
// else, and for a marker of other than ASCII letters, digits, "_" and "-"
// (the scan leaves the rest of Unicode's identifiers to one parse).
func heredocIntro(src []byte, i int) (marker []byte, nl int, ok bool) {
	j := i + 2
	if j < len(src) && src[j] == '-' {
		j++
	}
	start := j
	for ; j < len(src); j++ {
		c := src[j]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
		if !letter && (j == start || !(c >= '0' && c <= '9' || c == '-')) {
			break
		}
	}
	marker = src[start:j]
	if j < len(src) && src[j] == '\r' {
		j++
	}
	if len(marker) == 0 || j >= len(src) || src[j] != '\n' {
		return nil, 0, false
	}
	return marker, j, true
}

// openerOf is the bracket a closing bracket closes (a brace also closes
// an interpolation, "${").
func openerOf(c byte) byte {
	switch c {
	case ']':
		return '['
	case ')':
		return '('
	}
	return '{'
}

// lineEnd is the offset just past the newline ending the line at i, when
// only blanks come before it.
func lineEnd(src []byte, i int) (int, bool) {
	for ; i < len(src); i++ {
		switch src[i] {
		case ' ', '\t', '\r':
		case '\n':
			return i + 1, true
		default:
			return 0, false
		}
	}
	return 0, false
}

// skipLine is the offset of the newline ending the line at i (or len(src)).
func skipLine(src []byte, i int) int {
	if j := bytes.IndexByte(src[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(src)
}

// parseChunks parses src cut at cuts, in parallel, and joins the bodies;
// nil when any chunk has a diagnostic or a top-level attribute is set in
// two chunks (the whole file's parse says so then).
func parseChunks(src []byte, name string, cuts []cut) *hclsyntax.Body {
	return parseChunksEach(src, name, cuts, nil)
}

// parseChunksEach is parseChunks that calls each, when not nil, on every
// chunk's body in the worker that parsed it (parseHCLConfigEach).
func parseChunksEach(src []byte, name string, cuts []cut, each func(*hclsyntax.Body)) *hclsyntax.Body {
	starts := append([]cut{{byte: 0, line: 1}}, cuts...)
	bodies := make([]*hclsyntax.Body, len(starts))
	failed := make([]bool, len(starts))
	var wg sync.WaitGroup
	next := make(chan int, len(starts))
	for i := range starts {
		next <- i
	}
	close(next)
	for w := min(runtime.GOMAXPROCS(0), len(starts)); w > 0; w-- {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				end := len(src)
				if i+1 < len(starts) {
					end = starts[i+1].byte
				}
				pos := hcl.Pos{Line: starts[i].line, Column: 1, Byte: starts[i].byte}
				if bodies[i] = parseChunk(src[starts[i].byte:end:end], name, pos); bodies[i] == nil {
					failed[i] = true
					continue
				}
				if each != nil {
					each(bodies[i])
				}
				bodies[i] = ownBody(bodies[i])
			}
		}()
	}
	wg.Wait()
	for _, f := range failed {
		if f {
			return nil
		}
	}
	return joinBodies(bodies)
}

// parseChunk parses one chunk of a file, from pos, with fastParseConfig
// when it takes it and with hclsyntax otherwise; nil when hclsyntax has
// any diagnostic.
func parseChunk(chunk []byte, name string, pos hcl.Pos) *hclsyntax.Body {
	if body, ok := fastParseConfig(chunk, name, pos); ok {
		return body
	}
	f, hd := hclsyntax.ParseConfig(chunk, name, pos)
	if f == nil || len(hd) > 0 {
		return nil
	}
	return f.Body.(*hclsyntax.Body)
}

// ownBody is a new top-level body with body's content: fastParseConfig
// allocates bodies in chunks, so body shares its memory with the bodies
// of its blocks, which each may have let go (deferBodies).
func ownBody(body *hclsyntax.Body) *hclsyntax.Body {
	b := *body
	return &b
}

// joinBodies joins the top-level bodies of consecutive chunks into the
// body of the whole file; nil when two set the same attribute.
func joinBodies(bodies []*hclsyntax.Body) *hclsyntax.Body {
	n := 0
	for _, b := range bodies {
		n += len(b.Blocks)
	}
	out := &hclsyntax.Body{Attributes: hclsyntax.Attributes{}, Blocks: make(hclsyntax.Blocks, 0, n)}
	for _, b := range bodies {
		for k, a := range b.Attributes {
			if _, dup := out.Attributes[k]; dup {
				return nil
			}
			out.Attributes[k] = a
		}
		out.Blocks = append(out.Blocks, b.Blocks...)
	}
	first, last := bodies[0], bodies[len(bodies)-1]
	out.SrcRange = hcl.RangeBetween(first.SrcRange, last.SrcRange)
	out.EndRange = last.EndRange
	return out
}
