package planner

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"cc.dev/cc/schema"
)

// MaxMarkdown is the most characters (bytes, which are never fewer) the
// Markdown view writes: GitHub refuses comments over 65,536.
const MaxMarkdown = 65_000

// maxSection bounds one resource's section, so that one huge diff cannot
// crowd out every other resource.
const maxSection = 12_000

// MarkdownOptions shape the Markdown view.
type MarkdownOptions struct {
	// Limit is the most bytes to write; 0 means MaxMarkdown.
	Limit int
	// More says where to see the rest when sections are left out, such as
	// "run `cc show plan.out`".
	More string
}

// WriteMarkdown renders the plan for a pull-request comment: the summary,
// a table of counts by kind and action, then one collapsible section per
// resource with its diff, destructive changes first. It never writes more
// than the limit: past it, whole sections are left out and counted.
func WriteMarkdown(w io.Writer, p *Plan, o MarkdownOptions) error {
	limit := o.Limit
	if limit <= 0 {
		limit = MaxMarkdown
	}
	var head bytes.Buffer
	if line := DeletesAllLine(p); line != "" {
		fmt.Fprintf(&head, "**%s**\n\n", mdText(line))
	}
	if line := DataLossLine(p); line != "" {
		fmt.Fprintf(&head, "**%s**\n\n", mdText(line))
	}
	fmt.Fprintf(&head, "### cc plan: `%s`%s\n\n", mdCode(projectOf(p.Project)), markdownEnv(p))
	if p.RefreshOnly {
		writeRefreshOnlyMarkdown(&head, p)
		_, err := w.Write(clipBytes(head.Bytes(), limit))
		return err
	}
	writeDriftMarkdown(&head, p)
	if !p.Changed() {
		fmt.Fprintf(&head, "**No changes.** The service's state (serial %d) matches the configuration (%d %s).\n",
			p.Serial, p.Summary.Unchanged, plural(p.Summary.Unchanged, "resource", "resources"))
		writeMarkdownData(&head, p)
		writeMarkdownNotes(&head, p)
		_, err := w.Write(clipBytes(head.Bytes(), limit))
		return err
	}
	fmt.Fprintf(&head, "**%s** Planned against state serial %d; %d %s unchanged.\n\n", html.EscapeString(SummaryLine(p)),
		p.Serial, p.Summary.Unchanged, plural(p.Summary.Unchanged, "resource", "resources"))
	if len(p.Changes) > 0 {
		writeCountTable(&head, p)
	}
	writeMarkdownData(&head, p)
	writeMarkdownNotes(&head, p)
	writeMarkdownOutputs(&head, p)
	head.WriteString("\n")

	shown := shownInOrder(p.Changes)
	order := make([]*Change, len(shown))
	for i := range shown {
		order[i] = &shown[i]
	}
	rank := map[Action]int{Delete: 0, Replace: 1, Update: 2, Create: 3, Import: 4, Forget: 5, NoOp: 6}
	sort.SliceStable(order, func(i, j int) bool { return rank[order[i].Action] < rank[order[j].Action] })

	var body bytes.Buffer
	left := map[Action]int{}
	leftN := 0
	// What the note about left-out sections may take, at most.
	const reserve = 600
	for idx, c := range order {
		sec := markdownSection(c)
		if head.Len()+body.Len()+len(sec)+reserve > limit {
			for _, rest := range order[idx:] {
				left[rest.Action]++
				leftN++
			}
			break
		}
		body.WriteString(sec)
	}
	if leftN > 0 {
		var parts []string
		for _, a := range []Action{Delete, Replace, Update, Create, Import, Forget, NoOp} {
			if n := left[a]; n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", n, a))
			}
		}
		fmt.Fprintf(&body, "\n**%d of %d resources are not shown** (%s) to keep this comment under %d characters",
			leftN, len(order), strings.Join(parts, ", "), limit)
		if o.More != "" {
			fmt.Fprintf(&body, "; %s", o.More)
		}
		body.WriteString(".\n")
	}
	bw := bufio.NewWriter(w)
	bw.Write(head.Bytes())
	bw.Write(body.Bytes())
	return bw.Flush()
}

// maxMarkdownData is how many data sources the Markdown view lists.
const maxMarkdownData = 50

// writeMarkdownData lists the plan's data sources (issue 10).
func writeMarkdownData(b *bytes.Buffer, p *Plan) {
	if len(p.Data) == 0 {
		return
	}
	fmt.Fprintf(b, "\n%s\n\n", mdText(DataHeading))
	for i, s := range p.Data {
		if i == maxMarkdownData {
			fmt.Fprintf(b, "- and %d more (cc plan --json lists them all in data)\n", len(p.Data)-i)
			break
		}
		fmt.Fprintf(b, "- `%s`: %s\n", mdCode(s.Address), mdText(s.Describe()))
	}
}

func writeMarkdownNotes(b *bytes.Buffer, p *Plan) {
	for _, warn := range p.Warnings {
		fmt.Fprintf(b, "\n> **Warning:** %s\n", mdText(warn))
	}
	if len(p.Skipped) > 0 {
		names := InShownOrder(p.Skipped)
		more := ""
		if len(names) > 20 {
			names, more = names[:20], fmt.Sprintf(" and %d more", len(p.Skipped)-20)
		}
		fmt.Fprintf(b, "\nLeft out by `--target`/`--exclude`: %s%s.\n", mdText(strings.Join(names, ", ")), more)
	}
}

