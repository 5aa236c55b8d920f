package planner_test

import (
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// TestIssue16ReplaceFieldsFromSchema: the planner's table is the schema's
// @cc(replace) facts (issue 16 item 1).
func TestIssue16ReplaceFieldsFromSchema(t *testing.T) {
	want := map[schema.Kind][]string{
		// issue 11: entrypoint, args, compute_class, ports, s3_mount,
		// temp_dir, runners and profiles; profile is gone.
		schema.KindSandbox:    {"image", "command", "entrypoint", "args", "resources", "compute_class", "env", "env_from", "ports", "volume_mounts", "mounted_files", "s3_mount", "snapshot", "temp_dir", "identity", "runners", "profiles"},
		schema.KindEvaluation: {"dataset.ref"},
		schema.KindVolume:     {"size (when it shrinks)"},
		// issue 11: container, training; entrypoint and args as a sandbox's.
		schema.KindContainer: {"image", "command", "entrypoint", "args", "resources", "env", "env_from", "ports", "volume_mounts", "mounted_files", "identity"},
		schema.KindTraining:  {"image", "command", "entrypoint", "args", "resources", "dataset_mounts", "volume_mounts", "env", "env_from"},
		// issue 11: scaling groups.
		schema.KindScalingGroup: {"identity"},
		// issue 11: a dataset's platform name is its identity there.
		schema.KindDataset: {"name"},
	}
	if !cmp.Equal(planner.ReplaceFields, want) {
		t.Errorf("ReplaceFields (-got +want):\n%s", cmp.Diff(planner.ReplaceFields, want))
	}
}

// replacePaths are the spec paths FORMAT.md names for a kind's replacing
// fields: dataset.ref for @cc(replace=ref), the field for the others.
func replacePaths(d *schema.Def) (replace, inPlace []string) {
	for _, f := range d.Fields {
		switch f.Replace {
		case schema.ReplaceNever:
			// The lifecycle is in no spec (issue 10): it neither
			// replaces nor changes in place.
			if f.Name != "$id" && f.Name != "lifecycle" {
				inPlace = append(inPlace, f.Name)
			}
		case schema.ReplaceRef:
			replace = append(replace, f.Name+".ref")
		default:
			replace = append(replace, f.Name)
		}
	}
	sort.Strings(replace)
	sort.Strings(inPlace)
	return replace, inPlace
}

var backticked = regexp.MustCompile("`([a-z0-9_.]+)`") // issue 11: s3_mount

func names(s string) []string {
	var out []string
	for _, m := range backticked.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	sort.Strings(out)
	return out
}

// TestIssue16ReplaceDocsMatchSchema: FORMAT.md's "Which changes replace"
// table and the README's replacement paragraph say what the schema's facts
// say (issue 16 item 1). A row's cell names the replacing fields before its
// first ": "; the sandbox's row then names the fields that change in place.
func TestIssue16ReplaceDocsMatchSchema(t *testing.T) {
	b, err := os.ReadFile("FORMAT.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[schema.Kind]string{}
	_, table, _ := strings.Cut(string(b), "| kind | replaced when |\n|---|---|\n")
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, " | ")
		if len(cells) != 2 || !strings.HasPrefix(line, "| ") {
			break
		}
		rows[schema.Kind(strings.TrimPrefix(cells[0], "| "))] = cells[1]
	}
	s := schema.Default()
	for _, k := range schema.Kinds {
		replace, inPlace := replacePaths(s.Kind(k))
		row, ok := rows[k]
		if len(replace) == 0 {
			if ok {
				t.Errorf("FORMAT.md has a row for %s, which the schema never replaces", k)
			}
			continue
		}
		when, why, _ := strings.Cut(row, ": ")
		if got := names(when); !cmp.Equal(got, replace) {
			t.Errorf("FORMAT.md: %s is replaced when %v change, the schema says %v", k, got, replace)
		}
		if k == schema.KindSandbox {
			if got := names(why); !cmp.Equal(got, inPlace) {
				t.Errorf("FORMAT.md: %s changes %v in place, the schema says %v", k, got, inPlace)
			}
		}
	}

	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, para, _ := strings.Cut(string(readme), "- **Replacement:** a sandbox is replaced when its ")
	para, _, _ = strings.Cut(para, "Everything else changes in place.")
	para = strings.Join(strings.Fields(para), " ")
	replaced, inPlace, _ := strings.Cut(para, " (")
	inPlace, others, _ := strings.Cut(inPlace, " change in place)")
	// The README says "env" for env and env_from, "mounts" for both kinds
	// of mount.
	word := map[string]string{"env_from": "env", "volume_mounts": "mounts", "mounted_files": "mounts"}
	words := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' }) {
			m[w] = true
		}
		return m
	}
	rw, iw := words(replaced), words(inPlace)
	rep, in := replacePaths(s.Kind(schema.KindSandbox))
	for _, f := range rep {
		if w := word[f]; !rw[f] && !rw[w] {
			t.Errorf("README: a sandbox is replaced when %s changes, but the paragraph does not say so: %q", f, replaced)
		}
	}
	for _, f := range in {
		if !iw[f] {
			t.Errorf("README: a sandbox's %s changes in place, but the paragraph does not say so: %q", f, inPlace)
		}
	}
	for _, want := range []string{"a volume when it shrinks", "an evaluation when it points at another dataset"} {
		if !strings.Contains(others, want) {
			t.Errorf("README's replacement paragraph lacks %q: %q", want, others)
		}
	}
	if got := planner.ReplaceFields[schema.KindVolume]; !cmp.Equal(got, []string{"size (when it shrinks)"}) {
		t.Errorf("the README says a volume is replaced when it shrinks; ReplaceFields says %v", got)
	}
	if got := planner.ReplaceFields[schema.KindEvaluation]; !cmp.Equal(got, []string{"dataset.ref"}) {
		t.Errorf("the README says an evaluation is replaced when it points at another dataset; ReplaceFields says %v", got)
	}
}
