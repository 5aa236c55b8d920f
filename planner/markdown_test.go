package planner_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"cc.dev/cc/compiler"
	"cc.dev/cc/compiler/workload"
	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// compileWorkload compiles a generated project.
func compileWorkload(t testing.TB, o workload.Options) *schema.Desired {
	t.Helper()
	dir := t.TempDir()
	if err := workload.Write(dir, o); err != nil {
		t.Fatal(err)
	}
	res, err := compiler.Compile(context.Background(), compiler.Input{Path: filepath.Join(dir, "main.hcl")})
	if err != nil {
		t.Fatal(err)
	}
	return res.Desired
}

// TestMarkdown2000 is acceptance 6: the Markdown of a 2,000-resource change
// stays under 65,000 characters, destructive changes first, and says how
// many sections it left out.
func TestMarkdown2000(t *testing.T) {
	old := compileWorkload(t, workload.Options{N: 2000})
	cur := compileWorkload(t, workload.Options{N: 2000, Seed: 1})
	// Drop some resources, so the plan has deletes to show first.
	cur.Resources = cur.Resources[:len(cur.Resources)-30]
	p := diff(t, cur, applied(old, 9), planner.Options{})
	if len(p.Changes) < 1900 {
		t.Fatalf("%d changes, want most of 2,000", len(p.Changes))
	}
	var b bytes.Buffer
	if err := planner.WriteMarkdown(&b, p, planner.MarkdownOptions{More: "run `cc show plan.out` for the whole plan"}); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if len(md) >= 65_000 {
		t.Fatalf("Markdown is %d characters, want under 65,000", len(md))
	}
	m := regexp.MustCompile(`\*\*(\d+) of (\d+) resources are not shown\*\* \(([^)]*)\) to keep this comment under 65000 characters; run .cc show plan.out. for the whole plan\.`).FindStringSubmatch(md)
	if m == nil {
		t.Fatalf("Markdown does not say what it left out; it ends:\n%s", md[len(md)-500:])
	}
	shown := strings.Count(md, "<details>")
	left, _ := strconv.Atoi(m[1])
	total, _ := strconv.Atoi(m[2])
	if total != len(p.Changes) || shown+left != total || shown == 0 {
		t.Errorf("%d shown + %d left out, of %d; the plan has %d", shown, left, total, len(p.Changes))
	}
	if strings.Count(md, "</details>") != shown {
		t.Error("a section was cut in the middle")
	}
	// Destructive changes first: deletes, replaces, updates, creates.
	rank := map[string]int{"-": 0, "-/+": 1, "~": 2, "+": 3}
	last, seen := -1, map[string]bool{}
	for _, m := range regexp.MustCompile(`<summary><code>([^<]*)</code>`).FindAllStringSubmatch(md, -1) {
		r, ok := rank[m[1]]
		if !ok || r < last {
			t.Fatalf("section %q after a section of rank %d", m[1], last)
		}
		last = r
		seen[m[1]] = true
	}
	if !seen["-"] || !seen["-/+"] {
		t.Errorf("sections shown: %v, want deletes and replaces", seen)
	}
	if !strings.Contains(md, "| kind | delete | replace | update | create |") {
		t.Error("no summary table")
	}
}

// TestMarkdownSmall: the whole Markdown of a small plan. Its diff blocks
// have GitHub's markers in column 0 ("!" for a changed field) and context
// after a space (issue 9 item 17).
func TestMarkdownSmall(t *testing.T) {
	d := desired(res(t, "volume.v", map[string]any{"size": "1Gi"}), res(t, "sandbox.s", map[string]any{"image": digest("i")}))
	st := applied(desired(res(t, "volume.v", map[string]any{"size": "2Gi"}), res(t, "volume.old", map[string]any{"size": "1Gi"})), 4)
	var b bytes.Buffer
	if err := planner.WriteMarkdown(&b, diff(t, d, st, planner.Options{}), planner.MarkdownOptions{}); err != nil {
		t.Fatal(err)
	}
	// Issue 8 item 1: the volumes whose data the plan destroys come first.
	want := "**Data loss: this plan destroys the data of 2 resources: volume.old (delete), volume.v (replace). cc apply carries it out only with --allow-data-loss.**\n\n" +
		"### cc plan: `p`\n\n**Plan: 1 to create, 0 to update, 1 to replace, 1 to delete.** Planned against state serial 4; 0 resources unchanged.\n\n" +
		"| kind | delete | replace | update | create |\n|---|---:|---:|---:|---:|\n| volume | 1 | 1 | 0 | 0 |\n| sandbox | 0 | 0 | 0 | 1 |\n\n" +
		"<details><summary><code>-</code> <b>volume.old</b> delete: no longer in the configuration</summary>\n\n```diff\n # no longer in the configuration\n```\n\n</details>\n" +
		"<details><summary><code>-/+</code> <b>volume.v</b> replace (size forces replacement): size &#34;2Gi&#34; → &#34;1Gi&#34;</summary>\n\n```diff\n # size \"2Gi\" → \"1Gi\"\n! size: \"2Gi\" → \"1Gi\"  # forces replacement\n```\n\n</details>\n" +
		"<details><summary><code>+</code> <b>sandbox.s</b> create: new in the configuration</summary>\n\n```diff\n # new in the configuration\n+ image = \"sha256:" + strings.TrimPrefix(digest("i"), "sha256:")[:12] + "…\"\n```\n\n</details>\n"
	if got := b.String(); got != want {
		t.Errorf("WriteMarkdown() =\n%s\nwant:\n%s", got, want)
	}
}
