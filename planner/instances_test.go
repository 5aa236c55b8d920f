package planner_test

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
	"cc.dev/cc/state"
)

// TestInstanceAddresses checks that --target, --exclude and --replace
// take instance addresses, and that a repeated block's own address names
// every instance, in the configuration and in the state (issue 12:
// reuse).
func TestInstanceAddresses(t *testing.T) {
	v0 := res(t, "volume.cache[0]", map[string]any{"size": "1Gi"})
	wa := res(t, `sandbox.worker["a"]`, map[string]any{"image": "x"}, "volume.cache[0]")
	wb := res(t, `sandbox.worker["b"]`, map[string]any{"image": "y"})
	all := desired(v0, wa, wb)
	for _, tt := range []struct {
		o    planner.Options
		want []string
	}{
		{planner.Options{Targets: []string{`sandbox.worker["a"]`}}, []string{`sandbox.worker["a"]:create`, "volume.cache[0]:create"}},
		{planner.Options{Targets: []string{"sandbox.worker"}}, []string{`sandbox.worker["a"]:create`, `sandbox.worker["b"]:create`, "volume.cache[0]:create"}},
		{planner.Options{Excludes: []string{"volume.cache"}}, []string{`sandbox.worker["b"]:create`}},
	} {
		if p := diff(t, all, nil, tt.o); !cmp.Equal(addrs(p), tt.want) {
			t.Errorf("Diff(%+v) = %v, want %v", tt.o, addrs(p), tt.want)
		}
	}
	if _, err := planner.Diff(all, nil, planner.Options{Targets: []string{`sandbox.worker["c"]`}}); err == nil || !strings.Contains(err.Error(), `did you mean sandbox.worker["a"]?`) {
		t.Errorf("--target of a missing instance = %v", err)
	}
	// In the state only: the removed instance is still every instance's.
	st := applied(all, 1)
	p := diff(t, desired(v0, wa), st, planner.Options{Targets: []string{"sandbox.worker"}})
	if !cmp.Equal(addrs(p), []string{`sandbox.worker["b"]:delete`}) {
		t.Errorf("--target sandbox.worker after removing b = %v", addrs(p))
	}
	p = diff(t, all, st, planner.Options{Replace: []string{"sandbox.worker"}})
	if c := change(t, p, `sandbox.worker["b"]`); c.Action != planner.Replace {
		t.Errorf("--replace sandbox.worker: worker b is %s", c.Action)
	}
}

// TestInstancesShownInOrder: the views show count instances as people
// count (w[2] before w[10]); the plan itself and its JSON keep byte order
// (FORMAT.md).
func TestInstancesShownInOrder(t *testing.T) {
	var rs []schema.Resource
	for i := range 12 {
		rs = append(rs, res(t, fmt.Sprintf("volume.w[%d]", i), map[string]any{"size": "1Gi"}))
	}
	rs = append(rs, res(t, "volume.a", map[string]any{"size": "1Gi"}), res(t, "volume.w", map[string]any{"size": "1Gi"}))
	p := diff(t, desired(rs...), nil, planner.Options{})
	if got := addrs(p); got[2] != "volume.w[0]:create" || got[3] != "volume.w[10]:create" {
		t.Fatalf("the plan's changes = %v, want byte order", got)
	}
	want := []string{"volume.a", "volume.w"}
	for i := range 12 {
		want = append(want, fmt.Sprintf("volume.w[%d]", i))
	}
	// Where each address is shown, in a view that shows it as pattern does.
	order := func(view, out, pattern string) []string {
		idx := map[string]int{}
		for _, a := range want {
			if idx[a] = strings.Index(out, fmt.Sprintf(pattern, a)); idx[a] < 0 {
				t.Fatalf("the %s view has no %s:\n%s", view, a, out)
			}
		}
		got := slices.Clone(want)
		sort.SliceStable(got, func(i, j int) bool { return idx[got[i]] < idx[got[j]] })
		return got
	}
	out := renderAll(t, p)
	for view, pattern := range map[string]string{"text": " %s  ", "markdown": "<b>%s</b>"} {
		if got := order(view, out[view], pattern); !cmp.Equal(got, want) {
			t.Errorf("the %s view shows %v, want %v", view, got, want)
		}
	}
	if i, j := strings.Index(out["json"], `"volume.w[10]"`), strings.Index(out["json"], `"volume.w[2]"`); i < 0 || j < 0 || i > j {
		t.Errorf("the JSON view does not keep byte order (w[10] at %d, w[2] at %d)", i, j)
	}
}

// TestListsShownInOrder: the lists of addresses in the views (the drift
// section, the data loss line, "left out by --target") show count
// instances as the changes are shown, w[2] before w[10]; the JSON view
// keeps the plan's byte order (FORMAT.md).
func TestListsShownInOrder(t *testing.T) {
	p := diff(t, desired(res(t, "volume.a", map[string]any{"size": "1Gi"})), nil, planner.Options{})
	byteOrder := []string{"volume.w[0]", "volume.w[10]", "volume.w[2]"}
	p.Skipped = byteOrder
	p.DataLoss = byteOrder
	for _, a := range byteOrder {
		p.Drift = append(p.Drift, planner.DriftChange{Address: a, Kind: schema.KindVolume, What: state.DriftTerminated})
	}
	out := renderAll(t, p)
	// where each instance is shown in a stretch of a view
	inOrder := func(view, stretch string) {
		t.Helper()
		stretch = strings.ReplaceAll(stretch, `\[`, "[") // Markdown's escape
		i, j := strings.Index(stretch, "w[2]"), strings.Index(stretch, "w[10]")
		if i < 0 || j < 0 || i > j {
			t.Errorf("the %s view shows w[10] at %d, w[2] at %d, want w[2] first:\n%s", view, j, i, stretch)
		}
	}
	for _, view := range []string{"text", "markdown"} {
		lines := strings.Split(out[view], "\n")
		var drift []string
		for _, l := range lines {
			switch {
			case strings.Contains(l, "Left out by"):
				inOrder(view+" left-out line", l)
			case strings.Contains(l, "Data loss:"):
				inOrder(view+" data loss line", l)
			case strings.Contains(l, "volume.w[") && strings.Contains(l, "terminated"):
				drift = append(drift, l)
			}
		}
		if len(drift) != 3 {
			t.Fatalf("the %s view's drift section has %d lines, want 3:\n%s", view, len(drift), out[view])
		}
		inOrder(view+" drift section", strings.Join(drift, "\n"))
	}
	if i, j := strings.Index(out["json"], `"volume.w[10]"`), strings.Index(out["json"], `"volume.w[2]"`); i < 0 || j < 0 || i > j {
		t.Errorf("the JSON view does not keep byte order (w[10] at %d, w[2] at %d)", i, j)
	}
}
