package planner_test

import (
	"strings"
	"testing"

	"cc.dev/cc/planner"
	"cc.dev/cc/schema"
)

// TestFlagsNameMovedAddress: issue 10: moves meet forced versions. A
// --new-version, --replace, --target or --exclude that names the address
// a function moves away from in the same plan is refused, saying where it
// moves (the state has the old address, so "no such resource in the
// configuration or the state" would be wrong); the new address works.
func TestFlagsNameMovedAddress(t *testing.T) {
	fn := func(addr string) schema.Resource {
		return res(t, addr, map[string]any{"image": digest("i"), "handler": "m:run"})
	}
	st := applied(desired(fn("function.rank")), 4)
	d := desired(fn("function.score"))
	d.Moves = []schema.Moved{{From: "function.rank", To: "function.score"}}
	for _, tc := range []struct {
		flag string
		o    planner.Options
	}{
		{"--new-version", planner.Options{NewVersion: []string{"function.rank"}}},
		{"--replace", planner.Options{Replace: []string{"function.rank"}}},
		{"--target", planner.Options{Targets: []string{"function.rank"}}},
		{"--exclude", planner.Options{Excludes: []string{"function.rank"}}},
	} {
		_, err := planner.Diff(d, st, tc.o)
		want := tc.flag + " function.rank: this plan moves function.rank to function.score; name function.score"
		if err == nil || err.Error() != want {
			t.Errorf("Diff(%s function.rank) = %v, want %q", tc.flag, err, want)
		}
	}
	p := diff(t, d, st, planner.Options{NewVersion: []string{"function.score"}})
	if c := change(t, p, "function.score"); c.MovedFrom != "function.rank" || c.Version == nil || !c.Version.Forced || c.Version.Number != 2 {
		t.Errorf("--new-version function.score: %+v, want moved from function.rank with forced version 2", c)
	}
	if !strings.Contains(reasons(change(t, p, "function.score")), "new version requested") {
		t.Errorf("reasons %q, want new version requested", reasons(change(t, p, "function.score")))
	}
}

// TestDestroyForgetsRemovedIgnoresImports: issue 10: forgetting and
// adoption meet cc destroy. A destroy deletes what the project has: a
// resource the configuration declares removed is forgotten instead (the
// service keeps it, unowned), and an import declaration adopts nothing and
// is no error, whether or not the service has what it names.
func TestDestroyForgetsRemovedIgnoresImports(t *testing.T) {
	vol := func(addr string) schema.Resource { return res(t, addr, map[string]any{"size": "1Gi"}) }
	st := applied(desired(vol("volume.cache"), vol("volume.other")), 5)
	st.Unowned = applied(desired(vol("volume.back")), 1).Resources
	d := desired(vol("volume.other"), vol("volume.back"))
	d.Removed = []schema.Removed{{Address: "volume.cache"}}
	d.Imports = []schema.Imported{{To: "volume.back", ID: "back"}, {To: "volume.gone", ID: "gone"}}
	p := diff(t, d, st, planner.Options{Destroy: true})
	if got, want := strings.Join(addrs(p), " "), "volume.cache:forget volume.other:delete"; got != want {
		t.Fatalf("destroy changes = %s, want %s", got, want)
	}
	if p.Summary.Import != 0 || p.Summary.Forget != 1 || p.Summary.Delete != 1 {
		t.Errorf("summary %+v, want 1 forget, 1 delete and no import", p.Summary)
	}
}
