package planner

import (
	"bufio"
	"bytes"
	"fmt"
	"html"
	"strings"

	"cc.dev/cc/schema"
)

// DriftHeading is the title of the section every view shows first when
// something changed outside cc (Terraform's "Objects have changed outside
// of Terraform").
const DriftHeading = "Changed outside cc since the last apply"

// driftShown is the drift in the order the views show addresses
// (inShownOrder), each address's records in the plan's order.
func driftShown(ds []DriftChange) []DriftChange {
	return inShownOrder(ds, func(d *DriftChange) string { return d.Address })
}

// writeDriftText writes the "changed outside cc" section, if any: each
// record with who and when, then its fields.
func writeDriftText(w *bufio.Writer, p *Plan, pt painter) {
	if !p.Drifted() {
		return
	}
	fmt.Fprintln(w, pt.paint(ansiBold, DriftHeading+":"))
	shown := driftShown(p.Drift)
	for i := range shown {
		d := &shown[i]
		w.WriteByte('\n')
		sym := pt.paint(ansiYellow, "~")
		if driftSymbol(d) == "-" {
			sym = pt.paint(ansiRed, "-")
		}
		fmt.Fprintf(w, "  %s %s  %s\n", sym, pt.paint(ansiBold, d.Address), DriftLine(d))
		for j := range d.Fields {
			writeField(w, &d.Fields[j], "      ", pt)
		}
	}
	w.WriteByte('\n')
	if p.Changed() {
		fmt.Fprintln(w, "The plan below puts the configuration back.")
		w.WriteByte('\n')
	}
}

// writeRefreshOnlyText writes a refresh-only plan: the section alone, and
// what cc apply --refresh-only does with it.
func writeRefreshOnlyText(w *bufio.Writer, p *Plan, pt painter) {
	if !p.Drifted() {
		fmt.Fprintf(w, "No changes outside cc. Project %s at state serial %d is as cc last applied it (%d %s).\n",
			schema.ScopeTitle(p.Project), p.Serial, p.Summary.Unchanged, plural(p.Summary.Unchanged, "resource", "resources"))
		writeNotes(w, p)
		return
	}
	writeDriftText(w, p, pt)
	writeNotes(w, p)
	fmt.Fprintln(w, pt.paint(ansiBold, RefreshOnlyLine(p)))
}

// RefreshOnlyLine is a refresh-only plan's summary.
func RefreshOnlyLine(p *Plan) string {
	return fmt.Sprintf("Refresh-only plan for project %s at state serial %d: %d %s outside cc; cc apply --refresh-only records %s as the project's state and changes nothing on the platform.",
		schema.ScopeTitle(p.Project), p.Serial, len(p.Drift), plural(len(p.Drift), "change", "changes"), plural(len(p.Drift), "it", "them"))
}

// maxDriftMarkdown bounds the Markdown drift section (about a third of a
// comment), so that the plan itself still fits after it.
const maxDriftMarkdown = 20_000

// writeDriftMarkdown writes the "changed outside cc" section: a heading,
// then one line per record with its fields in a diff block.
func writeDriftMarkdown(b *bytes.Buffer, p *Plan) {
	if !p.Drifted() {
		return
	}
	fmt.Fprintf(b, "#### %s\n\n", DriftHeading)
	start := b.Len()
	shown := driftShown(p.Drift)
	for i := range shown {
		d := &shown[i]
		if b.Len()-start > maxDriftMarkdown {
			fmt.Fprintf(b, "- … and %d more not shown here, to keep this comment short (`cc plan --json` lists them all)\n", len(p.Drift)-i)
			break
		}
		fmt.Fprintf(b, "- `%s` **%s** %s\n", driftSymbol(d), html.EscapeString(d.Address), mdText(DriftLine(d)))
		if len(d.Fields) == 0 {
			continue
		}
		var body strings.Builder
		for j := range d.Fields {
			writeMarkdownField(&body, &d.Fields[j])
		}
		text := body.String()
		fence := "```"
		for strings.Contains(text, fence) {
			fence += "`"
		}
		if text = clipTo(text, maxDriftMarkdown/4); !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		fmt.Fprintf(b, "\n  %sdiff\n%s  %s\n", fence, indentLines(text, "  "), fence)
	}
	b.WriteString("\n")
	if p.Changed() {
		b.WriteString("The plan below puts the configuration back.\n\n")
	}
}

// indentLines puts prefix before every line of s.
func indentLines(s, prefix string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(s, "\n") {
		if l != "" {
			b.WriteString(prefix + l)
		}
	}
	return b.String()
}

// writeRefreshOnlyMarkdown writes a refresh-only plan for a pull-request
// comment.
func writeRefreshOnlyMarkdown(b *bytes.Buffer, p *Plan) {
	if !p.Drifted() {
		fmt.Fprintf(b, "**No changes outside cc.** The service's state (serial %d) is as cc last applied it (%d %s).\n",
			p.Serial, p.Summary.Unchanged, plural(p.Summary.Unchanged, "resource", "resources"))
		writeMarkdownNotes(b, p)
		return
	}
	writeDriftMarkdown(b, p)
	fmt.Fprintf(b, "**%s**\n", mdText(RefreshOnlyLine(p)))
	writeMarkdownNotes(b, p)
}
