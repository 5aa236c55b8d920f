package main

import (
	"fmt"
	"strconv"
	"strings"
)

// table is one Markdown table: commands measured in the same interleaved
// rounds, with a ratio column for each base (a floor or a peer).
type table struct {
	title string
	notes []string
	rows  []*result
	bases []*result
}

// markdown writes the table under a level-3 heading.
func (t *table) markdown(b *strings.Builder) {
	fmt.Fprintf(b, "### %s\n\n", t.title)
	for _, n := range t.notes {
		b.WriteString(n + "\n")
	}
	if len(t.notes) > 0 {
		b.WriteString("\n")
	}
	head := []string{"command", "median", "range"}
	for _, base := range t.bases {
		head = append(head, "ratio to "+base.spec.label)
	}
	head = append(head, "peak RSS", "per resource")
	writeRow(b, head)
	writeRow(b, strings.Split(strings.Repeat("---,", len(head)-1)+"---", ","))
	for _, r := range t.rows {
		writeRow(b, t.cells(r))
	}
	b.WriteString("\n")
}

// cells are one row of the table.
func (t *table) cells(r *result) []string {
	secs := r.seconds()
	lo, hi := span(secs)
	row := []string{r.spec.label, fmtDur(median(secs)), fmtDur(lo) + "–" + fmtDur(hi)}
	for _, base := range t.bases {
		row = append(row, fmtRatio(r, base))
	}
	rss := median(r.rss())
	row = append(row, fmtMiB(rss), perResource(median(secs), rss, r.spec.resources))
	return row
}

func writeRow(b *strings.Builder, cells []string) {
	b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
}

// fmtRatio is the ratio of the medians and, with more than one round, the
// range of the round-by-round ratios.
func fmtRatio(r, base *result) string {
	if r == base {
		return "1.00"
	}
	perRound, m := ratios(r, base)
	s := fmt.Sprintf("%.2f", m)
	if len(perRound) > 1 {
		lo, hi := span(perRound)
		s += fmt.Sprintf(" (%.2f–%.2f)", lo, hi)
	}
	return s
}

// fmtDur writes seconds with three significant digits, in s or ms.
func fmtDur(sec float64) string {
	switch {
	case sec >= 100:
		return fmt.Sprintf("%.0f s", sec)
	case sec >= 10:
		return fmt.Sprintf("%.1f s", sec)
	case sec >= 1:
		return fmt.Sprintf("%.2f s", sec)
	}
	ms := sec * 1000
	switch {
	case ms >= 100:
		return fmt.Sprintf("%.0f ms", ms)
	case ms >= 10:
		return fmt.Sprintf("%.1f ms", ms)
	}
	return fmt.Sprintf("%.2f ms", ms)
}

// fmtMiB writes KiB as MiB.
func fmtMiB(kib float64) string {
	if kib <= 0 {
		return "—"
	}
	return fmt.Sprintf("%.0f MiB", kib/1024)
}

// perResource is the time (µs) and peak memory (KiB) per resource.
func perResource(sec, rssKiB float64, n int) string {
	if n <= 0 {
		return ""
	}
	return fmtPerResource(sec, rssKiB, n)
}

func fmtPerResource(sec, rssKiB float64, n int) string {
	us := sec * 1e6 / float64(n)
	return fmt.Sprintf("%s µs, %s KiB", sig3(us), sig3(rssKiB/float64(n)))
}

// sig3 writes x with about three significant digits.
func sig3(x float64) string {
	switch {
	case x >= 100:
		return fmt.Sprintf("%.0f", x)
	case x >= 10:
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

// commas writes n with thousands separators: 10,000.
func commas(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
