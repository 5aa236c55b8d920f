package planner_test

import (
	"bytes"
	"encoding/json"
	"html"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"

	"cc.dev/cc/planner"
)

// TestIssue9MarkdownDiffMarkers: issue 9 item 17. GitHub colours a ```diff
// block's line by its first character: "+" added, "-" removed, "!"
// changed, "@@" a hunk; anything else is plain. The PR Markdown is
// rendered with a GitHub-flavoured Markdown renderer (goldmark with GFM),
// and every changed line must land in a diff block, on a line starting
// with its marker; every other line there is context (a space first) or a
// hunk header. Before, a changed field began "~", reasons "#" and the
// lines of a file's diff were indented, so none was coloured.
func TestIssue9MarkdownDiffMarkers(t *testing.T) {
	raw := func(s string) json.RawMessage { return json.RawMessage(s) }
	p := &planner.Plan{FormatVersion: planner.FormatVersion, Project: "p", Serial: 3,
		Summary: planner.Summary{Update: 1, Replace: 1, Create: 1, Delete: 1},
		Changes: []planner.Change{
			{Addr: "function.f", Kind: "function", Action: planner.Update,
				Reasons: []planner.Reason{{Code: "source", Message: "source changed: src/a.py"}},
				Fields: []planner.FieldChange{
					{Path: "timeout", Op: "changed", Before: raw(`"30s"`), After: raw(`"1m"`)},
					{Path: "env.B", Op: "added", After: raw(`"b"`)},
					{Path: "env.A", Op: "removed", Before: raw(`"a"`)},
					{Path: "env.KEY", Op: "changed", Sensitive: true},
					{Path: "description", Op: "changed", Diff: "@@ -1,2 +1,2 @@\n one\n-two\n+three\n"},
				},
				Files: []planner.FileChange{
					{Path: "src/a.py", Via: "source", Op: "changed", Diff: "@@ -1,3 +1,3 @@\n def f():\n-    return 1\n+    return 2\n -x = 1\n"},
					{Path: "src/b.py", Via: "source", Op: "added", Note: "binary"},
				}},
			{Addr: "sandbox.s", Kind: "sandbox", Action: planner.Replace,
				Reasons: []planner.Reason{{Code: "field", Message: `image changed`}},
				Fields:  []planner.FieldChange{{Path: "image", Op: "changed", Before: raw(`"a"`), After: raw(`"b"`), ForcesReplacement: true}}},
			{Addr: "volume.new", Kind: "volume", Action: planner.Create,
				Reasons: []planner.Reason{{Code: "new", Message: "new in the configuration"}},
				Fields:  []planner.FieldChange{{Path: "size", Op: "added", After: raw(`"1Gi"`)}}},
			{Addr: "volume.old", Kind: "volume", Action: planner.Delete,
				Reasons: []planner.Reason{{Code: "removed", Message: "no longer in the configuration"}}},
		}}
	var md bytes.Buffer
	if err := planner.WriteMarkdown(&md, p, planner.MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := diffBlockLines(t, md.Bytes())
	for _, want := range []string{
		`! timeout: "30s" → "1m"`,
		`+ env.B = "b"`,
		`- env.A = "a"`,
		`! env.KEY: (sensitive value changed)`,
		`! description:`,
		`-    two`,
		`+    three`,
		`! file src/a.py changed, in source`,
		`-        return 1`,
		`+        return 2`,
		`+ file src/b.py added, in source: binary`,
		`! image: "a" → "b"  # forces replacement`,
		`+ size = "1Gi"`,
	} {
		if !lines[want] {
			t.Errorf("no diff block line %q; the diff blocks:\n%s", want, strings.Join(sortedKeys(lines), "\n"))
		}
	}
	// The rest is context, a space first: a file's line "-x = 1" that did
	// not change stays context, and so do the reasons.
	for _, want := range []string{"     def f():", "     -x = 1", " # source changed: src/a.py", " # no longer in the configuration", "@@ -1,3 +1,3 @@"} {
		if !lines[want] {
			t.Errorf("no context line %q", want)
		}
	}
	for l := range lines {
		if l != "" && !strings.ContainsAny(l[:1], "+-! ") && !strings.HasPrefix(l, "@@") {
			t.Errorf("diff block line %q starts with neither a marker nor a space: GitHub shows it uncoloured", l)
		}
	}
}

// diffBlockLines renders Markdown as GitHub does (GFM) and returns the
// lines of its ```diff code blocks.
func diffBlockLines(t *testing.T, md []byte) map[string]bool {
	t.Helper()
	var out bytes.Buffer
	if err := goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert(md, &out); err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile(`(?s)<pre><code class="language-diff">(.*?)</code></pre>`).FindAllStringSubmatch(out.String(), -1)
	if len(blocks) == 0 {
		t.Fatalf("no diff code block in the rendered HTML:\n%s", out.String())
	}
	lines := map[string]bool{}
	for _, b := range blocks {
		for _, l := range strings.Split(strings.TrimSuffix(html.UnescapeString(b[1]), "\n"), "\n") {
			lines[l] = true
		}
	}
	return lines
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
