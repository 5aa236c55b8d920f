package planner

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"

	"cc.dev/cc/schema"
)

// TextOptions shape the text view.
type TextOptions struct {
	// Color marks actions with ANSI colours: only for a terminal, and
	// never when NO_COLOR is set (the caller decides).
	Color bool
}

const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiDim    = "\x1b[2m"
)

type painter bool

func (p painter) paint(code, s string) string {
	if !p || s == "" {
		return s
	}
	return code + s + ansiReset
}

func (p painter) action(a Action, s string) string {
	switch a {
	case Create:
		return p.paint(ansiGreen, s)
	case Update:
		return p.paint(ansiYellow, s)
	case Replace, Delete:
		return p.paint(ansiRed, s)
	case Import:
		return p.paint(ansiGreen, s)
	case Forget, NoOp:
		return p.paint(ansiYellow, s)
	}
	return s
}

// WriteText renders the plan for a terminal: each change with its symbol
// (+ create, ~ update in place, -/+ replace, - delete), reasons, fields and
// file diffs, then a one-line summary.
func WriteText(w io.Writer, p *Plan, o TextOptions) error {
	bw := bufio.NewWriter(w)
	pt := painter(o.Color)
	if p.RefreshOnly {
		writeRefreshOnlyText(bw, p, pt)
		return bw.Flush()
	}
	writeDriftText(bw, p, pt)
	if !p.Changed() {
		fmt.Fprintf(bw, "No changes. Project %s at state serial %d matches the configuration (%d %s).\n",
			schema.ScopeTitle(p.Project), p.Serial, p.Summary.Unchanged, plural(p.Summary.Unchanged, "resource", "resources"))
		writeData(bw, p)
		writeNotes(bw, p)
		return bw.Flush()
	}
	if line := DeletesAllLine(p); line != "" {
		fmt.Fprintln(bw, pt.paint(ansiBold+ansiRed, line))
	}
	if line := DataLossLine(p); line != "" {
		fmt.Fprintln(bw, pt.paint(ansiBold+ansiRed, line))
	}
	cbd := ""
	if createsBeforeDestroy(p) {
		cbd = fmt.Sprintf(" (%s: create before destroy)", pt.action(Replace, "+/-"))
	}
	fmt.Fprintf(bw, "Plan for project %s at state serial %d. Actions: %s create, %s update in place, %s replace%s, %s delete%s.\n",
		schema.ScopeTitle(p.Project), p.Serial, pt.action(Create, "+"), pt.action(Update, "~"), pt.action(Replace, "-/+"), cbd, pt.action(Delete, "-"), lifecycleLegend(p, pt))
	if len(p.Data) > 0 {
		bw.WriteByte('\n')
		writeData(bw, p)
	}
	writeChanges(bw, shownInOrder(p.Changes), pt)
	bw.WriteByte('\n')
	writeOutputChanges(bw, p, pt)
	writeNotes(bw, p)
	fmt.Fprintln(bw, pt.paint(ansiBold, SummaryLine(p)))
	return bw.Flush()
}

// DataHeading introduces the data sources of a plan in every view.
const DataHeading = "Data sources, resolved and pinned (the apply uses exactly these):"

// DataLine says what a data source resolved to:
// "data.dataset.evals: dataset build-evals, revision 3".
func DataLine(s DataSource) string { return s.Address + ": " + s.Describe() }

// writeData lists the plan's data sources.
func writeData(w io.Writer, p *Plan) {
	if len(p.Data) == 0 {
		return
	}
	fmt.Fprintln(w, DataHeading)
	for _, s := range p.Data {
		fmt.Fprintf(w, "  %s\n", DataLine(s))
	}
}

func writeNotes(w io.Writer, p *Plan) {
	for _, warn := range p.Warnings {
		fmt.Fprintf(w, "Warning: %s\n", warn)
	}
	if len(p.Skipped) > 0 {
		fmt.Fprintf(w, "Left out by --target/--exclude (%d): %s\n", len(p.Skipped), strings.Join(InShownOrder(p.Skipped), ", "))
	}
}

// SummaryLine is the plan's one-line summary: "Plan: 3 to create, 1 to
// update, 0 to replace, 0 to delete; 2 versions reused."
func SummaryLine(p *Plan) string {
	s := p.Summary
	if !p.Changed() {
		return "No changes."
	}
	line := fmt.Sprintf("Plan: %d to create, %d to update, %d to replace, %d to delete", s.Create, s.Update, s.Replace, s.Delete)
	line += lifecycleCounts(s)
	if n := len(p.Outputs); n > 0 {
		line += fmt.Sprintf(", %d %s to change", n, plural(n, "output", "outputs"))
	}
	var v []string
	if s.NewVersions > 0 {
		v = append(v, fmt.Sprintf("%d new %s", s.NewVersions, plural(s.NewVersions, "version", "versions")))
	}
	if s.ReusedVersions > 0 {
		v = append(v, fmt.Sprintf("%d %s reused", s.ReusedVersions, plural(s.ReusedVersions, "version", "versions")))
	}
	if s.NewRevisions > 0 {
		v = append(v, fmt.Sprintf("%d new %s", s.NewRevisions, plural(s.NewRevisions, "revision", "revisions")))
	}
	if len(v) > 0 {
		line += "; " + strings.Join(v, ", ")
	}
	return line + "."
}

