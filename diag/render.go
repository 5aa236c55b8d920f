package diag

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Sources gives the text of a file by its display name, for snippets. A
// missing file renders without a snippet.
type Sources func(file string) []byte

// WriteText renders ds for a terminal:
//
//	main.hcl:12:5: unknown attribute "comand"; did you mean "command"?
//
//	  12 |     comand = ["serve"]
//	     |     ^^^^^^
//
// At most MaxShown diagnostics are shown; a last line counts the rest.
func WriteText(w io.Writer, ds Diagnostics, src Sources) error {
	var b bytes.Buffer
	for i, d := range ds.Limit(MaxShown) {
		if i > 0 {
			b.WriteByte('\n')
		}
		if d.Omitted > 0 {
			b.WriteString(d.Summary)
			b.WriteString(" (not shown)\n")
			continue
		}
		fmt.Fprintf(&b, "%s: ", d.Severity)
		b.WriteString(d.Error())
		b.WriteByte('\n')
		if d.Subject != nil && src != nil {
			writeSnippet(&b, *d.Subject, src(d.Subject.File))
		}
		for _, r := range d.Related {
			fmt.Fprintf(&b, "  (see also %s)\n", r.String())
		}
	}
	_, err := w.Write(b.Bytes())
	return err
}

func writeSnippet(b *bytes.Buffer, r Range, text []byte) {
	if len(text) == 0 || r.Start.Line < 1 {
		return
	}
	raw, ok := lineOf(text, r.Start.Line)
	if !ok {
		return
	}
	line := strings.TrimRight(raw, "\r")
	line = strings.ReplaceAll(line, "\t", "    ")
	num := fmt.Sprint(r.Start.Line)
	pad := strings.Repeat(" ", len(num))
	fmt.Fprintf(b, "\n  %s | %s\n", num, line)
	// Mark from the start column to the end column on the same line, or to
	// the end of the line when the range spans lines.
	orig := strings.TrimRight(raw, "\r")
	startCol := displayCol(orig, r.Start.Col)
	endCol := utf8.RuneCountInString(line) + 1
	if r.End.Line == r.Start.Line && r.End.Col > r.Start.Col {
		endCol = displayCol(orig, r.End.Col)
	}
	width := max(endCol-startCol, 1)
	fmt.Fprintf(b, "  %s | %s%s\n", pad, strings.Repeat(" ", max(startCol-1, 0)), strings.Repeat("^", width))
}

// lineOf returns line n (1-based) of text, scanning to it only: a
// snippet costs the bytes before it, not a split of the whole file.
func lineOf(text []byte, n int) (string, bool) {
	start := 0
	for i := 1; i < n; i++ {
		j := bytes.IndexByte(text[start:], '\n')
		if j < 0 {
			return "", false
		}
		start += j + 1
	}
	end := bytes.IndexByte(text[start:], '\n')
	if end < 0 {
		end = len(text) - start
	}
	return string(text[start : start+end]), true
}

// displayCol converts a 1-based rune column in s to the column after tabs
// were expanded to four spaces.
func displayCol(s string, col int) int {
	out, i := 1, 1
	for _, r := range s {
		if i >= col {
			break
		}
		if r == '\t' {
			out += 4
		} else {
			out++
		}
		i++
	}
	return out + (col - i)
}

// WriteJSON renders ds as {"diagnostics": [...]} with a trailing newline.
func WriteJSON(w io.Writer, ds Diagnostics) error {
	if ds == nil {
		ds = Diagnostics{}
	}
	b, err := json.MarshalIndent(struct {
		Diagnostics Diagnostics `json:"diagnostics"`
	}{ds}, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