// writeCountTable writes counts by kind and action.
func writeCountTable(b *bytes.Buffer, p *Plan) {
	counts := map[schema.Kind]map[Action]int{}
	for i := range p.Changes {
		c := &p.Changes[i]
		if counts[c.Kind] == nil {
			counts[c.Kind] = map[Action]int{}
		}
		counts[c.Kind][c.Action]++
	}
	if lc := p.Summary.Moved + p.Summary.Import + p.Summary.Forget; lc > 0 {
		writeLifecycleCountTable(b, p, counts)
		return
	}
	b.WriteString("| kind | delete | replace | update | create |\n|---|---:|---:|---:|---:|\n")
	for _, k := range schema.Kinds {
		m := counts[k]
		if m == nil {
			continue
		}
		fmt.Fprintf(b, "| %s | %d | %d | %d | %d |\n", k, m[Delete], m[Replace], m[Update], m[Create])
	}
}

// markdownSection is one resource's collapsible section.
func markdownSection(c *Change) string {
	text := markdownDiff(c)
	var b strings.Builder
	first := ""
	if len(c.Reasons) > 0 {
		first = ": " + c.Reasons[0].Message
	}
	first = clipTo(first, 140)
	fmt.Fprintf(&b, "<details><summary><code>%s</code> <b>%s</b> %s%s</summary>\n\n",
		html.EscapeString(c.Symbol()), html.EscapeString(c.Addr), html.EscapeString(ActionPhrase(c)), html.EscapeString(first))
	if c.Range != nil && !c.Range.IsZero() {
		fmt.Fprintf(&b, "Declared at `%s`.\n\n", mdCode(c.Range.String()))
	}
	fence := "```"
	for strings.Contains(text, fence) {
		fence += "`"
	}
	budget := maxSection - b.Len() - 200
	if len(text) > budget {
		cut := strings.LastIndexByte(text[:max(budget, 0)], '\n') + 1
		text = text[:cut] + fmt.Sprintf("… %d more bytes of this change not shown\n", len(text)-cut)
	}
	fmt.Fprintf(&b, "%sdiff\n%s%s\n\n</details>\n", fence, text, fence)
	return b.String()
}

// markdownDiff is the body of a change's diff block, as GitHub's diff
// highlighting reads it: the marker in column 0, "+" for an added field or
// file or line, "-" for a removed one and "!" for a changed one, and a
// space there for context (the reasons, unchanged lines), the text after
// it. A file's or long value's line diff is indented under its field
// after the marker, its hunk headers ("@@") in column 0.
func markdownDiff(c *Change) string {
	var b strings.Builder
	for _, r := range c.Reasons {
		b.WriteString(" # " + r.Message + "\n")
	}
	if c.Action != Delete {
		for i := range c.Fields {
			writeMarkdownField(&b, &c.Fields[i])
		}
	}
	for i := range c.Files {
		f := &c.Files[i]
		line := fmt.Sprintf("%s file %s %s, in %s", mdMarker(f.Op), f.Path, f.Op, f.Via)
		if f.Note != "" {
			line += ": " + f.Note
		}
		b.WriteString(line + "\n")
		writeMarkdownLines(&b, f.Diff)
	}
	return b.String()
}

// mdMarker is the column-0 marker of an added, removed or changed field
// or file.
func mdMarker(op string) string {
	switch op {
	case "added":
		return "+"
	case "removed":
		return "-"
	}
	return "!"
}

func writeMarkdownField(b *strings.Builder, f *FieldChange) {
	line := mdMarker(f.Op) + " " + f.Path
	switch {
	case f.Sensitive && f.Op != "changed":
		line += " = " + Sentinel
	case f.Sensitive:
		line += ": (sensitive value changed)"
	case f.Op == "added":
		line += " = " + display(string(f.After))
	case f.Op == "removed":
		line += " = " + display(string(f.Before))
	case f.Diff != "":
		line += ":"
	default:
		line += ": " + display(string(f.Before)) + " → " + display(string(f.After))
	}
	if f.ForcesReplacement {
		line += "  # forces replacement"
	}
	b.WriteString(line + "\n")
	writeMarkdownLines(b, f.Diff)
}

// writeMarkdownLines writes a unified line diff with its markers in
// column 0 and its lines indented after them.
func writeMarkdownLines(b *strings.Builder, diff string) {
	if diff == "" {
		return
	}
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "@@"):
			b.WriteString(l + "\n")
		case strings.HasPrefix(l, "+"), strings.HasPrefix(l, "-"):
			b.WriteString(l[:1] + "    " + l[1:] + "\n")
		default: // context, or "\ No newline at end of file"
			b.WriteString("     " + strings.TrimPrefix(l, " ") + "\n")
		}
	}
}

// mdCode makes s safe inside a code span.
func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }

// mdText makes s safe as Markdown text.
func mdText(s string) string {
	r := strings.NewReplacer("<", "&lt;", ">", "&gt;", "&", "&amp;", "*", "\\*", "_", "\\_", "`", "\\`", "|", "\\|", "[", "\\[")
	return r.Replace(s)
}

func clipBytes(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return b[:n]
}