// ActionPhrase says what a change does, in a few words: "create", "new
// version 3", "reuse version 1", "replace (image forces replacement)".
func ActionPhrase(c *Change) string {
	if p := lifecyclePhrase(c); p != "" {
		return p
	}
	switch c.Action {
	case Create:
		if c.Version != nil {
			return fmt.Sprintf("create, %s %d", c.Kind.VersionNoun(), c.Version.Number)
		}
		return "create"
	case Update:
		if v := c.Version; v != nil {
			noun := c.Kind.VersionNoun()
			if v.Action == "reuse" {
				return fmt.Sprintf("reuse %s %d (now %d)", noun, v.Number, v.Current)
			}
			if v.Forced {
				return fmt.Sprintf("new version %d (new version requested; now %d)", v.Number, v.Current)
			}
			return fmt.Sprintf("new %s %d (now %d)", noun, v.Number, v.Current)
		}
		if c.Kind == schema.KindImage {
			return "update: a new image"
		}
		return "update in place"
	case Replace:
		if c.Lifecycle != nil && c.Lifecycle.CreateBeforeDestroy {
			return "create before destroy: " + replacePhrase(c)
		}
		return replacePhrase(c)
	case Delete:
		return "delete"
	}
	return c.Action.String()
}

// changesPerChunk is how many changes writeChanges renders at a time.
const changesPerChunk = 256

// shownInOrder is cs in the order people read addresses
// (schema.CompareAddresses: w[2] before w[10]), for the views; cs itself
// when it is in that order already. A plan's changes stay in byte order
// everywhere else (FORMAT.md).
func shownInOrder(cs []Change) []Change {
	return inShownOrder(cs, func(c *Change) string { return c.Addr })
}

// InShownOrder is addrs in the order the views show addresses
// (schema.CompareAddresses), for a list of them in a message: addrs
// itself when it is in that order already, else a sorted copy.
func InShownOrder(addrs []string) []string {
	return inShownOrder(addrs, func(a *string) string { return *a })
}

// inShownOrder is xs stably sorted by the address addr gives, as
// schema.CompareAddresses orders addresses; xs itself when it is in that
// order already.
func inShownOrder[T any](xs []T, addr func(*T) string) []T {
	byAddr := func(a, b T) int { return schema.CompareAddresses(addr(&a), addr(&b)) }
	if slices.IsSortedFunc(xs, byAddr) {
		return xs
	}
	xs = slices.Clone(xs)
	slices.SortStableFunc(xs, byAddr)
	return xs
}

