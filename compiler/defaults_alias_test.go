package compiler

import (
	"testing"

	"cc.dev/cc/schema"
)

// TestDefaultsNotShared: what sharedDefaults.apply merges from a layer
// into a resource is the resource's own. The collector's workers check
// and fill in each resource in place, at once: a nested value of the
// layer put by reference into two resources was written by one worker
// while another read it (go test -race found it in
// TestDefaultsMergeRules), and would have been a crash ("concurrent map
// writes"), or one resource's filled-in defaults in another.
func TestDefaultsNotShared(t *testing.T) {
	sd := newSharedDefaults()
	layer := map[string]any{
		"image":       map[string]any{"from": "python:3.12-slim"},
		"env":         map[string]any{"LOG": "info"},
		"tags":        []any{"team-a"},
		"annotations": map[string]any{"team": "a"},
		"volumes":     []any{map[string]any{"name": "cache", "path": "/c"}},
	}
	sd.add("", schema.KindSandbox, &defaultLayer{origin: []string{"defaults", "sandbox"}, tree: layer})
	apply := func(name string) map[string]any {
		out, _, ds := sd.apply(schema.KindSandbox, []string{"sandboxes", name}, map[string]any{"tags": []any{name}}, nowhere{})
		if ds.HasErrors() {
			t.Fatal(ds)
		}
		return out
	}
	a, b := apply("a"), apply("b")
	a["image"].(map[string]any)["from"] = "changed"
	a["env"].(map[string]any)["LOG"] = "changed"
	a["annotations"].(map[string]any)["team"] = "changed"
	a["volumes"].([]any)[0].(map[string]any)["path"] = "changed"
	a["tags"].([]any)[0] = "changed"
	for what, got := range map[string]any{
		"image.from":             b["image"].(map[string]any)["from"],
		"env.LOG":                b["env"].(map[string]any)["LOG"],
		"annotations":            b["annotations"].(map[string]any)["team"],
		"volumes[0].path":        b["volumes"].([]any)[0].(map[string]any)["path"],
		"tags[0]":                b["tags"].([]any)[0],
		"the layer's image.from": layer["image"].(map[string]any)["from"],
		"the layer's volumes":    layer["volumes"].([]any)[0].(map[string]any)["path"],
	} {
		if got == "changed" {
			t.Errorf("%s changed with another resource's merged defaults", what)
		}
	}
}