// writeChanges writes each change after an empty line, in order. Runs of
// changesPerChunk are rendered on every core at once (issue 13: the text
// of 10,000 creates took a fifth of a second on one), at most a few runs
// ahead of the one being written.
func writeChanges(w *bufio.Writer, cs []Change, pt painter) {
	render := func(w *bufio.Writer, cs []Change) {
		for i := range cs {
			w.WriteByte('\n')
			writeChange(w, &cs[i], "  ", pt)
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if len(cs) <= changesPerChunk || workers < 2 {
		render(w, cs)
		return
	}
	n := (len(cs) + changesPerChunk - 1) / changesPerChunk
	done := make([]chan []byte, n)
	for i := range done {
		done[i] = make(chan []byte, 1)
	}
	ahead := make(chan struct{}, workers+1) // runs rendered and not yet written
	go func() {
		for i := range n {
			ahead <- struct{}{}
			go func() {
				var b bytes.Buffer
				bw := bufio.NewWriter(&b)
				render(bw, cs[i*changesPerChunk:min(len(cs), (i+1)*changesPerChunk)])
				bw.Flush()
				done[i] <- b.Bytes()
			}()
		}
	}()
	for i := range n {
		w.Write(<-done[i])
		<-ahead
	}
}

func writeChange(w *bufio.Writer, c *Change, indent string, pt painter) {
	fmt.Fprintf(w, "%s%s %s  %s", indent, pt.action(c.Action, c.Symbol()), pt.paint(ansiBold, c.Addr), ActionPhrase(c))
	if c.Range != nil && !c.Range.IsZero() {
		fmt.Fprintf(w, "  %s", pt.paint(ansiDim, c.Range.String()))
	}
	w.WriteByte('\n')
	writeChangeBody(w, c, indent+"    ", pt)
}

// writeChangeBody writes a change's reasons, fields and files.
func writeChangeBody(w *bufio.Writer, c *Change, indent string, pt painter) {
	for _, r := range c.Reasons {
		fmt.Fprintf(w, "%s%s\n", indent, pt.paint(ansiDim, "# "+r.Message))
	}
	if c.Action != Delete {
		for i := range c.Fields {
			writeField(w, &c.Fields[i], indent, pt)
		}
	}
	for i := range c.Files {
		writeFile(w, &c.Files[i], indent, pt)
	}
}

func writeField(w *bufio.Writer, f *FieldChange, indent string, pt painter) {
	var line string
	switch {
	case f.Op == "added" && f.Sensitive:
		line = pt.paint(ansiGreen, "+") + " " + f.Path + " = " + Sentinel
	case f.Op == "removed" && f.Sensitive:
		line = pt.paint(ansiRed, "-") + " " + f.Path + " = " + Sentinel
	case f.Sensitive:
		line = pt.paint(ansiYellow, "~") + " " + f.Path + ": (sensitive value changed)"
	case f.Op == "added":
		line = pt.paint(ansiGreen, "+") + " " + f.Path + " = " + display(string(f.After))
	case f.Op == "removed":
		line = pt.paint(ansiRed, "-") + " " + f.Path + " = " + display(string(f.Before))
	case f.Diff != "":
		line = pt.paint(ansiYellow, "~") + " " + f.Path + ":"
	default:
		line = pt.paint(ansiYellow, "~") + " " + f.Path + ": " + display(string(f.Before)) + " → " + display(string(f.After))
	}
	if f.ForcesReplacement {
		line += "  " + pt.paint(ansiRed, "# forces replacement")
	}
	fmt.Fprintf(w, "%s%s\n", indent, line)
	if f.Diff != "" {
		writeDiff(w, f.Diff, indent+"    ", pt)
	}
}

func writeFile(w *bufio.Writer, f *FileChange, indent string, pt painter) {
	sym := map[string]string{"added": pt.paint(ansiGreen, "+"), "removed": pt.paint(ansiRed, "-")}[f.Op]
	if sym == "" {
		sym = pt.paint(ansiYellow, "~")
	}
	line := fmt.Sprintf("%s file %s %s, in %s", sym, f.Path, f.Op, f.Via)
	if f.Note != "" {
		line += ": " + f.Note
	}
	fmt.Fprintf(w, "%s%s\n", indent, line)
	if f.Diff != "" {
		writeDiff(w, f.Diff, indent+"    ", pt)
	}
}

func writeDiff(w *bufio.Writer, diff, indent string, pt painter) {
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "+"):
			l = pt.paint(ansiGreen, l)
		case strings.HasPrefix(l, "-"):
			l = pt.paint(ansiRed, l)
		case strings.HasPrefix(l, "@@"):
			l = pt.paint(ansiDim, l)
		}
		fmt.Fprintf(w, "%s%s\n", indent, l)
	}
}

var digestRE = regexp.MustCompile(`sha256:([0-9a-f]{12})[0-9a-f]{52}`)

// display renders a JSON value for people: spaced, content digests cut
// to their first 12 hex digits, very long values cut.
func display(raw string) string {
	v, ok := displayPlain(raw)
	if !ok {
		var b strings.Builder
		writeValue(&b, decode([]byte(raw)))
		v = b.String()
	}
	if strings.Contains(v, "sha256:") {
		v = digestRE.ReplaceAllString(v, "sha256:$1…")
	}
	if len(v) > 400 {
		cut := 400
		for cut > 0 && (v[cut]&0xC0) == 0x80 {
			cut--
		}
		v = v[:cut] + fmt.Sprintf("… (%d bytes)", len(v))
	}
	return v
}

// writeValue writes a decoded JSON value with a space after each comma
// and colon.
func writeValue(b *strings.Builder, v any) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.Write(encode(k))
			b.WriteString(": ")
			writeValue(b, t[k])
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, e)
		}
		b.WriteByte(']')
	case json.Number:
		b.WriteString(string(t))
	default:
		b.Write(encode(v))
	}
}

// replacePhrase says what a replace does: "replace (--replace)", "replace
// (image forces replacement)", and for a function the version it makes.
func replacePhrase(c *Change) string {
	why := strings.Join(c.ReplaceBecause, ", ")
	s := "replace (--replace)"
	if why != "--replace" {
		verb := "forces"
		if len(c.ReplaceBecause) > 1 {
			verb = "force"
		}
		s = fmt.Sprintf("replace (%s %s replacement)", why, verb)
	}
	if v := c.Version; v != nil && v.Action == "new" {
		s += fmt.Sprintf(", new %s %d", c.Kind.VersionNoun(), v.Number)
	} else if v != nil {
		s += fmt.Sprintf(", reuse %s %d", c.Kind.VersionNoun(), v.Number)
	}
	return s
}
